/**
 * Incremental state capture (spec §7): the rules that turn the extension's `tool_result`
 * (Layer A) and `context` (Layer B) events into state, and its load/flush as small JSON
 * files (STATE_FILE_NAMES) under `stateSessionDir(stateDir, key)`. The accumulators are
 * captured-state.ts, the snapshot state-snapshot.ts, each file's data
 * state-codec.ts.
 *
 * Hot path model: `captureMessages` only looks at messages it has not seen (cursor:
 * index + identity + timestamp of the last seen message), every collection is a Map
 * with O(1) dedup and oldest-first eviction, and `flush` rewrites only the files that
 * changed, atomically. Rules are documented in docs/capture-rules.md.
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
import type { ToolResultEventLike } from "./tool-result-rules.js";
import { captureToolResult } from "./tool-result-capture.js";
import { MessageCapture } from "./message-capture.js";
import { CaptureTarget } from "./capture-target.js";
import { STATE_FILE_NAMES, isExpectedStaleReason, judgeStateFile, moveAside, readStateFile, stateFileText, writeStateFiles, type StateFileName, type StateFileRead } from "./state-files.js";
import type { CaptureCaps } from "./captured-state.js";
import { snapshotOf, type ContextStateSnapshot } from "./state-snapshot.js";
import { applyStateFile, stateFileData } from "./state-codec.js";
import type { NoteKind } from "./note-tool.js";
export interface ContextStateOptions {
  stateDir: string;
  sessionKey: string;
  sessionId: string | null;
  config: CaptureCaps;
  fs?: FsOps;
  /** created_at of the latest checkpoint of this key: state files older than it are stale */
  latestCheckpointAt?: string | null;
  /** ms time of THIS session's latest checkpoint: without a saved cursor, capture starts after it */
  coveredUntil?: number | null;
  logger?: WarnLogger;
  /**
   * The host sends no `tool_result` events (OpenClaw's context-engine plugin): tool results are
   * captured from the toolResult messages, paths resolved against this cwd.
   */
  toolResultsFromMessages?: { cwd: string };
  /**
   * The state files as the previous-session check read them just before (recover-previous-
   * session.ts), judged here for this session instead of read a second time.
   */
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

  private get acc() {
    return this.target.acc;
  }

  private get dirtyFiles(): Set<StateFileName> {
    return this.target.dirtyFiles;
  }

  /**
   * Creates the state directory and reloads what an earlier process of the SAME session
   * captured. Files of another session id, older than `latestCheckpointAt`, unreadable or
   * invalid are moved to `<dir>/stale/` (never merged) and logged in one line.
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
      const loaded = pre ? judgeStateFile(pre, exp) : await readStateFile(st.fs, st.dir, name, exp);
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

  /**
   * A state built from state-file data read elsewhere (a previous session's held files,
   * state/previous-session.ts): nothing is read or written here. Invalid data of a file is
   * left out and named in `invalid`.
   */
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

  /** Some file has changes not yet flushed. */
  get dirty(): boolean {
    return this.dirtyFiles.size > 0;
  }

  /** Names of the files the next flush will write (tests, diagnostics). */
  get dirtyFileNames(): StateFileName[] {
    return [...this.dirtyFiles];
  }

  // ------------------------------------------------------------ Layer A

  /**
   * Layer A: tool, file access, failure (history in thread.errors), and the work ledger:
   * file changes with their gist, command outcomes, the failure lifecycle. A grep/rg that
   * only found nothing is a command run, not a failure.
   */
  captureToolResult(ev: ToolResultEventLike, cwd: string, now: Date = new Date()): void {
    captureToolResult(this.target, ev, cwd, now);
  }

  // ------------------------------------------------------------ Layer B

  /**
   * Called with the whole (cloned) message array on each context event. Only messages
   * after the last seen one are processed: O(new messages), also after a compaction
   * replaced the array and after a restart (the cursor is persisted in thread.json).
   * `end`: capture the array's first `end` messages as if they were the whole array (a history
   * captured a message at a time, engine captureInSlices, without a copy of it per message).
   */
  captureMessages(messages: readonly AgentMessage[], end = messages.length): void {
    this.messages.captureMessages(messages, end);
  }

  /** Tokens of the messages captured since the latest checkpoint (the auto-80pct dedup). */
  get capturedTokens(): number {
    return this.acc.thread.captured_tokens;
  }

  // ------------------------------------------------------------ notes (context_note tool)

  /** Records an agent-provided note. Returns a short confirmation for the tool result. */
  addNote(kind: NoteKind, rawText: string, now: Date = new Date()): string {
    const text = safeGist(rawText, GIST.item);
    if (!text) return "Nothing recorded: empty text.";
    switch (kind) {
      case "decision":
        this.acc.addDecision(text, now.toISOString());
        this.mark("decisions");
        return "Decision recorded.";
      case "learning":
        this.acc.addLearning(text);
        this.mark("learnings");
        return "Learning recorded.";
      case "open_item":
        this.openItem(`note\u0000${itemKey(text)}`, text);
        return "Open item recorded.";
      case "close_item": {
        const closed = this.acc.items.closeByText(text);
        // also closes the same item carried forward from an earlier checkpoint
        if (closed === 0) this.acc.items.markClosed(text);
        this.mark("open_items");
        return closed > 0 ? "Open item closed." : "Marked as closed.";
      }
    }
  }

  private openItem(key: string, text: string): void {
    this.target.openItem(key, text);
  }

  private mark(name: StateFileName): void {
    this.target.mark(name);
  }

  // ------------------------------------------------------------ snapshot

  snapshot(): ContextStateSnapshot {
    return snapshotOf(this.acc, this.opts.sessionKey, this.opts.sessionId);
  }

  // ------------------------------------------------------------ persistence

  /**
   * Writes the changed files (each atomically; fsync'd only when `durable`: a turn's flush is
   * not, the reset after a checkpoint is, state/state-files.ts says why). Never throws: a
   * failure is logged once and the files stay dirty for the next flush. Calls are serialized.
   */
  flush(opts: { durable?: boolean } = {}): Promise<void> {
    this.flushChain = this.flushChain.then(() => this.flushNow(opts.durable ?? false));
    return this.flushChain;
  }

  private async flushNow(durable: boolean): Promise<void> {
    if (this.dirtyFiles.size === 0) return;
    const names = [...this.dirtyFiles];
    this.dirtyFiles.clear();
    const now = new Date().toISOString();
    const files = names.map((name) => ({ name, text: () => stateFileText(this.opts.sessionKey, this.opts.sessionId, now, stateFileData(this.acc, name)) }));
    // side by side (the directory fsync'd once when durable): the flush costs the slowest file, not the sum
    const failed = await writeStateFiles(this.fs, this.dir, files, { durable });
    for (const { name } of failed) this.dirtyFiles.add(name);
    if (failed.length > 0) this.log.fail("state write", failed[0]!.error);
    else this.log.clear("state write");
  }

  /**
   * After a checkpoint is written: clears what the checkpoint now holds
   * (CapturedState.clearCheckpointed) and flushes every file.
   */
  async reset(): Promise<void> {
    this.acc.clearCheckpointed();
    for (const name of STATE_FILE_NAMES) this.mark(name);
    await this.flush({ durable: true });
  }
}
