/**
 * Layer B rules (spec §7.2, §11): what one message means structurally, from roles, lengths, stop
 * reasons, Markdown and Unicode punctuation, never English keywords. Strings leave redacted and gisted.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { LastToolCall, WorkingStatus } from "../checkpoint/schema.js";
import { boundedJson, codePointLength, cutTail, gist, gistTail, safeGist } from "../text/gist.js";
import { redactSecrets } from "../text/redact.js";
import { prop, toolCallsOf, toolPathArg } from "../messages/read.js";
import type { LastMessageInfo } from "./thread-data.js";

type AssistantMessage = Extract<AgentMessage, { role: "assistant" }>;

/** How long each captured string may be (code points), and the lengths the decision rules compare against. */
export const GIST = {
  // the restore block squeezes it (200, 100, 40… chars) only when the block is over its cap
  topic: 200,
  exchange: 120,
  error: 160,
  command: 120,
  params: 120,
  decisionProposal: 100,
  decisionReply: 60,
  item: 160,
  change: 110,
  name: 48,
  report: 200,
  // a request and the agent's last text of its turn, as the turn log keeps them
  turnRequest: 300,
  turnOutcome: 500,
} as const;

/** A reply shorter than this (code points) after a long answer is a decision point (spec §7.2). */
export const DECISION_REPLY_MAX = 50;
/** An assistant answer longer than this (code points) is "long" (spec §11.2). */
export const LONG_ANSWER_MIN = 500;

/** "<name> <path or command or compact JSON of args>", redacted and gisted. */
export function summarizeToolCall(name: string, args: unknown): LastToolCall {
  const command = prop(args, "command");
  const text = toolPathArg(args) ?? (typeof command === "string" ? command : boundedJson(args, GIST.params * 4));
  return { name: safeGist(name, 80), params_summary: safeGist(text, GIST.params) };
}

/** The last tool call in `messages` (an interrupted turn's prefix), summarized; total on malformed messages. */
export function lastToolCallOf(messages: readonly AgentMessage[]): LastToolCall | null {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!m || typeof m !== "object" || m.role !== "assistant") continue;
    const call = toolCallsOf(m as AssistantMessage).at(-1);
    if (call) return summarizeToolCall(call.name, call.arguments);
  }
  return null;
}

/** Question marks of several scripts: ? ？(fullwidth) ؟(Arabic) ⸮(reversed) ‽(interrobang). */
const QUESTION_MARKS: ReadonlySet<string> = new Set(["?", "\uFF1F", "\u061F", "\u2E2E", "\u203D"]);
/** Closing punctuation / markdown emphasis that may follow the question mark. */
const TRAILING_CLOSERS = /[\s)\]}"'`*_»”’」』）》〉]+$/u;

/** Does the text end with a question mark (any script), ignoring trailing closers like `**`, `)`, `」`? */
export function endsWithQuestion(text: string): boolean {
  // every mark is one UTF-16 unit
  return QUESTION_MARKS.has(text.replace(TRAILING_CLOSERS, "").slice(-1));
}

const TASK_LINE = /^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]\s+(.+)$/;
const TASK_BOX = /\[[ xX]\]/;

/** Markdown task-list items: `- [ ] text` is open, `- [x] text` is done (same text closes it). */
export function taskListItems(text: string): { open: string[]; done: string[] } {
  const out = { open: [] as string[], done: [] as string[] };
  // every task line holds "[ ]", "[x]" or "[X]": a text without one is not split into lines
  if (!TASK_BOX.test(text)) return out;
  for (const line of text.split(/\r\n|\r|\n/)) {
    const m = TASK_LINE.exec(line);
    if (!m) continue;
    const item = safeGist(m[2]!, GIST.item);
    if (!item) continue;
    (m[1] === " " ? out.open : out.done).push(item);
  }
  return out;
}

/** Key for matching an item's text against a later "done" mark (case and width folded). */
export function itemKey(text: string): string {
  return gist(text, GIST.item).normalize("NFKC").toLowerCase();
}

/** A long answer's proposal, ~100 chars: its head and its last non-blank line (where the choice usually is). */
export function proposalGist(text: string): string {
  if (codePointLength(text, GIST.decisionProposal + 1) <= GIST.decisionProposal) return safeGist(text, GIST.decisionProposal);
  const lastLine = lastNonBlankLine(text);
  const firstLineEnd = text.search(/\r|\n/);
  const isSingleLine = firstLineEnd < 0 || lastLine === text.slice(0, firstLineEnd);
  if (isSingleLine) return safeGist(text, GIST.decisionProposal);
  const head = safeGist(text, 55).replace(/…$/, "");
  // the last line is bounded before redaction so a huge single line stays cheap
  return `${head} … ${gistTail(redactSecrets(gistTail(redactSecrets(cutTail(lastLine, 4096)), 400)), 42)}`;
}

/** Nothing seen or an assistant "stop": idle (waiting_for_user after a question); anything else: in_progress. */
export function statusOf(last: LastMessageInfo | null): WorkingStatus {
  if (!last) return "idle";
  if (last.role !== "assistant" || last.hasToolCalls || last.stopReason !== "stop") return "in_progress";
  return last.endsWithQuestion ? "waiting_for_user" : "idle";
}

export function lastNonBlankLine(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim()) return lines[i]!;
  return "";
}

