/**
 * The work ledger (issue 10): what the session did, mechanically, for the whole session (never
 * reset by a checkpoint: the current picture, not a delta): modified files, command families,
 * open failures (until a later success on the same target or family, or two later requests), the
 * user's requests, the agent's latest report. Strings arrive redacted and gisted; O(1) amortized.
 */
import type { ToolFailure, WorkCommand, WorkFile, WorkLedger as WorkLedgerData } from "../checkpoint/schema.js";
import { LruMap } from "./lru.js";
import { TurnLog } from "./turn-log.js";
import { asArray, asBoolean, asFields, asList, asNumber, asString, asStringArray } from "./state-files.js";
import { orNull, records } from "./state-files.js";
import { TOOL_FAILURE_DATA } from "./thread-data.js";

type WorkLedgerCaps = { maxFiles: number; maxErrors: number };
const MAX_COMMANDS = 30;
const MAX_REQUESTS = 12;

/** User requests after a failure that supersede it (the user moved on). */
export const FAILURE_SUPERSEDED_AFTER_REQUESTS = 2;
/** A request that is only a slash command, no argument (syntax, not words). */
const BARE_COMMAND = /^\/[\w:.-]+$/;
const MAX_NAMES_PER_FILE = 24;
const MAX_MENTIONED_NAMES = 400;

/** `family`: a bash failure's command family, "" otherwise; `seq`: the request it happened in */
type OpenFailure = ToolFailure & { family: string; seq: number };
/** `order`: monotonically increasing touch order (recency without clocks) */
type FileEntry = WorkFile & { order: number };

export class WorkLedger {
  private readonly files: LruMap<string, FileEntry>;
  private readonly commands = new LruMap<string, WorkCommand>(MAX_COMMANDS);
  private readonly failures: LruMap<string, OpenFailure>;
  private first: string | null = null;
  /** newest last, deduplicated (excluding the first request) */
  private recent: string[] = [];
  private seq = 0;
  private order = 0;
  private lastReport = "";
  private reportSeq = -1;
  /** file names (basename, lower case) named in user requests -> count */
  private readonly mentioned = new LruMap<string, number>(MAX_MENTIONED_NAMES);
  /** requests paired with the agent's last text of each turn, and task tool calls */
  turnLog = new TurnLog();

  constructor(caps: WorkLedgerCaps) {
    this.files = new LruMap(caps.maxFiles);
    this.failures = new LruMap(caps.maxErrors);
  }

  /** A user request (host-injected blocks already removed). `rawText` is only scanned for file names. */
  onUserRequest(requestGist: string, rawText: string, turnGist = requestGist): void {
    if (!requestGist) return;
    this.seq++;
    // a bare slash command ("/mode") is an instruction to the host, not the session's goal
    const isFirst = this.first === null && !BARE_COMMAND.test(requestGist);
    this.turnLog.onRequest(this.seq, turnGist, isFirst);
    if (isFirst) this.first = requestGist;
    else if (requestGist !== this.first) {
      this.recent = this.recent.filter((r) => r !== requestGist);
      this.recent.push(requestGist);
      if (this.recent.length > MAX_REQUESTS) this.recent.shift();
    }
    for (const name of fileNamesIn(rawText)) this.mentioned.touch(name, (this.mentioned.get(name) ?? 0) + 1);
    for (const [key, f] of this.failures.entries()) {
      if (this.seq - f.seq >= FAILURE_SUPERSEDED_AFTER_REQUESTS) this.failures.delete(key);
    }
  }

  /** The agent ended a turn with this text (its report to the user), after request `seq` (the latest by default). */
  onReport(reportGist: string, seq = this.seq): void {
    this.lastReport = reportGist;
    this.reportSeq = seq;
  }

  /** A successful edit/write of `path`; `names` = what the change declared (see declared-names.ts). */
  onFileChanged(path: string, tool: "edit" | "write", change: string, now: Date, names: readonly string[] = []): void {
    const prev = this.files.get(path);
    const entry: FileEntry = {
      path,
      edits: (prev?.edits ?? 0) + (tool === "edit" ? 1 : 0),
      writes: (prev?.writes ?? 0) + (tool === "write" ? 1 : 0),
      change: change || prev?.change || "",
      names: mergeNames(names, prev?.names ?? []),
      last: now.toISOString(),
      mentions: this.mentionsOf(path),
      order: ++this.order,
    };
    this.files.touch(path, entry);
  }

  hasFile(path: string): boolean {
    return this.files.has(path);
  }

  /** Sets the latest change gist of a file the ledger holds, in place (its rank is unchanged). */
  setChange(path: string, change: string): void {
    const f = this.files.get(path);
    if (f && change) f.change = change;
  }

  /**
   * A shell command removed `path` or a directory above it: the changed files under it are marked
   * deleted (until recreated); others are not added (`rm -rf build` is not the work).
   */
  onPathRemoved(path: string, now: Date): void {
    const prefix = path.endsWith("/") ? path : `${path}/`; // "/" itself: everything absolute
    for (const f of this.files.values()) {
      if (f.deleted || (f.path !== path && !f.path.startsWith(prefix))) continue;
      // set in place: a removal is no reason to rank the file up (rankFiles puts it last)
      f.deleted = true;
      f.last = now.toISOString();
    }
  }

  /** A shell command finished (`ok` false = a real failure; an empty search is ok). */
  onCommand(family: string, command: string, ok: boolean, exit: number | null, now: Date): void {
    const prev = this.commands.get(family);
    const runs = (prev?.runs ?? 0) + 1;
    const failures = (prev?.failures ?? 0) + (ok ? 0 : 1);
    this.commands.touch(family, { family, command, runs, failures, ok, exit, when: now.toISOString() });
  }

  onFailure(f: ToolFailure, family: string): void {
    this.failures.touch(failureKey(f.tool, f.target), { ...f, family, seq: this.seq });
  }

  /** A later success of the same tool on the same target, or of the same command family, closes failures. */
  onSuccess(tool: string, target: string, family: string): boolean {
    if (this.failures.size === 0) return false;
    let closed = this.failures.delete(failureKey(tool, target));
    if (!family) return closed;
    for (const [key, f] of this.failures.entries()) {
      if (f.tool === tool && f.family === family) closed = this.failures.delete(key) || closed;
    }
    return closed;
  }

  get requestCount(): number {
    return this.seq;
  }

  get answered(): boolean {
    return this.seq > 0 && this.reportSeq === this.seq;
  }

  /** Ledger in checkpoint form: files by importance, commands newest first, requests newest first. */
  snapshot(): WorkLedgerData {
    const requests = [...this.recent].reverse();
    if (this.first !== null) requests.push(this.first);
    const turns = this.turnLog.turns();
    const tasks = this.turnLog.taskList();
    return {
      files: rankFiles(this.files.list()).map(({ order: _o, names, deleted, ...f }) => ({
        ...f,
        ...(names && names.length > 0 ? { names } : {}),
        ...(deleted ? { deleted: true } : {}),
        mentions: Math.max(f.mentions, this.mentionsOf(f.path)),
      })),
      commands: this.commands.list().reverse(),
      open_failures: this.failures.list().map(({ tool, target, error, when }) => ({ tool, target, error, when })),
      requests,
      last_report: this.lastReport,
      answered: this.answered,
      ...(turns.length > 0 ? { turns } : {}),
      ...(tasks.length > 0 ? { tasks } : {}),
    };
  }

  private mentionsOf(path: string): number {
    return this.mentioned.get(path.slice(path.lastIndexOf("/") + 1).toLowerCase()) ?? 0;
  }

  toData(): unknown {
    return {
      seq: this.seq,
      order: this.order,
      first: this.first,
      recent: this.recent,
      last_report: this.lastReport,
      report_seq: this.reportSeq,
      files: this.files.list(),
      commands: this.commands.list(),
      failures: this.failures.list(),
      mentioned: [...this.mentioned],
      turns: this.turnLog.toData(),
    };
  }

  /** Loads persisted data; throws StateDataError naming the field on a bad shape. */
  static fromData(raw: unknown, caps: WorkLedgerCaps): WorkLedger {
    const d = asFields(raw, "", LEDGER_DATA);
    const w = new WorkLedger(caps);
    Object.assign(w, { seq: d.seq, order: d.order, first: d.first, recent: d.recent });
    Object.assign(w, { lastReport: d.last_report, reportSeq: d.report_seq });
    for (const f of d.files) w.files.touch(f.path, f);
    for (const c of d.commands) w.commands.touch(c.family, c);
    for (const f of d.failures) w.failures.touch(failureKey(f.tool, f.target), f);
    // absent in state written before the turn log
    if (d.turns !== undefined) w.turnLog = TurnLog.fromData(d.turns);
    for (const [name, count] of d.mentioned) w.mentioned.touch(name, count);
    return w;
  }
}

const FILE_DATA = {
  path: asString,
  edits: asNumber,
  writes: asNumber,
  change: asString,
  // absent in state written before names were kept
  names: (v: unknown, f: string) => (v === undefined ? [] : asStringArray(v, f)),
  last: asString,
  mentions: asNumber,
  order: asNumber,
  // absent in state written before removals were tracked
  deleted: (v: unknown) => (v === true ? true : undefined),
};
const COMMAND_DATA = {
  family: asString,
  command: asString,
  runs: asNumber,
  failures: asNumber,
  ok: asBoolean,
  exit: orNull(asNumber),
  when: asString,
};
const FAILURE_DATA = { ...TOOL_FAILURE_DATA, family: asString, seq: asNumber };
/** work.json's data, read in this order (errors name the field) */
const LEDGER_DATA = {
  seq: asNumber,
  order: asNumber,
  first: (v: unknown, f: string) => (v === null ? null : asString(v, f)),
  recent: asStringArray,
  last_report: asString,
  report_seq: asNumber,
  files: records(FILE_DATA),
  commands: records(COMMAND_DATA),
  failures: records(FAILURE_DATA),
  turns: (v: unknown) => v,
  mentioned: (v: unknown, f: string) => asList(v, f, (p, g) => {
    const pair = asArray(p, g);
    return [asString(pair[0], `${g}[0]`), asNumber(pair[1], `${g}[1]`)] as const;
  }),
};

const failureKey = (tool: string, target: string): string => `${tool}\u0000${target}`;

/** `name.ext`: a word (with dashes), a dot, a letter, up to 7 letters or digits, a word boundary. */
const FILE_NAME = /([\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})\b/g;

/** File-name-like tokens (`name.ext`, with or without a directory) in a text, lower-cased basenames. */
export function fileNamesIn(text: string): string[] {
  const out = new Set<string>();
  const bounded = text.length > 20_000 ? text.slice(0, 20_000) : text;
  // every match holds a dot and a letter: most requests have none, and the scan is per start position
  if (!/\.[A-Za-z]/.test(bounded)) return [];
  for (const m of bounded.matchAll(FILE_NAME)) out.add(m[1]!.toLowerCase());
  return [...out];
}

/**
 * Importance: edits (log scale), a write, mentions in requests and recency rank. Recency alone
 * would push out the session's central file; counts alone would bury the one worked on now.
 */
function rankFiles(files: readonly FileEntry[]): FileEntry[] {
  const byRecency = [...files].sort((a, b) => b.order - a.order);
  const recencyRank = new Map(byRecency.map((f, i) => [f.path, i]));
  const n = Math.max(1, files.length);
  const score = (f: FileEntry): number =>
    2 * Math.log2(1 + f.edits + f.writes) + (f.writes > 0 ? 1 : 0) + 1.5 * Math.min(f.mentions, 3) + 4 * (1 - (recencyRank.get(f.path) ?? n) / n);
  // a deleted file is no longer part of the working set: after every file still there
  return [...files].sort((a, b) => Number(a.deleted === true) - Number(b.deleted === true) || score(b) - score(a) || b.order - a.order);
}

/** This change's names first, then the earlier ones, deduplicated, at most MAX_NAMES_PER_FILE. */
function mergeNames(latest: readonly string[], earlier: readonly string[]): string[] {
  const out: string[] = [];
  for (const n of [...latest, ...earlier]) {
    if (out.length >= MAX_NAMES_PER_FILE) break;
    if (n && !out.includes(n)) out.push(n);
  }
  return out;
}
