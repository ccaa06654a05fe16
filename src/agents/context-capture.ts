/**
 * Pure extraction rules for incremental state capture (spec §7.2, §11).
 * Layer A: one `tool_result` event -> tool, target, file access, failure.
 * Layer B: one message -> what it means structurally (user text, assistant text,
 * tool calls, task-list items, status). No English keyword matching anywhere:
 * only roles, lengths, stop reasons, markdown structure and Unicode punctuation.
 * Every string that leaves this module is redacted and gisted.
 */
import os from "node:os";
import path from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import type { LastToolCall, ToolFailure, WorkingStatus } from "./checkpoint/schema.js";
import { cutHead, cutTail } from "./text/cut.js";
import { redactSecrets } from "./text/redact.js";
import { asText, codePointLength, gist, gistTail } from "./text/gist.js";
import { informativeErrorLine } from "./messages/tool-outcome.js";
import { contentText, prop, toolCallsOf, toolPathArg } from "./messages/read.js";
import { boundedJson } from "./text/bounded-json.js";
import { safeGist } from "./text/safe-gist.js";


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
  /** issue 25: a request and the agent's last text of its turn, as the turn log keeps them */
  turnRequest: 300,
  turnOutcome: 500,
} as const;

/** A reply shorter than this (code points) after a long answer is a decision point (spec §7.2). */
export const DECISION_REPLY_MAX = 50;
/** An assistant answer longer than this (code points) is "long" (spec §11.2). */
export const LONG_ANSWER_MIN = 500;

// ---------------------------------------------------------------- Layer A

export interface ToolResultEventLike {
  toolName: string;
  toolCallId?: string;
  input: unknown;
  content: unknown;
  isError: boolean;
}

export type FileAccess = "read" | "modified";

export interface ToolResultCapture {
  tool: string;
  /** normalized path, command gist, or "" */
  target: string;
  /** the file touched, only when the call succeeded and a path was given */
  file: { path: string; access: FileAccess } | null;
  failure: ToolFailure | null;
}

const MODIFY_TOOLS: ReadonlySet<string> = new Set(["write", "edit"]);

/**
 * Path relative to cwd (like pi's tools resolve it: "@" prefix dropped, "~" expanded);
 * a path outside cwd stays absolute. Redacted, single line.
 */
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

/**
 * A session names the same few paths in most of its tool calls, and a capture pass over a long
 * history (the compaction provider's) normalizes every one: the latest results are kept, like the
 * redaction's memo of recent texts (a pure function of the path and cwd). Bounded; cleared when full.
 */
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
  // cut between tokens (text/cut.ts): a plain slice would keep the unrecognisable end of a
  // token straddling the tail window's start, or the start of one straddling the head's end
  return all.length <= each * 2 ? all : `${cutHead(all, each)}\n${cutTail(all, each)}`;
}

/**
 * Layer A rules:
 * - read/ls/grep/find with a path -> file read; write/edit -> file modified;
 * - any other tool with an unambiguous path argument -> file read (we cannot know
 *   that it writes; "read" keeps the file visible without claiming a change);
 * - bash -> target is the command gist, no file;
 * - a failed call (isError) records no file access, only a failure with its target
 *   and the first line of the error.
 */
export function extractToolResult(ev: ToolResultEventLike, cwd: string, now: Date = new Date()): ToolResultCapture {
  const tool = safeGist(asText(ev.toolName), 80) || "(unknown)";
  const rawPath = toolPathArg(ev.input);
  const filePath = rawPath === null ? null : normalizeToolPath(rawPath, cwd);
  let target = filePath ?? "";
  if (!filePath) {
    const cmd = prop(ev.input, "command");
    if (typeof cmd === "string") target = safeGist(cmd, GIST.command);
  }
  if (ev.isError) {
    const error = errorGist(contentHeadTail(ev.content)) || "(no error text)";
    return { tool, target, file: null, failure: { tool, target, error, when: now.toISOString() } };
  }
  let file: ToolResultCapture["file"] = null;
  // read/ls/grep/find and unknown tools with a path: "read"
  if (filePath) file = { path: filePath, access: MODIFY_TOOLS.has(asText(ev.toolName)) ? "modified" : "read" };
  return { tool, target, file, failure: null };
}

// ---------------------------------------------------------------- Layer B

/** "<name> <path or command or compact JSON of args>", redacted and gisted. */
export function summarizeToolCall(name: string, args: unknown, cwd?: string): LastToolCall {
  const p = toolPathArg(args);
  let summary: string;
  if (p !== null) summary = cwd ? normalizeToolPath(p, cwd) : safeGist(p, GIST.params);
  else if (typeof prop(args, "command") === "string") {
    summary = safeGist(prop(args, "command") as string, GIST.params);
  } else {
    summary = safeGist(boundedJson(args, GIST.params * 4), GIST.params);
  }
  return { name: safeGist(name, 80), params_summary: summary };
}


/**
 * The last tool call in `messages` (an interrupted turn's prefix), summarized like every
 * other captured call: redacted, gisted, bounded JSON. Total on malformed messages.
 */
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
  const t = text.replace(TRAILING_CLOSERS, "");
  if (!t) return false;
  const last = String.fromCodePoint(t.codePointAt(t.length - 1) ?? 0);
  return QUESTION_MARKS.has(t.slice(-1)) || QUESTION_MARKS.has(last);
}

export interface TaskListItems {
  open: string[];
  done: string[];
}

const TASK_LINE = /^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]\s+(.+)$/;

/** Markdown task-list items: `- [ ] text` is open, `- [x] text` is done (same text closes it). */
export function taskListItems(text: string): TaskListItems {
  const out: TaskListItems = { open: [], done: [] };
  if (!text.includes("[")) return out;
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

/**
 * The proposal part of a long answer, ~100 chars: its head and its last non-blank line
 * (where an answer usually puts the choice it asks the user about).
 */
export function proposalGist(text: string): string {
  if (codePointLength(text, GIST.decisionProposal + 1) <= GIST.decisionProposal) return safeGist(text, GIST.decisionProposal);
  const lines = text.split(/\r\n|\r|\n/);
  let lastLine = "";
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]!.trim()) {
      lastLine = lines[i]!;
      break;
    }
  }
  const firstLineEnd = text.search(/\r|\n/);
  const isSingleLine = firstLineEnd < 0 || lastLine === text.slice(0, firstLineEnd);
  if (isSingleLine) return safeGist(text, GIST.decisionProposal);
  const head = safeGist(text, 55).replace(/…$/, "");
  // the last line is bounded before redaction so a huge single line stays cheap
  return `${head} … ${gistTail(redactSecrets(gistTail(redactSecrets(cutTail(lastLine, 4096)), 400)), 42)}`;
}

export function decisionText(assistantProposal: string, userReply: string): string {
  return `${assistantProposal} → ${safeGist(userReply, GIST.decisionReply)}`;
}

/** What the last conversational message says about the working status. */
export interface LastMessageInfo {
  role: "user" | "assistant" | "toolResult";
  stopReason: string | null;
  hasToolCalls: boolean;
  endsWithQuestion: boolean;
  /** last non-blank line of the last assistant text (for "wait for reply to ..."), gisted */
  tail: string;
}

/**
 * Status rules:
 * - toolResult last, or assistant with tool calls / stopReason "toolUse" -> in_progress;
 * - assistant "stop" whose text ends with a question mark (any script) -> waiting_for_user;
 * - assistant "stop" otherwise -> idle;
 * - assistant "aborted" / "error" / "length" -> in_progress (the turn did not finish);
 * - user last -> in_progress (a reply is owed);
 * - nothing seen -> idle.
 */
export function statusOf(last: LastMessageInfo | null): WorkingStatus {
  if (!last) return "idle";
  if (last.role !== "assistant") return "in_progress";
  if (last.hasToolCalls || last.stopReason === "toolUse") return "in_progress";
  if (last.stopReason === "stop") return last.endsWithQuestion ? "waiting_for_user" : "idle";
  return "in_progress";
}

export function isInterruptStop(stopReason: string | null | undefined): boolean {
  return stopReason === "aborted" || stopReason === "error";
}

export function lastNonBlankLine(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.trim()) return lines[i]!;
  return "";
}

export type { AssistantMessage, ToolResultMessage };
