/**
 * Incremental state capture (spec §7, docs/capture-rules.md): `tool_result` (Layer A) and
 * `context` (Layer B) events into state, loaded and flushed as small JSON files under
 * `stateSessionDir(stateDir, key)`. A flush rewrites only the files that changed.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { OnceLogger, consoleWarnLogger, type WarnLogger } from "../../infra/log-once.js";
import { debugLog } from "../../infra/debug-log.js";
import { stateSessionDir } from "../../infra/session-dir.js";
import { ensurePrivateDir } from "../../infra/atomic-file.js";
import { nodeFsOps, type FsOps } from "../../infra/fs-ops.js";
import { safeGist } from "../text/safe-gist.js";
import { GIST } from "./capture-sizes.js";
import { itemKey } from "./message-rules.js";
import { captureToolResult, type ToolResultEventLike } from "./tool-result-capture.js";
import { MessageCapture, type MessageCaptureOptions } from "./message-capture.js";
import { CaptureTarget } from "./capture-target.js";
import { STATE_FILE_NAMES, isExpectedStaleReason, judgeStateFile, moveAside, readStateFileAt } from "./state-files.js";
import { stateFilePath, stateFileText, writeStateFiles, type StateFileName, type StateFileRead } from "./state-files.js";
import { type CaptureCaps, type ContextStateSnapshot, applyStateFile, snapshotOf, stateFileData } from "./captured-state.js";
import type { NoteKind } from "./note-tool.js";

export interface ContextStateOptions extends MessageCaptureOptions {
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

export class ContextState {
  readonly dir: string;
  private readonly fs: FsOps;
  private readonly log: OnceLogger;
  private flushChain: Promise<void> = Promise.resolve();
  /** the accumulators, the deferred gists and the files changed since the last flush */
  private readonly target: CaptureTarget;
  private readonly messages: MessageCapture;

  private constructor(
    private readonly opts: ContextStateOptions,
    private readonly sink: WarnLogger,
  ) {
    this.dir = stateSessionDir(opts.stateDir, opts.sessionKey);
    this.fs = opts.fs ?? nodeFsOps;
    this.log = new OnceLogger(sink);
    this.target = new CaptureTarget(opts.config, this.log);
    this.messages = new MessageCapture(this.target, opts);
  }

  /**
   * Reloads what an earlier process of the SAME session captured; files of another session,
   * already checkpointed or invalid go to `<dir>/stale/` (never merged), logged in one line.
   */
  static async load(opts: ContextStateOptions): Promise<ContextState> {
    const st = new ContextState(opts, opts.logger ?? consoleWarnLogger);
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
      const pre = opts.preread?.get(name);
      const loaded = pre ? judgeStateFile(pre, exp) : await readStateFileAt(st.fs, stateFilePath(st.dir, name), exp);
      if (loaded.kind === "missing") continue;
      const reason = loaded.kind === "stale" ? loaded.reason : applyStateFile(st.acc, name, loaded.data);
      if (reason !== null) {
        if (loaded.kind !== "stale" || !isExpectedStaleReason(reason)) expectedOnly = false;
        await moveAside(st.fs, st.dir, name, now);
        movedAside.push(`${name}.json (${reason})`);
      }
    }
    if (movedAside.length > 0) {
      try {
        const line = `[context-manager] state not merged, moved to ${st.dir}/stale: ${movedAside.join("; ")}`;
        // an earlier session's (or an already checkpointed) state is the normal path of a new session: debug level
        if (expectedOnly) (st.sink.debug ?? ((m: string) => debugLog(m)))(line);
        else st.sink.warn(line);
      } catch {
        // a broken logger must not break loading
      }
    }
    return st;
  }

  /** A state from a previous session's held files (previous-session.ts); invalid data left out and named. */
  static fromData(
    opts: ContextStateOptions,
    files: Iterable<{ name: StateFileName; data: unknown }>,
  ): { state: ContextState; invalid: string[] } {
    const st = new ContextState(opts, opts.logger ?? consoleWarnLogger);
    const invalid: string[] = [];
    for (const f of files) {
      const reason = applyStateFile(st.acc, f.name, f.data);
      if (reason !== null) invalid.push(`${f.name}.json (${reason})`);
    }
    return { state: st, invalid };
  }

  private get acc() {
    return this.target.acc;
  }

  /** Some file has changes not yet flushed. */
  get dirty(): boolean {
    return this.target.dirtyFiles.size > 0;
  }

  /** Names of the files the next flush will write (tests, diagnostics). */
  get dirtyFileNames(): StateFileName[] {
    return [...this.target.dirtyFiles];
  }

  /** Layer A (tool-result-capture.ts). */
  captureToolResult(ev: ToolResultEventLike, cwd: string, now: Date = new Date()): void {
    captureToolResult(this.target, ev, cwd, now);
  }

  /** Layer B: the messages not seen yet (message-capture.ts). */
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
    switch (kind) {
      case "decision":
        this.acc.addDecision(text, now.toISOString());
        this.target.mark("decisions");
        return "Decision recorded.";
      case "learning":
        this.acc.addLearning(text);
        this.target.mark("learnings");
        return "Learning recorded.";
      case "open_item":
        this.target.openItem(`note\u0000${itemKey(text)}`, text);
        return "Open item recorded.";
      case "close_item": {
        const closed = this.acc.items.closeByText(text);
        // also closes the same item carried forward from an earlier checkpoint
        if (closed === 0) this.acc.items.markClosed(text);
        this.target.mark("open_items");
        return closed > 0 ? "Open item closed." : "Marked as closed.";
      }
    }
  }

  snapshot(): ContextStateSnapshot {
    return snapshotOf(this.acc, this.opts.sessionKey, this.opts.sessionId);
  }

  /**
   * Writes the changed files, fsync'd only when `durable` (the reset after a checkpoint; state-files.ts
   * says why). Never throws: a failure is logged once and the files stay dirty. Calls are serialized.
   */
  flush(opts: { durable?: boolean } = {}): Promise<void> {
    this.flushChain = this.flushChain.then(() => this.flushNow(opts.durable ?? false));
    return this.flushChain;
  }

  private async flushNow(durable: boolean): Promise<void> {
    if (this.target.dirtyFiles.size === 0) return;
    const names = [...this.target.dirtyFiles];
    this.target.dirtyFiles.clear();
    const now = new Date().toISOString();
    const { sessionKey, sessionId } = this.opts;
    const files = names.map((name) => ({ name, text: () => stateFileText(sessionKey, sessionId, now, stateFileData(this.acc, name)) }));
    // side by side (the directory fsync'd once when durable): the flush costs the slowest file, not the sum
    const failed = await writeStateFiles(this.fs, this.dir, files, { durable });
    for (const { name } of failed) this.target.dirtyFiles.add(name);
    if (failed.length > 0) this.log.fail("state write", failed[0]!.error);
    else this.log.clear("state write");
  }

  /** After a checkpoint is written: clears what it now holds and flushes every file. */
  async reset(): Promise<void> {
    this.acc.clearCheckpointed();
    for (const name of STATE_FILE_NAMES) this.target.mark(name);
    await this.flush({ durable: true });
  }
}
