/**
 * Fidelity v2: what the restore TEXT conveys at one compaction, against facts derived from
 * the transcript alone (its first `delivered` messages). Deliberately shares no code with
 * the capture (src/agents/*): its own path, command-family, failure and request rules, so
 * a capture bug cannot grade itself. The only coupling is the documented text format of
 * the block (docs/capture-rules.md: fold notation, section titles, quoting).
 *
 * Metrics:
 * - modified-file recall: successful write/edit paths found in the text;
 * - listed failures still unresolved: failures the text lists that, at that point, had no
 *   later success of the same tool on the same target (bash: same command family) and had
 *   not been followed by two user requests; a grep/rg exit 1 with no output is no failure;
 * - stale next action: the `Next action:` line points at a failure older than the latest
 *   user request;
 * - the last 3 user requests (host-injected tagged blocks removed) found in the text;
 * - tokens (chars / 4, rounded up).
 */

import { homedir } from "node:os";
import { join } from "node:path";

export interface RecordedMsg {
  role: string;
  content?: unknown;
  [key: string]: unknown;
}

export interface FidelityV2 {
  deliveredMessages: number;
  tokens: number;
  modifiedFiles: { expected: number; found: number; recall: number; missing: string[] };
  failures: { listed: number; unresolved: number; share: number; resolvedListed: string[] };
  nextAction: { text: string; stale: boolean; staleFailure: string | null };
  lastRequests: { expected: number; found: number; missing: string[] };
}

// ------------------------------------------------------------------ transcript facts

interface Call {
  name: string;
  args: Record<string, unknown>;
}

interface FailureFact {
  index: number;
  tool: string;
  target: string;
  error: string;
  /** index of the success or request that closed it, or null when still open at `delivered` */
  closedAt: number | null;
}

export interface TranscriptFacts {
  modified: string[];
  failures: FailureFact[];
  /** user requests: index of the (last) message and its text, oldest first */
  requests: Array<{ index: number; text: string }>;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: string; text?: string }) => (b && b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .join("\n");
}

function pathOf(args: Record<string, unknown>): string | null {
  const p = args.path ?? args.file_path ?? args.filePath;
  if (typeof p !== "string" || !p.trim()) return null;
  let s = p.trim();
  if (s.startsWith("@")) s = s.slice(1);
  while (s.startsWith("./")) s = s.slice(2);
  return s;
}

/** Removes line-start blocks `<a-b ...>…</a-b>` (hyphenated tag names: host-injected markup). */
export function stripTaggedBlocks(text: string): string {
  return text.replace(/^[ \t]*<([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?:\s[^>]*)?>[\s\S]*?<\/\1>[ \t]*$/gm, "").trim();
}

/**
 * Program + subcommand of the command's last step (quoted strings blanked, pipes cut,
 * `cd`/`export`/`source` preludes and env assignments skipped).
 */
export function commandFamilyOf(command: string): string {
  const steps = command
    .replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, "Q")
    .split(/&&|\|\||;|\n/)
    .map((s) => s.split("|")[0]!.trim())
    .filter((s) => s && !s.startsWith("#"));
  for (let k = steps.length - 1; k >= 0; k--) {
    const words = steps[k]!.split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (words.length === 0) continue;
    const prog = (words[0] ?? "").replace(/^.*\//, "");
    if ((prog === "cd" || prog === "export" || prog === "source" || prog === ".") && k > 0) continue;
    const sub = words.slice(1).find((w) => !w.startsWith("-"));
    if (["npm", "pnpm", "yarn", "bun"].includes(prog) && sub === "run") {
      const script = words.slice(words.indexOf("run") + 1).find((w) => !w.startsWith("-"));
      return `${prog} run ${script ?? ""}`.trim();
    }
    return sub && /^[a-z][\w:.-]*$/i.test(sub) ? `${prog} ${sub}` : prog;
  }
  return command.trim();
}

function isEmptySearch(call: Call, output: string): boolean {
  const searchTool = call.name === "grep" || call.name === "rg";
  const cmd = typeof call.args.command === "string" ? call.args.command : "";
  const family = cmd ? commandFamilyOf(cmd).split(" ")[0] : "";
  if (!searchTool && !(call.name === "bash" && ["grep", "rg", "egrep", "fgrep"].includes(family ?? ""))) return false;
  const rest = output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^\(no output\)$/.test(l) && !/^(Command exited with code|Exit code) 1$/.test(l));
  const exit1 = /(?:Command exited with code|Exit code) 1\b/.test(output) || searchTool;
  return exit1 && rest.length === 0;
}

function sameTarget(a: FailureFact, tool: string, target: string): boolean {
  if (a.tool !== tool) return false;
  if (a.target === target) return true;
  return tool === "bash" && a.target !== "" && commandFamilyOf(a.target) === commandFamilyOf(target);
}

export function transcriptFacts(messages: readonly RecordedMsg[], delivered: number): TranscriptFacts {
  const calls = new Map<string, Call>();
  const modified = new Map<string, true>();
  const failures: FailureFact[] = [];
  const requests: Array<{ index: number; text: string }> = [];
  let pendingUser: { index: number; text: string } | null = null;
  const end = Math.min(delivered, messages.length);
  for (let i = 0; i < end; i++) {
    const m = messages[i]!;
    if (m.role !== "user" && pendingUser) {
      const text = stripTaggedBlocks(pendingUser.text);
      if (text) requests.push({ index: pendingUser.index, text });
      pendingUser = null;
    }
    if (m.role === "user") {
      // consecutive user messages reached the agent together (one request)
      pendingUser = pendingUser ? { index: i, text: `${pendingUser.text}\n\n${textOf(m.content)}` } : { index: i, text: textOf(m.content) };
      continue;
    }
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const b of m.content as Array<{ type?: string; id?: string; name?: string; arguments?: unknown }>) {
        if (b?.type === "toolCall" && typeof b.id === "string") {
          calls.set(b.id, { name: String(b.name ?? ""), args: (b.arguments ?? {}) as Record<string, unknown> });
        }
      }
      continue;
    }
    if (m.role !== "toolResult") continue;
    const call = calls.get(String(m.toolCallId)) ?? { name: String(m.toolName ?? ""), args: {} };
    const tool = String(m.toolName ?? call.name);
    const p = pathOf(call.args);
    const target = p ?? (typeof call.args.command === "string" ? call.args.command.trim() : "");
    const output = textOf(m.content);
    if (m.isError === true) {
      if (isEmptySearch(call, output)) continue;
      failures.push({ index: i, tool, target, error: output.trim(), closedAt: null });
      continue;
    }
    if ((tool === "write" || tool === "edit") && p) modified.set(p, true);
    for (const f of failures) if (f.closedAt === null && sameTarget(f, tool, target)) f.closedAt = i;
  }
  if (pendingUser) {
    const text = stripTaggedBlocks(pendingUser.text);
    if (text) requests.push({ index: pendingUser.index, text });
  }
  // superseded: two user requests after the failure
  for (const f of failures) {
    if (f.closedAt !== null) continue;
    const later = requests.filter((r) => r.index > f.index);
    if (later.length >= 2) f.closedAt = later[1]!.index;
  }
  return { modified: [...modified.keys()], failures, requests };
}

// ------------------------------------------------------------------ text parsing

/** Whitespace collapsed, JSON-style escapes undone, trailing ellipsis dropped. */
function norm(s: string): string {
  return s.replace(/\\(["\\])/g, "$1").replace(/\s+/g, " ").trim();
}

function cutEllipsis(s: string): string {
  return s.replace(/…$/, "").trim();
}

/** Expands the fold notation `dir/{a, b/{c, d}}` into whole paths; other words pass through. */
export function expandFolds(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const parseWord = (): string[] => {
    let acc = [""];
    while (i < text.length) {
      const c = text[i]!;
      if (c === "{") {
        i++;
        const alts: string[] = [];
        for (;;) {
          while (text[i] === " ") i++;
          alts.push(...parseWord());
          if (text[i] === ",") {
            i++;
            continue;
          }
          if (text[i] === "}") i++;
          break;
        }
        acc = acc.flatMap((a) => alts.map((b) => a + b));
      } else if (/[\s",}]/.test(c)) {
        break;
      } else {
        acc = acc.map((a) => a + c);
        i++;
      }
    }
    return acc;
  };
  while (i < text.length) {
    if (/[\s",}]/.test(text[i]!)) {
      i++;
      continue;
    }
    for (const w of parseWord()) if (w) out.push(w.replace(/[:;.)]+$/, "").replace(/^\(/, ""));
  }
  return out;
}

/** Roots declared as `root <dir>/` (followed by `)`, `,` or `;`) in the text. */
function rootsOf(text: string): string[] {
  return [...text.matchAll(/\broot (\S+?\/)[;,)]/g)].map((m) => m[1]!);
}

function fileFound(file: string, words: ReadonlySet<string>, roots: readonly string[]): boolean {
  if (words.has(file)) return true;
  // pi's tools expand "~/" to the home directory of the machine that runs them
  if (file.startsWith("~/")) return fileFound(join(homedir(), file.slice(2)), words, roots);
  for (const r of roots) if (file.startsWith(r) && words.has(file.slice(r.length))) return true;
  return false;
}

interface ListedFailure {
  tool: string;
  rest: string;
}

/** Failure entries: lines of a section whose title mentions failures, and "Unresolved failure:" items. */
export function listedFailures(text: string): ListedFailure[] {
  const out: ListedFailure[] = [];
  let inSection = false;
  for (const line of text.split("\n")) {
    if (!line.startsWith("- ")) inSection = /failure/i.test(line) && line.trimEnd().endsWith(":");
    const unresolved = /^- "Unresolved failure: (\S+) (.*)"$/.exec(line);
    if (unresolved) {
      out.push({ tool: unresolved[1]!, rest: norm(unresolved[2]!) });
      continue;
    }
    if (!inSection || !line.startsWith("- ")) continue;
    const m = /^- "?([^"\s:]+)"?:? (.*)$/.exec(line);
    if (m) out.push({ tool: m[1]!, rest: norm(m[2]!.replace(/^"/, "")) });
  }
  return out;
}

function failureMatches(f: FailureFact, entry: ListedFailure): boolean {
  if (f.tool !== entry.tool) return false;
  const target = norm(f.target);
  if (!target) return true;
  const rest = entry.rest;
  const probe = cutEllipsis(rest.split('"')[0] ?? rest);
  return rest.startsWith(target.slice(0, 40)) || (probe.length >= 8 && target.startsWith(probe));
}

// ------------------------------------------------------------------ the measure

export function fidelityV2(messages: readonly RecordedMsg[], delivered: number, restoreText: string): FidelityV2 {
  const facts = transcriptFacts(messages, delivered);
  const text = restoreText;
  const flat = norm(text);

  const words = new Set(expandFolds(text.replace(/\\(["\\])/g, "$1")));
  const roots = rootsOf(text);
  const missing = facts.modified.filter((f) => !fileFound(f, words, roots));

  const entries = listedFailures(text);
  const resolvedListed: string[] = [];
  let unresolved = 0;
  for (const e of entries) {
    const matching = facts.failures.filter((f) => failureMatches(f, e));
    const latest = matching.at(-1);
    if (latest && latest.closedAt === null) unresolved++;
    else resolvedListed.push(`${e.tool} ${e.rest}`.slice(0, 100));
  }

  const nextLine = text.split("\n").find((l) => l.startsWith("Next action:")) ?? "";
  const latestRequest = facts.requests.at(-1)?.index ?? -1;
  let staleFailure: string | null = null;
  const nextFlat = norm(nextLine);
  for (const f of facts.failures) {
    if (f.index >= latestRequest) continue;
    // derived from the failure: names its target AND quotes a line of its error output
    const target = norm(f.target).slice(0, 30);
    const errLines = f.error
      .split("\n")
      .map((l) => norm(l).slice(0, 24))
      // words, not a bare path (a path also appears in a next action that names a file)
      .filter((l) => l.length >= 10 && l.includes(" "))
      .slice(0, 8);
    // (a long target can push the error text past the line's cap: a line that names the
    // target and says it failed counts too)
    if (target.length >= 8 && nextFlat.includes(target) && (errLines.some((l) => nextFlat.includes(l)) || /fail/i.test(nextFlat))) {
      staleFailure = `${f.tool} ${norm(f.target).slice(0, 60)}`;
    }
  }

  const distinct: string[] = [];
  for (const r of [...facts.requests].reverse()) {
    const g = norm(r.text).slice(0, 40).trim();
    if (g && !distinct.includes(g)) distinct.push(g);
    if (distinct.length === 3) break;
  }
  const reqMissing = distinct.filter((g) => !flat.includes(g));

  return {
    deliveredMessages: delivered,
    tokens: Math.ceil(text.length / 4),
    modifiedFiles: {
      expected: facts.modified.length,
      found: facts.modified.length - missing.length,
      recall: facts.modified.length === 0 ? 1 : (facts.modified.length - missing.length) / facts.modified.length,
      missing,
    },
    failures: { listed: entries.length, unresolved, share: entries.length === 0 ? 1 : unresolved / entries.length, resolvedListed },
    nextAction: { text: nextLine, stale: staleFailure !== null, staleFailure },
    lastRequests: { expected: distinct.length, found: distinct.length - reqMissing.length, missing: reqMissing },
  };
}
