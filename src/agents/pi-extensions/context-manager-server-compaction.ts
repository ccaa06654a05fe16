/**
 * The compaction checkpoint for OpenClaw's SERVER-SIDE compaction (2026.9:
 * OpenAI Responses / xAI `/responses/compact`, run by
 * `attemptServerEndpointCompaction()` in
 * `src/agents/embedded-agent-runner/compaction-session-execution.ts`). That
 * path never emits pi's `session_before_compact`, so the safeguard hook does
 * not run; core calls this right after the endpoint compaction committed.
 *
 * The endpoint only compacts a finished run (last message from the
 * assistant), so there is no split turn; pi's fileOps are not available and
 * the file lists come from the captured tool calls. Never throws.
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { Checkpoint } from "../checkpoint/schema.js";
import { sessionFor } from "./context-manager-session.js";
import { compactionWithoutPreparation } from "../engine/compaction-input.js";

export interface ServerCompactionParams {
  sessionManager: ExtensionContext["sessionManager"];
  /** the run's working directory (core: effectiveCwd) */
  cwd: string;
  /** input tokens the endpoint compacted (core: the compacted usage's input_tokens) */
  tokensBefore: number;
}

export async function writeServerCompactionCheckpoint(params: ServerCompactionParams): Promise<Checkpoint | null> {
  try {
    const session = await sessionFor({ sessionManager: params.sessionManager, cwd: params.cwd, getContextUsage: () => undefined });
    if (!session) return null;
    const tokensBefore = Number.isFinite(params.tokensBefore) && params.tokensBefore > 0 ? Math.floor(params.tokensBefore) : 0;
    const event = compactionWithoutPreparation(params.sessionManager.getBranch(), tokensBefore);
    // no span reaches this route: nothing is archived
    return (await session.beforeCompaction(event, { use: "checkpoint", cwd: params.cwd, span: null })).checkpoint;
  } catch {
    return null;
  }
}
