/**
 * The engine's checkpoints: the auto-80pct one off the request path, the compaction one before the host
 * summarizes; each drafted from the captured state, written durably, then the state reset. Never throw.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type BuildCheckpointParams, buildCheckpointDraft } from "../state/checkpoint-build.js";
import { CheckpointWriter, movedOn } from "../checkpoint/writer.js";
import type { ArtifactRef, Checkpoint, CheckpointDraft, CheckpointTrigger } from "../checkpoint/schema.js";
import type { GaugeReading } from "../gauge/context-gauge.js";
import type { ContextState } from "../state/context-state.js";
import { lastToolCallOf } from "../state/capture-rules.js";
import { recordWorkspace } from "../drift/record.js";
import { scheduleArtifactGc } from "../artifacts/gc.js";
import type { SessionStash } from "../artifacts/session-stashes.js";
import { warnSafely } from "../../infra/log-once.js";
import { type CompactionInput, recordCompactionOutcome } from "./compaction.js";
import { sessionAt } from "./cache-budget.js";
import { scheduleKnowledge } from "./archive-hooks.js";
import type { EngineCore } from "./runtime.js";

/** What a compaction checkpoint adds to the state's draft. */
type DraftExtra = Partial<Pick<BuildCheckpointParams, "fileOps" | "splitTurn" | "compactionCount" | "cwd">>;

/** `write` as the engine's background write: captures wait for it (idle) until it settles. */
function asPendingWrite(e: EngineCore, write: Promise<Checkpoint | null>): Promise<Checkpoint | null> {
  const pending = write.finally(() => {
    if (e.pendingWrite === pending) e.pendingWrite = null;
  });
  e.pendingWrite = pending;
  return pending;
}

/** The 80% checkpoint off the request path: it starts on the next turn of the event loop. Never rejects. */
export function startAutoCheckpoint(e: EngineCore, state: ContextState, reading: GaugeReading): Promise<Checkpoint | null> {
  const write = new Promise<void>((resolve) => setImmediate(resolve))
    .then(async () => publish(e, state, await draftOf(e, state, "auto-80pct", reading, {})))
    .catch((err: unknown) => {
      e.log.fail("checkpoint write", err);
      return null;
    });
  return asPendingWrite(e, write);
}

/** In-memory pre-check of the 5% dedup (checkpoint/writer.ts), so calls above 80% cost no disk I/O. */
export function isDuplicate(e: EngineCore, reading: GaugeReading, state: ContextState): boolean {
  const last = e.previous?.meta.token_usage.input_tokens;
  if (last === undefined) return false;
  const delta = e.runtime.config.dedupDelta;
  return Math.abs(reading.tokens - last) / Math.max(last, 1) < delta && !movedOn(state.capturedTokens, last, delta);
}

/**
 * The compaction checkpoint in memory with the id its write takes; `durable` settles once it is on
 * disk and the state reset. It runs as `pendingWrite`: no later capture can be reset by it.
 */
export async function startCompactionCheckpoint(
  e: EngineCore,
  event: CompactionInput,
  cwd: string,
): Promise<{ checkpoint: Checkpoint; durable: Promise<Checkpoint | null> } | null> {
  await e.idle();
  // pendingWrite from here on (no await in between): no capture can land between the draft's snapshot and the reset
  let settle!: (cp: Checkpoint | null) => void;
  const durable = asPendingWrite(e, new Promise<Checkpoint | null>((resolve) => (settle = resolve)));
  let checkpoint: Checkpoint | null = null;
  try {
    const state = await e.ensureState();
    if (state) {
      const entries = event.branchEntries.filter((b) => b.type === "message" && b.message);
      const branchMessages = entries.map((b) => b.message as AgentMessage);
      state.captureMessages(branchMessages);
      const p = event.preparation;
      const window = e.runtime.contextWindowTokens;
      const reading: GaugeReading = { tokens: p.tokensBefore, contextWindow: window, utilization: window > 0 ? p.tokensBefore / window : 0, source: "sdk" };
      const draft = await draftOf(e, state, "compaction", reading, { fileOps: p.fileOps, splitTurn: interruption(branchMessages), compactionCount: e.compactions + 1, cwd });
      const previewed = await writerOf(e).preview(draft);
      checkpoint = previewed;
      void (async () => {
        const written = await publish(e, state, draft);
        await e.writeState(state);
        // another process wrote this key meanwhile: the summary names the id it was built with
        if (written && written.meta.checkpoint_id !== previewed.meta.checkpoint_id) {
          e.log.fail("compaction checkpoint id", new Error(`written as ${written.meta.checkpoint_id}, summarized as ${previewed.meta.checkpoint_id}`));
        }
        return written;
      })().then(settle, () => settle(null));
    }
  } catch (err) {
    e.log.fail("compaction checkpoint", err);
  }
  if (!checkpoint) settle(null);
  // the post-compaction restore sends this checkpoint or none (never an older one)
  recordCompactionOutcome(e.runtime.stateDir, e.sessionKey, e.identity.sessionId, checkpoint?.meta.checkpoint_id ?? null);
  return checkpoint ? { checkpoint, durable } : null;
}

function writerOf(e: EngineCore): CheckpointWriter {
  return (e.writer ??= new CheckpointWriter(e.storeOpts(), e.sessionKey));
}

/** The checkpoint draft of the captured state, in memory (a previous session's state bundled first). */
async function draftOf(e: EngineCore, state: ContextState, trigger: CheckpointTrigger, reading: GaugeReading, extra: DraftExtra): Promise<CheckpointDraft> {
  if (e.recoveryDue) await e.recoverPrevious();
  const { runtime } = e;
  const settings = { contextWindow: reading.contextWindow, checkpointThreshold: runtime.config.checkpointThreshold };
  // the latest request's estimated cache reuse (`meta.breakdown.cache_reuse`)
  const b = e.requests.breakdown(settings);
  const reuse = e.cacheReuse();
  const breakdown = !b || !reuse || reuse.promptTokens <= 0 ? b
    : { ...b, cache_reuse: { percent: Math.round(reuse.share * 100), prompt_tokens: reuse.promptTokens, cause: reuse.cause, rules: reuse.rules } };
  return buildCheckpointDraft({
    state: state.snapshot(),
    previous: e.previous ?? null,
    trigger,
    reading,
    identity: e.identity,
    compactionCount: extra.compactionCount ?? e.compactions,
    fileOps: extra.fileOps,
    splitTurn: extra.splitTurn,
    config: runtime.config,
    cwd: extra.cwd,
    workspace: (modified) => recordWorkspace(extra.cwd ?? e.identity.cwd, modified),
    artifacts: (files) => checkpointArtifacts(sessionAt(runtime.stateDir, e.sessionKey).lasting.stashes, files),
    breakdown,
  });
}

/** Writes the draft durably, then resets what it holds from the state. Null when deduplicated or failed. */
async function publish(e: EngineCore, state: ContextState, draft: CheckpointDraft): Promise<Checkpoint | null> {
  try {
    const result = await writerOf(e).write(draft, { delta: e.runtime.config.dedupDelta, capturedTokens: state.capturedTokens });
    e.log.clear(`checkpoint write`);
    reportStoreWarnings(e, result.warnings ?? [], result.written);
    if (!result.written) {
      if (result.latest.meta.session_id === e.identity.sessionId) e.previous = result.latest;
      return null;
    }
    e.previous = result.checkpoint;
    scheduleKnowledge(e.runtime, result.checkpoint); // knowledge layer, in the background
    if (e.runtime.config.offload) void scheduleArtifactGc(e.runtime.stateDir); // retention pruned: artifacts follow (off the LLM path)
    await state.reset();
    return result.checkpoint;
  } catch (err) {
    e.log.fail("checkpoint write", err);
    return null;
  }
}

/** A pointer or retention warning logs until a written checkpoint clears it; any other kind once per engine. */
function reportStoreWarnings(e: EngineCore, warnings: readonly string[], written: boolean): void {
  for (const kind of ["pointer", "retention"] as const) {
    const w = warnings.find((x) => x.startsWith(kind));
    if (w) e.log.fail(`checkpoint ${kind}`, new Error(w));
    else if (written) e.log.clear(`checkpoint ${kind}`);
  }
  for (const w of warnings) {
    const kind = w.split(":")[0] ?? w;
    if (w.startsWith("pointer") || w.startsWith("retention") || e.storeWarned.has(kind)) continue;
    e.storeWarned.add(kind);
    warnSafely(e.runtime.logger, `[context-manager] checkpoint store: ${w}`);
  }
}

/** Interrupted when the branch's last message is not a finished reply (a cut that splits a turn is not enough). */
export function interruption(branch: readonly AgentMessage[]): NonNullable<BuildCheckpointParams["splitTurn"]> {
  const last = branch[branch.length - 1] as { role?: string; stopReason?: string } | undefined;
  const finished = last?.role === "assistant" && last.stopReason === "stop";
  if (finished || !last) return { isSplitTurn: false, lastToolCall: null };
  return { isSplitTurn: true, lastToolCall: lastToolCallOf(branch) };
}

/** Stored outputs a checkpoint records (`artifacts`), so its restore block can point at them. */
const CHECKPOINT_MAX_ARTIFACTS = 10;
const norm = (p: string) => p.replace(/^\.\//, "");

/** Outputs of tools aimed at a file the ledger modified, then read, newest first; then the newest others. */
function checkpointArtifacts(sessionStashes: readonly SessionStash[], files: { modified: readonly string[]; read: readonly string[] }): ArtifactRef[] {
  const stashes = [...sessionStashes].reverse(); // newest first
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
