/**
 * Incremental state capture (spec §7, docs/capture-rules.md): `tool_result` and `context` events
 * into small JSON files under `stateSessionDir(stateDir, key)`; a flush rewrites only changed files.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { OnceLogger, consoleWarnLogger, warnSafely, type WarnLogger } from "../../infra/log-once.js";
import { debugLog } from "../../infra/debug-log.js";
import { stateSessionDir } from "../../infra/session-dir.js";
import { ensurePrivateDir } from "../../infra/atomic-file.js";
import { nodeFsOps, type FsOps } from "../../infra/fs-ops.js";
import { safeGist } from "../text/gist.js";
import { GIST, itemKey } from "./message-rules.js";
import { captureToolResult, type ToolResultEventLike } from "./tool-result-capture.js";
import { MessageCapture, type MessageCaptureOptions } from "./message-capture.js";
import { STATE_FILE_NAMES, judgeStateFile, moveAside, readStateEnvelope } from "./state-files.js";
import { stateFilePath, stateFileText, writeStateFiles, type StateFileName, type StateFileRead } from "./state-files.js";
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

export class ContextState {
  readonly dir: string;
  private readonly fs: FsOps;
  private readonly sink: WarnLogger;
  private readonly log: OnceLogger;
  private flushChain: Promise<void> = Promise.resolve();
  /** the accumulators and the files changed since the last flush */
  private readonly acc: CapturedState;
  private readonly messages: MessageCapture;

  private constructor(private readonly opts: ContextStateOptions) {
    this.dir = stateSessionDir(opts.stateDir, opts.sessionKey);
    this.fs = opts.fs ?? nodeFsOps;
    this.sink = opts.logger ?? consoleWarnLogger;
    this.log = new OnceLogger(this.sink);
    this.acc = new CapturedState(opts.config);
    this.messages = new MessageCapture(this.acc, opts, this.log);
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
      const reason = loaded.kind === "stale" ? loaded.reason : applyStateFile(st.acc, name, loaded.data);
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
      const reason = applyStateFile(state.acc, f.name, f.data);
      if (reason !== null) invalid.push(`${f.name}.json (${reason})`);
    }
    return { state, invalid };
  }

  /** Some file has changes not yet flushed. */
  get dirty(): boolean {
    return this.acc.dirty.size > 0;
  }

  /** Names of the files the next flush will write (tests, diagnostics). */
  get dirtyFileNames(): StateFileName[] {
    return [...this.acc.dirty];
  }

  captureToolResult(ev: ToolResultEventLike, cwd: string, now: Date = new Date()): void {
    captureToolResult(this.acc, ev, cwd, now);
  }

  captureMessages(messages: readonly AgentMessage[], end = messages.length): void {
    this.messages.captureMessages(messages, end);
  }

  /** Tokens of the messages captured since the latest checkpoint (the auto-80pct dedup). */
  get capturedTokens(): number {
    return this.acc.thread.captured_tokens;
  }

  /** Records an agent-provided note. Returns a short confirmation for the tool result. */
  addNote(kind: NoteKind, rawText: string, now: Date = new Date()): string {
    const text = safeGist(rawText, GIST.item);
    if (!text) return "Nothing recorded: empty text.";
    if (kind === "close_item") return this.acc.closeByText(text) > 0 ? "Open item closed." : "Marked as closed.";
    if (kind === "decision") this.acc.addDecision(text, now.toISOString());
    else if (kind === "learning") this.acc.addLearning(text);
    else this.acc.openItem(`note\u0000${itemKey(text)}`, text);
    return `${NOTE_RECORDED[kind]} recorded.`;
  }

  snapshot(): ContextStateSnapshot {
    return snapshotOf(this.acc, this.opts.sessionKey, this.opts.sessionId);
  }

  /** Writes the changed files (fsync'd when `durable`), serialized; never throws: a failed file stays dirty. */
  flush(opts: { durable?: boolean } = {}): Promise<void> {
    this.flushChain = this.flushChain.then(() => this.flushNow(opts.durable ?? false));
    return this.flushChain;
  }

  private async flushNow(durable: boolean): Promise<void> {
    if (this.acc.dirty.size === 0) return;
    const names = [...this.acc.dirty];
    this.acc.dirty.clear();
    const now = new Date().toISOString();
    const { sessionKey, sessionId } = this.opts;
    const files = names.map((name) => ({ name, text: () => stateFileText(sessionKey, sessionId, now, stateFileData(this.acc, name)) }));
    const failed = await writeStateFiles(this.fs, this.dir, files, { durable });
    for (const { name } of failed) this.acc.dirty.add(name);
    if (failed.length > 0) this.log.fail("state write", failed[0]!.error);
    else this.log.clear("state write");
  }

  /** After a checkpoint is written: clears what it now holds and flushes every file. */
  async reset(): Promise<void> {
    this.acc.clearCheckpointed();
    for (const name of STATE_FILE_NAMES) this.acc.mark(name);
    await this.flush({ durable: true });
  }
}
