/**
 * Layer A (spec §7.2, docs/capture-rules.md): one `tool_result` event -> tool, target, file access,
 * failure, from the call's structure only (no keyword of its output), into state, redacted and gisted.
 */
import os from "node:os";
import path from "node:path";
import type { ToolFailure } from "../checkpoint/schema.js";
import { cutHead, cutTail } from "../text/cut.js";
import { redactSecrets } from "../text/redact.js";
import { asText } from "../text/gist.js";
import { contentText, prop, toolPathArg } from "../messages/read.js";
import { changeGist, commandFamily, exitCodeOf, informativeErrorLine, isEmptySearch } from "../messages/tool-outcome.js";
import { removedPaths } from "../messages/tool-outcome.js";
import { changedText, declaredNames } from "./declared-names.js";
import type { CapturedState } from "./captured-state.js";
import { safeGist } from "../text/safe-gist.js";
import { GIST } from "./message-rules.js";

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
  // cut between tokens (text/cut.ts): a plain slice would keep the unrecognisable end of a
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
  let target = filePath ?? "";
  if (!filePath) {
    const cmd = prop(ev.input, "command");
    if (typeof cmd === "string") target = safeGist(cmd, GIST.command);
  }
  if (ev.isError) {
    const error = errorGist(headTail ?? contentHeadTail(ev.content)) || "(no error text)";
    return { tool, target, file: null, failure: { tool, target, error, when: now.toISOString() } };
  }
  const name = asText(ev.toolName);
  const access = name === "write" || name === "edit" ? "modified" : "read";
  return { tool, target, file: filePath ? { path: filePath, access } : null, failure: null };
}

/** This pass's edit/write calls per changed path (message-capture.ts): their change gists wait for its end. */
type Changes = Map<string, Array<{ tool: string; input: unknown }>>;

/** A tool result into resources, thread.errors and the work ledger; a search that found nothing is no failure. */
export function captureToolResult(t: CapturedState, ev: ToolResultEventLike, cwd: string, now = new Date(), pass?: Changes): void {
  const command = prop(ev.input, "command");
  const family = typeof command === "string" ? safeGist(commandFamily(command), 60) : "";
  // read once: a failure's error line and the command's outcome come from the same head and tail
  const output = ev.isError || family ? contentHeadTail(ev.content) : "";
  const cap = extractToolResult(ev, cwd, now, ev.isError ? output : undefined);
  t.touchTool(cap.tool);
  const emptySearch = ev.isError && isEmptySearch(asText(ev.toolName), ev.input, output);
  if (cap.failure && !emptySearch) {
    t.addError(cap.failure);
    t.work.onFailure(cap.failure, family);
    t.mark("work");
  } else if (t.work.onSuccess(cap.tool, cap.target, family)) t.mark("work");
  if (family && typeof command === "string") {
    const exit = exitCodeOf(output) ?? (ev.isError ? null : 0);
    // without a path argument the capture's target is this command's gist already
    const commandGist = toolPathArg(ev.input) === null ? cap.target : safeGist(command, GIST.command);
    t.work.onCommand(family, commandGist, !cap.failure || emptySearch, exit, now);
    t.mark("work");
    // a removal that certainly ran: the changed files it deleted are no longer there
    if (!cap.failure && exit === 0) {
      for (const p of removedPaths(command)) t.work.onPathRemoved(normalizeToolPath(p, cwd), now);
    }
  }
  if (cap.file) {
    t.touchFile(cap.file.path, cap.file.access);
    if (cap.file.access === "modified" && (cap.tool === "edit" || cap.tool === "write")) {
      const file = cap.file.path;
      const names = gistedNames(declaredNames(changedText(cap.tool, ev.input), file));
      // in a pass, the change gist is taken at its end, of the latest change that says something
      if (pass) {
        const list = (t.work.hasFile(file) && pass.get(file)) || [];
        list.push({ tool: cap.tool, input: ev.input });
        pass.set(file, list);
      }
      const change = pass ? "" : safeGist(changeGist(cap.tool, ev.input), GIST.change);
      t.work.onFileChanged(file, cap.tool, change, now, names);
      t.mark("work");
    }
  }
}

/** Names as the state keeps them: each gisted, empty ones dropped. */
export function gistedNames(names: readonly string[]): string[] {
  return names.map((n) => safeGist(n, GIST.name)).filter(Boolean);
}
