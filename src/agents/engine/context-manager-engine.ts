/**
 * The per-run engine of one session: capture, gauge, the auto-80pct and compaction checkpoints;
 * everything lasting is on disk. Every public method is total: failures are logged once per kind.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type BuildCheckpointParams, buildCheckpointDraft } from "../state/checkpoint-build.js";
import { CheckpointWriter, movedOn } from "../checkpoint/writer.js";
import type { CheckpointDraft, CheckpointTrigger } from "../checkpoint/schema.js";
import { type ContextReading, formatGaugeText, gaugeAction, type GaugeReading, gaugeMessage, readGauge } from "../gauge/context-gauge.js";
import { branchMessagesOf, type CompactionInput } from "./compaction-input.js";
import type { ContextState } from "../state/context-state.js";
import { lastToolCallOf } from "../state/message-rules.js";
import { recordWorkspace } from "../drift/record.js";
import { scheduleArtifactGc } from "../artifacts/gc.js";
import type { ArtifactRef, Checkpoint, ContextBreakdown } from "../checkpoint/schema.js";
import type { SessionStash } from "../artifacts/session-stashes.js";
import { warnSafely } from "../../infra/log-once.js";
import { recordCompactionOutcome } from "./compaction-outcomes.js";
import { RequestLog } from "./request-log.js";
import { sessionAt } from "./cache-budget.js";
import type { ReuseEstimate } from "../prompt-cost/reuse.js";
import { nextSlice } from "../../infra/slice-gate.js";
import { scheduleKnowledge } from "./knowledge-hooks.js";
import { archiveWorker } from "../archive/worker/archive-client.js";
import { EngineState } from "./engine-state.js";
import type { ContextDecision } from "./engine-state.js";

/** Longest stretch of captureInSlices before it lets the event loop run. */
const CAPTURE_SLICE_MS = 8;

/** What a compaction checkpoint adds to the state's draft. */
type DraftExtra = Partial<Pick<BuildCheckpointParams, "fileOps" | "splitTurn" | "compactionCount" | "cwd">>;

export class ContextManagerEngine extends EngineState {
  /** the checkpoint store's warning kinds logged by this engine (pointer and retention: this.log) */
  private readonly storeWarned = new Set<string>();

  /** the last requests prepared, by reference: the context breakdown is computed from them on demand */
  readonly requests = new RequestLog(`${this.runtime.stateDir}\u0000${this.sessionKey}`);

  /** the automatic recall's block as last searched (archive-hooks.ts): searched again when its key changes */
  recall: { key: string; block: AgentMessage | null; tokens: number } | null = null;
  /** appends to the archive by this engine so far: a recall block cached before one is searched again */
  archiveAppends = 0;

  /** Compactions another engine instance of this session counted (OpenClaw 2026.9: one instance per turn). */
  noteCompactionsSoFar(n: number): void {
    if (Number.isSafeInteger(n) && n > this.compactions) this.compactions = n;
  }

  /** The last `count` messages of `history`, captured in slices: a turn's redaction holds up no other chat. */
  async captureInSlices(history: readonly AgentMessage[], count: number): Promise<void> {
    await this.withState("context handler", async (state) => {
      // every slice takes its turn (infra/slice-gate.ts), the first too: concurrent commits interleave
      await nextSlice();
      await this.idle();
      let since = performance.now();
      for (let end = Math.max(1, history.length - count + 1); end < history.length; end++) {
        state.captureMessages(history, end);
        if (performance.now() - since > CAPTURE_SLICE_MS) {
          await nextSlice();
          await this.idle();
          since = performance.now();
        }
      }
    });
  }

  /** `context` event: capture, gauge, the auto checkpoint. `appendGauge` false: the cache policy places the line. */
  async onContext(messages: AgentMessage[], usage: ContextReading | undefined, appendGauge = true): Promise<ContextDecision> {
    const reading = readGauge(usage, messages, this.runtime.contextWindowTokens);
    try {
      await this.idle();
      const state = await this.ensureState();
      if (state) state.captureMessages(messages);
      const action = gaugeAction(reading, this.runtime.config);
      // a compaction is near: its archive append must not wait for the worker's start
      if (action !== "none" && this.runtime.config.archive) archiveWorker().prestart();
      let checkpointWrite: Promise<Checkpoint | null> | undefined;
      if (action === "checkpoint" && state && !this.isDuplicate(reading, state)) checkpointWrite = this.startAutoCheckpoint(state, reading);
      if (state) this.scheduleFlush(state);
      // "Checkpoint saved" on the call that starts the write: on disk before any compaction can run
      const text = formatGaugeText(reading, action, checkpointWrite !== undefined, this.requests.gaugePhrase);
      const appended = text && appendGauge ? [...messages, gaugeMessage(text)] : undefined;
      return { messages: appended, reading, checkpoint: null, gaugeText: text, gaugeAction: action, ...(checkpointWrite ? { checkpointWrite } : {}) };
    } catch (e) {
      this.log.fail("context handler", e);
      return { messages: undefined, reading, checkpoint: null };
    }
  }

  /** The 80% checkpoint off the request path: it starts on the next turn of the event loop. Never rejects. */
  private startAutoCheckpoint(state: ContextState, reading: GaugeReading): Promise<Checkpoint | null> {
    const write = (async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      try {
        return await this.publish(state, await this.draftOf(state, "auto-80pct", reading, {}));
      } catch (e) {
        this.log.fail("checkpoint write", e);
        return null;
      }
    })().finally(() => {
      if (this.pendingWrite === write) this.pendingWrite = null;
    });
    this.pendingWrite = write;
    return write;
  }

  /** In-memory pre-check of the 5% dedup (checkpoint/writer.ts), so calls above 80% cost no disk I/O. */
  private isDuplicate(reading: GaugeReading, state: ContextState): boolean {
    const last = this.previous?.meta.token_usage.input_tokens;
    if (last === undefined) return false;
    const delta = this.runtime.config.dedupDelta;
    return Math.abs(reading.tokens - last) / Math.max(last, 1) < delta && !movedOn(state.capturedTokens, last, delta);
  }

  /** The model's window, told after the engine was made (OpenClaw 2026.9: with the committed turn). */
  setContextWindow(tokens: number): void {
    if (Number.isSafeInteger(tokens) && tokens > 0) this.runtime.contextWindowTokens = tokens;
  }

  /** `tool_result` event: Layer A capture. */
  async onToolResult(
    event: { toolName: string; toolCallId?: string; input: unknown; content: unknown; isError: boolean },
    cwd: string,
  ): Promise<void> {
    await this.withState("tool_result handler", (state) => state.captureToolResult(event, cwd));
  }

  /** The compaction checkpoint on disk before the host summarizes (never deduplicated); null on failure. */
  async onBeforeCompact(event: CompactionInput, cwd: string): Promise<Checkpoint | null> {
    const started = await this.startCompactionCheckpoint(event, cwd);
    const written = started ? await started.durable : null;
    // a checkpoint that did not reach the disk is restored by no block
    if (started && !written) recordCompactionOutcome(this.runtime.stateDir, this.sessionKey, this.identity.sessionId, null);
    return written;
  }

  /**
   * The compaction checkpoint in memory with the id its write takes; `durable` settles once it is on
   * disk and the state reset. It runs as `pendingWrite`: no later capture can be reset by it.
   */
  async startCompactionCheckpoint(event: CompactionInput, cwd: string): Promise<{ checkpoint: Checkpoint; durable: Promise<Checkpoint | null> } | null> {
    await this.idle();
    // pendingWrite from here on (no await in between): no capture can land between the draft's snapshot and the reset
    let settle!: (cp: Checkpoint | null) => void;
    const durable: Promise<Checkpoint | null> = new Promise<Checkpoint | null>((resolve) => (settle = resolve)).finally(() => {
      if (this.pendingWrite === durable) this.pendingWrite = null;
    });
    this.pendingWrite = durable;
    let checkpoint: Checkpoint | null = null;
    try {
      const state = await this.ensureState();
      if (state) {
        const branchMessages = branchMessagesOf(event);
        state.captureMessages(branchMessages);
        const p = event.preparation;
        const window = this.runtime.contextWindowTokens;
        const reading: GaugeReading = { tokens: p.tokensBefore, contextWindow: window, utilization: window > 0 ? p.tokensBefore / window : 0, source: "sdk" };
        const draft = await this.draftOf(state, "compaction", reading, { fileOps: p.fileOps, splitTurn: interruption(branchMessages), compactionCount: this.compactions + 1, cwd });
        const previewed = await this.writerOf().preview(draft);
        checkpoint = previewed;
        void (async () => {
          const written = await this.publish(state, draft);
          await this.flush(state);
          // another process wrote this key meanwhile: the summary names the id it was built with
          if (written && written.meta.checkpoint_id !== previewed.meta.checkpoint_id) {
            this.log.fail("compaction checkpoint id", new Error(`written as ${written.meta.checkpoint_id}, summarized as ${previewed.meta.checkpoint_id}`));
          }
          return written;
        })().then(settle, () => settle(null));
      }
    } catch (e) {
      this.log.fail("compaction checkpoint", e);
    }
    if (!checkpoint) settle(null);
    // the post-compaction restore sends this checkpoint or none (never an older one)
    recordCompactionOutcome(this.runtime.stateDir, this.sessionKey, this.identity.sessionId, checkpoint?.meta.checkpoint_id ?? null);
    return checkpoint ? { checkpoint, durable } : null;
  }

  private writerOf(): CheckpointWriter {
    this.writer ??= new CheckpointWriter(this.storeOpts(), this.sessionKey);
    return this.writer;
  }

  /** The checkpoint draft of the captured state, in memory (a previous session's state bundled first). */
  private async draftOf(state: ContextState, trigger: CheckpointTrigger, reading: GaugeReading, extra: DraftExtra): Promise<CheckpointDraft> {
    if (this.recoveryDue) await this.recoverPrevious();
    return buildCheckpointDraft({
      state: state.snapshot(),
      previous: this.previous ?? null,
      trigger,
      reading,
      identity: this.identity,
      compactionCount: extra.compactionCount ?? this.compactions,
      fileOps: extra.fileOps,
      splitTurn: extra.splitTurn,
      config: this.runtime.config,
      cwd: extra.cwd,
      workspace: (modified) => recordWorkspace(extra.cwd ?? this.identity.cwd, modified),
      artifacts: (files) => checkpointArtifacts(sessionAt(this.runtime.stateDir, this.sessionKey).lasting.stashes, files),
      breakdown: withCacheReuse(this.requests.breakdown({ contextWindow: reading.contextWindow, checkpointThreshold: this.runtime.config.checkpointThreshold }), this.cacheReuse()),
    });
  }

  /** The latest request's cache-reuse estimate under the rules it was prepared for. */
  cacheReuse(): ReuseEstimate | null {
    const rules = sessionAt(this.runtime.stateDir, this.sessionKey).reuseRules();
    return rules ? this.requests.cacheReuse(rules) : null;
  }

  /** Writes the draft durably, then resets what it holds from the state. Null when deduplicated or failed. */
  private async publish(state: ContextState, draft: CheckpointDraft): Promise<Checkpoint | null> {
    try {
      const result = await this.writerOf().write(draft, { delta: this.runtime.config.dedupDelta, capturedTokens: state.capturedTokens });
      this.log.clear(`checkpoint write`);
      this.reportStoreWarnings(result.warnings ?? [], result.written);
      if (!result.written) {
        if (result.latest.meta.session_id === this.identity.sessionId) this.previous = result.latest;
        return null;
      }
      this.previous = result.checkpoint;
      scheduleKnowledge(this.runtime, result.checkpoint); // knowledge layer, in the background
      if (this.runtime.config.offload) void scheduleArtifactGc(this.runtime.stateDir); // retention pruned: artifacts follow (off the LLM path)
      await state.reset();
      return result.checkpoint;
    } catch (e) {
      this.log.fail("checkpoint write", e);
      return null;
    }
  }

  /** A pointer or retention warning logs until a written checkpoint clears it; any other kind once per engine. */
  private reportStoreWarnings(warnings: readonly string[], written: boolean): void {
    for (const kind of ["pointer", "retention"] as const) {
      const w = warnings.find((x) => x.startsWith(kind));
      if (w) this.log.fail(`checkpoint ${kind}`, new Error(w));
      else if (written) this.log.clear(`checkpoint ${kind}`);
    }
    for (const w of warnings) {
      const kind = w.split(":")[0] ?? w;
      if (w.startsWith("pointer") || w.startsWith("retention") || this.storeWarned.has(kind)) continue;
      this.storeWarned.add(kind);
      warnSafely(this.runtime.logger, `[context-manager] checkpoint store: ${w}`);
    }
  }
}

/** Interrupted when the branch's last message is not a finished reply (a cut that splits a turn is not enough). */
export function interruption(branch: readonly AgentMessage[]): NonNullable<BuildCheckpointParams["splitTurn"]> {
  const last = branch[branch.length - 1] as { role?: string; stopReason?: string } | undefined;
  const finished = last?.role === "assistant" && last.stopReason === "stop";
  if (finished || !last) return { isSplitTurn: false, lastToolCall: null };
  return { isSplitTurn: true, lastToolCall: lastToolCallOf(branch) };
}

/** A checkpoint's breakdown with the latest request's estimated cache reuse (`meta.breakdown.cache_reuse`). */
function withCacheReuse(b: ContextBreakdown | null, reuse: ReuseEstimate | null): ContextBreakdown | null {
  if (!b || !reuse || reuse.promptTokens <= 0) return b;
  return { ...b, cache_reuse: { percent: Math.round(reuse.share * 100), prompt_tokens: reuse.promptTokens, cause: reuse.cause, rules: reuse.rules } };
}

/** Stored outputs a checkpoint records (`artifacts`), so its restore block can point at them. */
const CHECKPOINT_MAX_ARTIFACTS = 10;
const norm = (p: string) => p.replace(/^\.\//, "");

/** Outputs of tools aimed at a file the ledger modified, then read, newest first; then the newest others. */
function checkpointArtifacts(sessionStashes: readonly SessionStash[], files: { modified: readonly string[]; read: readonly string[] }): ArtifactRef[] {
  const stashes = [...sessionStashes].reverse(); // newest first
  if (stashes.length === 0) return [];
  const rank = (target: string): number => {
    const t = norm(target);
    if (!t) return 2;
    const hit = (list: readonly string[]) => list.some((f) => norm(f) === t || t.endsWith(`/${norm(f)}`) || norm(f).endsWith(`/${t}`));
    return hit(files.modified) ? 0 : hit(files.read) ? 1 : 2;
  };
  return stashes
    .map((s, i) => ({ s, i, r: rank(s.target) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .slice(0, CHECKPOINT_MAX_ARTIFACTS)
    .map(({ s }) => ({ handle: s.handle, tool: s.tool, target: s.target, ...(s.lines ? { lines: s.lines } : {}), bytes: s.bytes }));
}
