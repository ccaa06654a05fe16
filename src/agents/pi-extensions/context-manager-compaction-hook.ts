/** The compaction seams OpenClaw core awaits (spec §8.1), the server-side compaction's too. Never throw. */
import type { ExtensionContext, SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";
import type { Checkpoint } from "../checkpoint/schema.js";
import type { ContextManagerEngine } from "../engine/context-manager-engine.js";
import { type LiveCtx, sessionFor } from "./context-manager-session.js";
import { type CheckpointCompaction, compactionFromCheckpoint, startCheckpointCompaction } from "../engine/compaction.js";

/** `use` on the run's Session; `none` when the manager is off or anything throws. */
async function withSession<T>(ctx: LiveCtx, none: T, use: (s: ContextManagerEngine) => Promise<T>): Promise<T> {
  try {
    const session = await sessionFor(ctx);
    return session ? await use(session) : none;
  } catch {
    return none;
  }
}

export function writeCompactionCheckpoint(event: SessionBeforeCompactEvent, ctx: ExtensionContext): Promise<Checkpoint | null> {
  return withSession(ctx, null, async (session) => {
    return (await session.beforeCompaction(event, { use: "checkpoint", cwd: ctx.cwd })).checkpoint;
  });
}

/** What the compaction seam hands the host's safeguard. */
export interface CompactionSeam {
  /** the compaction checkpoint just written, or null */
  checkpoint: Checkpoint | null;
  /** "checkpoint" mode: the compaction to return as is (no model call); null in "host" mode or without a checkpoint */
  compaction: CheckpointCompaction | null;
  /** "host" mode: how long the host's summary may take before `fallback()` replaces it; null when the manager is off */
  deadlineMs: number | null;
  /** the checkpoint compaction that takes the place of a failed or late host summary; null without a checkpoint */
  fallback(): CheckpointCompaction | null;
}

const NO_SEAM: CompactionSeam = { checkpoint: null, compaction: null, deadlineMs: null, fallback: () => null };

/** The checkpoint and the span's archive; then the compaction ("checkpoint") or a deadline and fallback ("host"). */
export function compactWithCheckpoint(event: SessionBeforeCompactEvent, ctx: ExtensionContext): Promise<CompactionSeam> {
  const startedAt = performance.now();
  return withSession(ctx, NO_SEAM, async (session) => {
    const { compaction: mode, compactionDeadlineMs: deadlineMs } = session.engine.runtime.config;
    if (mode === "checkpoint") {
      // the compaction returns before its checkpoint is durable (engine/compaction.ts)
      const started = await startCheckpointCompaction(session, event, ctx.cwd);
      const compaction = started?.compaction ?? null;
      if (started && compaction) return { checkpoint: started.checkpoint, compaction, deadlineMs, fallback: () => compaction };
      // no checkpoint or an empty render: the host's summary runs, as in "host" mode after it
      return { checkpoint: started ? await started.durable : null, compaction: null, deadlineMs, fallback: () => null };
    }
    const { checkpoint } = await session.beforeCompaction(event, { use: "checkpoint", cwd: ctx.cwd });
    const fallback = () => (checkpoint ? compactionFromCheckpoint(session, checkpoint, event, startedAt) : null);
    return { checkpoint, compaction: null, deadlineMs, fallback };
  });
}

export interface ServerCompactionParams {
  sessionManager: ExtensionContext["sessionManager"];
  /** the run's working directory (core: effectiveCwd) */
  cwd: string;
  /** input tokens the endpoint compacted (core: the compacted usage's input_tokens) */
  tokensBefore: number;
}

/**
 * The checkpoint of OpenClaw's server-side compaction (`/responses/compact`), which emits no
 * `session_before_compact`: core calls this once it committed (a finished run: no split turn).
 */
export function writeServerCompactionCheckpoint(params: ServerCompactionParams): Promise<Checkpoint | null> {
  const ctx = { sessionManager: params.sessionManager, cwd: params.cwd, getContextUsage: () => undefined };
  return withSession(ctx, null, async (session) => {
    const tokensBefore = Number.isFinite(params.tokensBefore) && params.tokensBefore > 0 ? Math.floor(params.tokensBefore) : 0;
    const event = { branchEntries: params.sessionManager.getBranch(), preparation: { tokensBefore } };
    // no span reaches this route: nothing is archived
    return (await session.beforeCompaction(event, { use: "checkpoint", cwd: params.cwd, span: null })).checkpoint;
  });
}
