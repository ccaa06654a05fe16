/**
 * Incremental state capture (spec §7, docs/capture-rules.md): `tool_result` and `context` events
 * into small JSON files under `stateSessionDir(stateDir, key)`; a flush rewrites only changed files.
 */
import { OnceLogger, consoleWarnLogger, warnSafely, type WarnLogger } from "../../infra/log-once.js";
import { debugLog } from "../../infra/debug-log.js";
import { stateSessionDir } from "../../infra/session-dir.js";
import { ensurePrivateDir, syncDir } from "../../infra/atomic-file.js";
import { nodeFsOps, type FsOps } from "../../infra/fs-ops.js";
import { safeGist } from "../text/gist.js";
import { GIST, itemKey } from "./capture-rules.js";
import { MessageCapture, type MessageCaptureOptions } from "./message-capture.js";
import { STATE_FILE_NAMES, judgeStateFile, moveAside, readStateEnvelope, writeStateFile } from "./state-files.js";
import { stateFilePath, stateFileText, type StateFileName, type StateFileRead } from "./state-files.js";
import { type CaptureCaps, CapturedState, type ContextStateSnapshot, snapshotOf } from "./captured-state.js";
import { applyStateFile, stateFileData } from "./captured-state.js";
import type { NoteKind } from "./note-tool.js";

interface ContextStateOptions extends MessageCaptureOptions {
  stateDir: string;
  sessionKey: string;
  sessionId: string | null;
  config: CaptureCaps;
  fs?: FsOps;
  /** created_at of the latest checkpoint of this key: state files older than it are stale */
  latestCheckpointAt?: string | null;
  logger?: WarnLogger;
  /** the state files as the previous-session check just read them: judged here, not read again */
  preread?: ReadonlyMap<StateFileName, StateFileRead>;
}

const NOTE_RECORDED = { decision: "Decision", learning: "Learning", open_item: "Open item" };

export class ContextState extends MessageCapture {
  readonly dir: string;
  private readonly fs: FsOps;
  private readonly sink: WarnLogger;
  private flushChain: Promise<void> = Promise.resolve();

  private constructor(protected override readonly opts: ContextStateOptions) {
    super(new CapturedState(opts.config), opts, new OnceLogger(opts.logger ?? consoleWarnLogger));
    this.dir = stateSessionDir(opts.stateDir, opts.sessionKey);
    this.fs = opts.fs ?? nodeFsOps;
    this.sink = opts.logger ?? consoleWarnLogger;
  }

  /** Reloads this session's state; files of another session, already checkpointed or invalid go to stale/. */
  static async load(opts: ContextStateOptions): Promise<ContextState> {
    const st = new ContextState(opts);
    try {
      await ensurePrivateDir(st.dir, st.fs);
    } catch (err) {
      st.log.fail("state directory", err);
      return st;
    }
    const exp = { sessionKey: opts.sessionKey, sessionId: opts.sessionId, latestCheckpointAt: opts.latestCheckpointAt ?? null };
    const movedAside: string[] = [];
    let expectedOnly = true;
    const now = new Date();
    for (const name of STATE_FILE_NAMES) {
      const read = opts.preread?.get(name) ?? (await readStateEnvelope(st.fs, stateFilePath(st.dir, name)));
      const loaded = judgeStateFile(read, exp);
      if (loaded.kind === "missing") continue;
      const reason = loaded.kind === "stale" ? loaded.reason : applyStateFile(st.s, name, loaded.data);
      if (reason === null) continue;
      // a new session's or an already checkpointed state is the normal life of a key, not damage
      const expected = reason.startsWith("another session (") || reason === "older than the latest checkpoint";
      if (loaded.kind !== "stale" || !expected) expectedOnly = false;
      await moveAside(st.fs, st.dir, name, now);
      movedAside.push(`${name}.json (${reason})`);
    }
    if (movedAside.length > 0) {
      const line = `[context-manager] state not merged, moved to ${st.dir}/stale: ${movedAside.join("; ")}`;
      warnSafely(expectedOnly ? { warn: st.sink.debug?.bind(st.sink) ?? ((m) => debugLog(m)) } : st.sink, line);
    }
    return st;
  }

  /** A state from a previous session's held files (previous-session.ts); invalid data left out and named. */
  static fromData(opts: ContextStateOptions, files: Iterable<{ name: StateFileName; data: unknown }>) {
    const state = new ContextState(opts);
    const invalid: string[] = [];
    for (const f of files) {
      const reason = applyStateFile(state.s, f.name, f.data);
      if (reason !== null) invalid.push(`${f.name}.json (${reason})`);
    }
    return { state, invalid };
  }

  get dirty(): boolean {
    return this.s.dirty.size > 0;
  }

  /** Names of the files the next flush will write (tests, diagnostics). */
  get dirtyFileNames(): StateFileName[] {
    return [...this.s.dirty];
  }

  /** Tokens of the messages captured since the latest checkpoint (the auto-80pct dedup). */
  get capturedTokens(): number {
    return this.s.thread.captured_tokens;
  }

  /** Records an agent-provided note. Returns a short confirmation for the tool result. */
  addNote(kind: NoteKind, rawText: string, now: Date = new Date()): string {
    const text = safeGist(rawText, GIST.item);
    if (!text) return "Nothing recorded: empty text.";
    if (kind === "close_item") return this.s.closeByText(text) > 0 ? "Open item closed." : "Marked as closed.";
    if (kind === "decision") this.s.addDecision(text, now.toISOString());
    else if (kind === "learning") this.s.addLearning(text);
    else this.s.openItem(`note\u0000${itemKey(text)}`, text);
    return `${NOTE_RECORDED[kind]} recorded.`;
  }

  snapshot(): ContextStateSnapshot {
    return snapshotOf(this.s);
  }

  /** Writes the changed files (fsync'd when `durable`), serialized; never throws: a failed file stays dirty. */
  flush(opts: { durable?: boolean } = {}): Promise<void> {
    this.flushChain = this.flushChain.then(() => this.flushNow(opts.durable ?? false));
    return this.flushChain;
  }

  private async flushNow(durable: boolean): Promise<void> {
    if (this.s.dirty.size === 0) return;
    const names = [...this.s.dirty];
    this.s.dirty.clear();
    const now = new Date().toISOString();
    const { sessionKey, sessionId } = this.opts;
    // side by side (the flush costs the slowest), each text made when its write starts; not `durable`
    // (a turn's flush): no fsyncs, as spec §7.3 keeps state "best effort" and a torn file is moved aside on load
    const writes: Array<Promise<{ name: StateFileName; error: unknown } | null>> = [];
    for (const name of names) {
      if (writes.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const text = () => stateFileText(sessionKey, sessionId, now, stateFileData(this.s, name));
      const write = (async () => writeStateFile(this.fs, this.dir, name, text(), durable))();
      writes.push(write.then(() => null, (error: unknown) => ({ name, error })));
    }
    const failed = (await Promise.all(writes)).filter((f) => f !== null);
    if (durable && failed.length < names.length) await syncDir(this.dir, this.fs);
    for (const { name } of failed) this.s.dirty.add(name);
    if (failed.length > 0) this.log.fail("state write", failed[0]!.error);
    else this.log.clear("state write");
  }

  /** After a checkpoint is written: clears what it now holds and flushes every file. */
  async reset(): Promise<void> {
    this.s.clearCheckpointed();
    for (const name of STATE_FILE_NAMES) this.s.mark(name);
    await this.flush({ durable: true });
  }
}
