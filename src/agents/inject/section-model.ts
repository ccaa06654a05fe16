/** The restore block's and the compaction summary's sections, budget and shared line builders. */
import type { Checkpoint, ToolFailure, WorkCommand, WorkFile } from "../checkpoint/schema.js";
import { quoteUntrusted } from "./quote.js";

/** A count as printed: a non-negative integer, 0 for anything else. */
export function safeCount(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0;
}

export const arr = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);

/** Entries under a title line; a title ending in a space takes them on its line (joined by `sep`); or `fold`'s line. */
export interface Section<K extends string = string> {
  key: K;
  title: string;
  sep?: string;
  fold?: (entries: readonly string[]) => string;
  entries: string[];
  /** entries left out for the budget */
  dropped: number;
  /** the budget drops its first entries (default: its last) */
  fromFront?: boolean;
}

const inline = (s: Section): boolean => s.title.endsWith(" ");

export function sectionLines(s: Section): string[] {
  if (s.entries.length === 0) return [];
  if (s.fold) return [s.fold(s.entries)];
  if (inline(s)) return [s.title + s.entries.join(s.sep ?? ", ")];
  return s.title ? [s.title, ...s.entries] : s.entries;
}

/** `lines.join("\n").length` without building it. */
export const joinedLength = (lines: readonly string[]): number =>
  lines.reduce((n, l) => n + l.length, 0) + Math.max(0, lines.length - 1);

/** `sectionLines(s).join("\n").length` without building it (the budget asks after every drop). */
function sectionLength(s: Section): number {
  const n = s.entries.length;
  if (n === 0) return 0;
  if (s.fold) return s.fold(s.entries).length;
  let len = 0;
  for (const e of s.entries) len += e.length;
  if (inline(s)) return s.title.length + len + (s.sep ?? ", ").length * (n - 1);
  return (s.title ? s.title.length + 1 : 0) + len + (n - 1);
}

/** Sections under one budget: `body` (their length, kept up to date) inside the block's `frame`. */
export class SectionBudget<K extends string> {
  readonly byKey: Map<K, Section<K>>;
  private readonly lens = new Map<K, number>();
  body = 0;

  constructor(
    sections: Section<K>[],
    private readonly frame: (body: number) => number,
  ) {
    this.byKey = new Map(sections.map((s) => [s.key, s]));
    for (const s of sections) this.relen(s);
  }

  total(): number {
    return this.frame(this.body);
  }

  relen(s: Section<K>): void {
    const before = this.lens.get(s.key) ?? 0;
    const after = sectionLength(s);
    this.lens.set(s.key, after);
    this.body += (after > 0 ? after + 1 : 0) - (before > 0 ? before + 1 : 0);
  }

  /** Drop entries of `key` while more than `keep` remain and the block is over `limit`. */
  drop(key: K, keep: number, limit: number): void {
    const s = this.byKey.get(key)!;
    while (s.entries.length > keep && this.total() > limit) {
      if (s.fromFront) s.entries.shift();
      else s.entries.pop();
      s.dropped++;
      this.relen(s);
    }
  }
}

/** Bare paths folded under their root, the others quoted after them. */
export class PathFold {
  readonly root: string | null;
  constructor(paths: readonly string[]) {
    this.root = commonRoot(paths.filter((p) => BARE_PATH.test(p)));
  }
  /** A path as printed in a list line: bare relative path, or quoted. */
  display(p: string): string {
    if (!BARE_PATH.test(p)) return quoteUntrusted(p, 160);
    return this.root && p.startsWith(this.root) ? p.slice(this.root.length) : p;
  }
  folded(paths: readonly string[]): string {
    const bare = paths.filter((p) => BARE_PATH.test(p)).map((p) => this.display(p));
    const quoted = paths.filter((p) => !BARE_PATH.test(p)).map((p) => quoteUntrusted(p, 160));
    return [bare.length > 0 ? foldPaths(bare) : "", ...quoted].filter(Boolean).join(", ");
  }
  /** The "Files changed" title: how many, and the root they are folded under. */
  head(total: number): string {
    return `Files changed (${total}${this.root ? `, root ${this.root}` : ""}): `;
  }
}

/** The ledger's files, and every changed path: the ledger's, then those it missed (a host without tool_result). */
export function changedPaths(cp: Checkpoint): { files: WorkFile[]; paths: string[] } {
  const files = arr(cp.work?.files).filter((f) => f && typeof f.path === "string");
  const known = new Set(files.map((f) => f.path));
  const extra = arr(cp.resources?.files_modified).filter((p) => typeof p === "string" && !known.has(p)).reverse();
  return { files, paths: [...files.map((f) => f.path), ...extra] };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** What a ledger file went through: deleted, writes, edits (the counts both blocks print first). */
export function changeCounts(f: WorkFile): string[] {
  const counts = f.deleted === true ? ["deleted"] : [];
  if (safeCount(f.writes) > 0) counts.push(plural(safeCount(f.writes), "write"));
  if (safeCount(f.edits) > 0) counts.push(plural(safeCount(f.edits), "edit"));
  return counts;
}

/** A command family with its latest outcome and, run more than once, how often (and how often it failed). */
export function commandEntry(c: WorkCommand): string {
  const outcome = c.ok ? "ok" : typeof c.exit === "number" ? `failed (exit ${safeCount(c.exit)})` : "failed";
  const n = safeCount(c.runs);
  const failed = safeCount(c.failures);
  const runs = n > 1 ? ` ×${n}${failed > 0 ? ` (${failed} failed)` : ""}` : "";
  return `${quoteUntrusted(c.family, 60)} ${outcome}${runs}`;
}

/** Read-only programs whose runs say nothing about the state of the work. */
const VIEW_PROGRAMS: ReadonlySet<string> = new Set([
  "grep", "rg", "egrep", "fgrep", "ag", "cat", "head", "tail", "less", "ls", "find", "fd", "sed", "awk", "wc",
  "echo", "printf", "pwd", "which", "sleep", "tree", "file", "stat", "diff", "sort", "uniq", "cut", "jq", "true",
]);

/** The ledger's command families, without those of read-only programs. */
export function workCommands(cp: Checkpoint): WorkCommand[] {
  const viewer = (family: string): boolean => VIEW_PROGRAMS.has(family.split(" ")[0] ?? "");
  return arr(cp.work?.commands).filter((c) => c && typeof c.family === "string" && !viewer(c.family));
}

/** `- <tool> "<target>": "<error>"`; `tool` as printed (default: quoted). */
export function failureEntry(e: ToolFailure, targetCap: number, errorCap: number, tool?: string): string {
  const target = e?.target ? ` ${quoteUntrusted(e.target, targetCap)}` : "";
  return `- ${tool ?? quoteUntrusted(e?.tool, 40)}${target}: ${quoteUntrusted(e?.error, errorCap)}`;
}

/** The working state's lines after the topic or goal: status, next action, an interruption. */
export function stateLines(working: Checkpoint["working"], status: string, cap: number, compact = false): string[] {
  const next = working.next_action ? quoteUntrusted(working.next_action, cap) : "(not recorded)";
  const lines = [`Status: ${status}`, `Next action: ${next}`];
  const call = working.last_tool_call;
  if (working.interrupted !== true) return lines;
  if (!call || compact) return [...lines, "Interrupted: yes"];
  const params = quoteUntrusted(call.params_summary, Math.min(120, cap));
  return [...lines, `Interrupted: yes — last tool call: ${quoteUntrusted(call.name, 40)} ${params}`];
}

// --- Paths folded under common prefixes (`src/{core/{a.ts, b.ts}, cli.ts}`); the others are quoted.
/** Characters a path may have to be printed bare (no space, quote, comma, brace, colon). */
const BARE_PATH = /^[A-Za-z0-9._\-/@+~%=]+$/;

/** Longest common directory prefix (ending in "/") of at least two paths, or null. */
function commonRoot(paths: readonly string[]): string | null {
  if (paths.length < 2) return null;
  let prefix = paths[0]!;
  for (const p of paths) {
    let i = 0;
    while (i < prefix.length && i < p.length && prefix[i] === p[i]) i++;
    prefix = prefix.slice(0, i);
    if (!prefix) return null;
  }
  const cut = prefix.lastIndexOf("/");
  if (cut <= 0) return null;
  const root = prefix.slice(0, cut + 1);
  // a root must leave every path a name of its own
  return paths.every((p) => p.length > root.length) ? root : null;
}

interface Node {
  children: Map<string, Node>;
  terminal: boolean;
}

const node = (): Node => ({ children: new Map(), terminal: false });

/** Paths in the given order (a group sits where its first path was); a single child joined with "/". */
function foldPaths(paths: readonly string[]): string {
  const root = node();
  for (const p of paths) {
    let n = root;
    for (const seg of p.split("/")) {
      let c = n.children.get(seg);
      if (!c) n.children.set(seg, (c = node()));
      n = c;
    }
    n.terminal = true;
  }
  return render(root).join(", ");
}

function render(n: Node): string[] {
  const out: string[] = [];
  for (const [seg, child] of n.children) {
    if (child.terminal) out.push(seg);
    if (child.children.size === 0) continue;
    const inner = render(child);
    out.push(inner.length === 1 ? `${seg}/${inner[0]}` : `${seg}/{${inner.join(", ")}}`);
  }
  return out;
}
