/** Shared helpers of the hardening tests: a switchable faulty FsOps, engines on temp dirs, file walks. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";
import { backgroundWritesSettled } from "../../src/agents/engine/archive-hooks.js";
import { ContextManagerEngine } from "../../src/agents/engine/context-manager-engine.js";
import type { ContextManagerRuntimeValue } from "../../src/agents/pi-extensions/context-manager-session.js";
import { nodeFsOps, type FsOps } from "../../src/infra/fs-ops.js";

export type FaultCode = "ENOSPC" | "EACCES" | "EIO" | "EPERM" | "EBUSY" | "EROFS";

export interface FaultyFs extends FsOps {
  /** the error every write-side call throws now (null: pass through) */
  fault: FaultCode | null;
  /** also fail reads (readFile/readdir/stat), as on a dying disk */
  failReads: boolean;
  /** calls that threw, per method */
  failures: Record<string, number>;
}

export function fsError(code: string, op: string, path: string): NodeJS.ErrnoException {
  const e = new Error(`${code}: simulated fault, ${op} '${path}'`) as NodeJS.ErrnoException;
  e.code = code;
  e.syscall = op;
  e.path = path;
  return e;
}

/** Wraps nodeFsOps; while `fault` is set every write-side call throws it. */
export function faultyFs(base: FsOps = nodeFsOps): FaultyFs {
  const f: FaultyFs = {
    fault: null,
    failReads: false,
    failures: {},
    mkdir: (p, o) => guard("mkdir", p, () => base.mkdir(p, o)),
    open: (p, flags, mode) => (flags === "r" ? guardRead("open", p, () => base.open(p, flags, mode)) : guard("open", p, () => base.open(p, flags, mode))),
    writeFile: (p, d, o) => guard("writeFile", p, () => base.writeFile(p, d, o)),
    readFile: (p, e) => guardRead("readFile", p, () => base.readFile(p, e)),
    rename: (a, b) => guard("rename", b, () => base.rename(a, b)),
    link: (a, b) => guard("link", b, () => base.link(a, b)),
    unlink: (p) => guard("unlink", p, () => base.unlink(p)),
    readdir: (p) => guardRead("readdir", p, () => base.readdir(p)),
    stat: (p) => guardRead("stat", p, () => base.stat(p)),
    chmod: (p, m) => guard("chmod", p, () => base.chmod(p, m)),
    rm: (p, o) => guard("rm", p, () => base.rm(p, o)),
  };
  function guard<T>(op: string, p: string, run: () => Promise<T>): Promise<T> {
    if (f.fault) {
      f.failures[op] = (f.failures[op] ?? 0) + 1;
      return Promise.reject(fsError(f.fault, op, p));
    }
    return run();
  }
  function guardRead<T>(op: string, p: string, run: () => Promise<T>): Promise<T> {
    return f.failReads ? guard(op, p, run) : run();
  }
  return f;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Removal of a test's state dir; a background write the test did not await (an archive or knowledge append) is retried past. */
export function rmDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
}

/**
 * Removes (and empties) `dirs` after the background writes a test did not await (compacted spans,
 * knowledge records) have settled: a removal racing one failed with ENOTEMPTY on a loaded machine,
 * past rmDir's retries.
 */
export async function removeDirs(dirs: string[]): Promise<void> {
  await backgroundWritesSettled();
  for (const d of dirs.splice(0)) rmDir(d);
}

export interface TestEngine {
  engine: ContextManagerEngine;
  warnings: string[];
  stateDir: string;
}

export function makeEngine(opts: {
  stateDir: string;
  fs?: FsOps;
  sessionKey?: string;
  sessionId?: string;
  window?: number;
  config?: Record<string, unknown>;
}): TestEngine {
  const warnings: string[] = [];
  const runtime: ContextManagerRuntimeValue = {
    sessionKey: opts.sessionKey ?? "agent:main:test:direct:1",
    contextWindowTokens: opts.window ?? 100_000,
    stateDir: opts.stateDir,
    config: resolveContextManagerConfig(opts.config ?? {}),
    agentId: "main",
    channel: "test",
    hostInjectsRestore: true,
    logger: { warn: (m) => warnings.push(m) },
    fs: opts.fs,
  };
  const engine = new ContextManagerEngine(runtime, { sessionId: opts.sessionId ?? "sess-1", sessionFile: null, compactionsSoFar: 0 });
  return { engine, warnings, stateDir: opts.stateDir };
}

let clock = Date.UTC(2026, 0, 1);
/** Strictly increasing timestamps, so every message has its own identity. */
export function nextTs(): number {
  clock += 1000;
  return clock;
}

export function userMsg(text: unknown): AgentMessage {
  return { role: "user", content: text, timestamp: nextTs() } as AgentMessage;
}

export function assistantMsg(content: unknown, extra: Record<string, unknown> = {}): AgentMessage {
  return {
    role: "assistant",
    content,
    api: "faux",
    provider: "faux",
    model: "faux",
    usage: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: nextTs(),
    ...extra,
  } as AgentMessage;
}

export function toolCallMsg(id: string, name: string, args: unknown): AgentMessage {
  return assistantMsg([{ type: "toolCall", id, name, arguments: args }], { stopReason: "toolUse" });
}

export function toolResultMsg(id: string, name: string, text: unknown, isError = false): AgentMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: name,
    content: [{ type: "text", text }],
    isError,
    timestamp: nextTs(),
  } as AgentMessage;
}

/** usage at `fraction` of `window` (>= 0.8 triggers the auto checkpoint) */
export function usageAt(fraction: number, window = 100_000) {
  return { tokens: Math.round(fraction * window), contextWindow: window, percent: fraction * 100 };
}

/** A minimal session_before_compact event the engine accepts. */
export function compactEvent(tokensBefore: number, extra: { turnPrefixMessages?: AgentMessage[]; messages?: AgentMessage[] } = {}): SessionBeforeCompactEvent {
  return {
    type: "session_before_compact",
    preparation: {
      firstKeptEntryId: "x",
      messagesToSummarize: [],
      turnPrefixMessages: extra.turnPrefixMessages ?? [],
      isSplitTurn: (extra.turnPrefixMessages?.length ?? 0) > 0,
      tokensBefore,
      previousSummary: undefined,
      fileOps: { read: new Set<string>(), written: new Set<string>(), edited: new Set<string>() },
      settings: { enabled: true, reserveTokens: 1000, keepRecentTokens: 1000 },
    },
    branchEntries: (extra.messages ?? []).map((message, i) => ({ type: "message", id: `e${i}`, parentId: null, timestamp: "", message })),
    customInstructions: undefined,
    signal: new AbortController().signal,
  } as unknown as SessionBeforeCompactEvent;
}

/** Every regular file under `dir`, recursively: [path, contents]. */
export function readAllFiles(dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push([p, readFileSync(p, "utf8")]);
    }
  };
  walk(dir);
  return out;
}

/** Runs `fn` and returns its duration in ms. */
export async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/**
 * Real files, but fsync is a no-op: for soak/bounds tests that measure this package's CPU
 * and memory, not the disk's flush latency (every atomic write fsyncs file and directory).
 */
export function noSyncFs(base: FsOps = nodeFsOps): FsOps {
  return {
    ...base,
    open: async (p, flags, mode) => {
      const fh = await base.open(p, flags, mode);
      return { writeFile: (d) => fh.writeFile(d), sync: async () => undefined, close: () => fh.close() };
    },
  };
}

/**
 * An in-memory FsOps (files and directories in Maps): for the 10,000-turn soak, which measures
 * heap and CPU of this package; one real atomic write costs ~2 ms of syscalls per context event.
 */
export function memFs(): FsOps & { files: Map<string, string> } {
  const files = new Map<string, string>();
  const dirs = new Set<string>(["/"]);
  const enoent = (op: string, p: string) => fsError("ENOENT", op, p);
  const parent = (p: string) => p.slice(0, Math.max(1, p.lastIndexOf("/")));
  const mk = (p: string) => {
    for (let d = p; d.length > 1 && !dirs.has(d); d = parent(d)) dirs.add(d);
  };
  const fs: FsOps & { files: Map<string, string> } = {
    files,
    mkdir: async (p) => (mk(p), undefined),
    open: async (p, flags) => {
      if (flags === "r") return { writeFile: async () => undefined, sync: async () => undefined, close: async () => undefined };
      if (!dirs.has(parent(p))) throw enoent("open", p);
      if (flags.includes("x") && files.has(p)) throw fsError("EEXIST", "open", p);
      files.set(p, "");
      return { writeFile: async (d) => void files.set(p, String(d)), sync: async () => undefined, close: async () => undefined };
    },
    writeFile: async (p, d) => {
      if (!dirs.has(parent(p))) throw enoent("writeFile", p);
      files.set(p, d);
    },
    readFile: async (p) => {
      const v = files.get(p);
      if (v === undefined) throw enoent("readFile", p);
      return v;
    },
    rename: async (a, b) => {
      const v = files.get(a);
      if (v === undefined) throw enoent("rename", a);
      files.delete(a);
      files.set(b, v);
    },
    link: async (a, b) => {
      const v = files.get(a);
      if (v === undefined) throw enoent("link", a);
      if (files.has(b)) throw fsError("EEXIST", "link", b);
      files.set(b, v);
    },
    unlink: async (p) => {
      if (!files.delete(p)) throw enoent("unlink", p);
    },
    readdir: async (p) => {
      if (!dirs.has(p)) throw enoent("readdir", p);
      const out = new Set<string>();
      for (const k of [...files.keys(), ...dirs]) if (parent(k) === p && k !== p) out.add(k.slice(p.length + 1));
      return [...out];
    },
    stat: async (p) => {
      const v = files.get(p);
      if (v === undefined && !dirs.has(p)) throw enoent("stat", p);
      return { size: v?.length ?? 0, mtimeMs: 0, isFile: () => v !== undefined, isDirectory: () => v === undefined };
    },
    chmod: async () => undefined,
    rm: async (p) => {
      for (const k of [...files.keys()]) if (k === p || k.startsWith(`${p}/`)) files.delete(k);
      for (const d of [...dirs]) if (d === p || d.startsWith(`${p}/`)) dirs.delete(d);
    },
  };
  return fs;
}
