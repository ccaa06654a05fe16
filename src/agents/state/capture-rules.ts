/**
 * The capture's rules (spec §7.2, §11, docs/capture-rules.md), from structure only (roles, lengths,
 * stop reasons, Markdown and Unicode punctuation, a call's arguments), never English keywords or a
 * tool output's words. Layer A: one `tool_result` event -> tool, target, file access, failure, into
 * state (message-capture.ts); Layer B: what one message means. Strings leave redacted and gisted.
 */
import os from "node:os";
import path from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { LastToolCall, ToolFailure, WorkingStatus } from "../checkpoint/schema.js";
import { asText, boundedJson, codePointLength, cutHead, cutTail, gist, gistTail, safeGist } from "../text/gist.js";
import { redactSecrets } from "../text/redact.js";
import { contentText, prop, toolCallsOf, toolPathArg } from "../messages/read.js";
import { informativeErrorLine } from "../messages/tool-outcome.js";
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

// ---- Layer A: a tool result

export interface ToolResultEventLike {
  toolName: string;
  toolCallId?: string;
  input: unknown;
  content: unknown;
  isError: boolean;
}

/** `target`: normalized path, command gist, or ""; `file`: only when the call succeeded and a path was given */
type ToolResultCapture = { tool: string; target: string; file: FileAccess | null; failure: ToolFailure | null };
type FileAccess = { path: string; access: "read" | "modified" };

/** Path relative to cwd as pi's tools resolve it ("@" dropped, "~" expanded), absolute outside cwd; redacted. */
export function normalizeToolPath(raw: string, cwd: string): string {
  // "~" reads the home directory, which may change: not memoized
  const memo = typeof raw === "string" && raw.length <= PATH_MEMO_KEY_MAX && !raw.includes("~");
  const key = memo ? `${cwd}\u0000${raw}` : "";
  const hit = memo ? normalizedPaths.get(key) : undefined;
  if (hit !== undefined) return hit;
  const out = normalizeToolPathNow(raw, cwd);
  if (memo) {
    if (normalizedPaths.size >= PATH_MEMO_MAX) normalizedPaths.clear();
    normalizedPaths.set(key, out);
  }
  return out;
}

/** A session names the same few paths in most calls: path.resolve alone allocated ~0.4 MB per 1,000 messages. */
const normalizedPaths = new Map<string, string>();
const PATH_MEMO_MAX = 1024;
const PATH_MEMO_KEY_MAX = 1024;

function normalizeToolPathNow(raw: string, cwd: string): string {
  // redact BEFORE normalizing: path.resolve turns `https://user:pass@host` into `https:/user:pass@host`
  let p = redactSecrets(cutHead(raw, 8192)).trim();
  if (p.startsWith("@")) p = p.slice(1);
  if (p === "~") p = os.homedir();
  else if (p.startsWith("~/")) p = os.homedir() + p.slice(1);
  const abs = path.isAbsolute(p) ? path.normalize(p) : path.resolve(cwd, p);
  const rel = path.relative(cwd, abs);
  const out = rel === "" ? "." : rel.startsWith("..") || path.isAbsolute(rel) ? abs : rel;
  return safeGist(out.split(path.sep).join("/"), 400);
}

/** The most informative line of an error text (tool-outcome.ts rules), redacted and gisted. */
export function errorGist(text: string): string {
  return safeGist(informativeErrorLine(text, GIST.error * 2), GIST.error);
}

/** Head and tail of tool content (errors sit at either end of long outputs), bounded. */
export function contentHeadTail(content: unknown, each = 4000): string {
  const all = contentText(content, 400_000);
  // cut between tokens (text/gist.ts): a plain slice would keep the unrecognisable end of a
  // token straddling the tail window's start, or the start of one straddling the head's end
  return all.length <= each * 2 ? all : `${cutHead(all, each)}\n${cutTail(all, each)}`;
}

/**
 * write/edit with a path: modified; any other tool with a path: read (we cannot know it writes); bash:
 * the command gist is the target. A failed call records only a failure. `headTail`: when already read.
 */
export function extractToolResult(ev: ToolResultEventLike, cwd: string, now: Date = new Date(), headTail?: string): ToolResultCapture {
  const tool = safeGist(asText(ev.toolName), 80) || "(unknown)";
  const rawPath = toolPathArg(ev.input);
  const filePath = rawPath === null ? null : normalizeToolPath(rawPath, cwd);
  const cmd = prop(ev.input, "command");
  const target = filePath || (typeof cmd === "string" ? safeGist(cmd, GIST.command) : "");
  if (ev.isError) {
    const error = errorGist(headTail ?? contentHeadTail(ev.content)) || "(no error text)";
    return { tool, target, file: null, failure: { tool, target, error, when: now.toISOString() } };
  }
  const name = asText(ev.toolName);
  const access = name === "write" || name === "edit" ? "modified" : "read";
  return { tool, target, file: filePath ? { path: filePath, access } : null, failure: null };
}

/** Names as the state keeps them: each gisted, empty ones dropped. */
export function gistedNames(names: readonly string[]): string[] {
  return names.map((n) => safeGist(n, GIST.name)).filter(Boolean);
}
