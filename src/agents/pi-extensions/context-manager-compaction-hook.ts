/**
 * The compaction hook (spec §8.1): the ONE awaited call OpenClaw core adds at
 * the top of compaction-safeguard's `session_before_compact` handler, before
 * any early return and before summarization. It writes the `compaction`
 * checkpoint and never throws into the handler.
 */
import type { ExtensionContext, SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";
import type { Checkpoint } from "../context-checkpoint-schema.js";
import { engineFor } from "./context-manager.js";

export async function writeCompactionCheckpoint(
  event: SessionBeforeCompactEvent,
  ctx: ExtensionContext,
): Promise<Checkpoint | null> {
  try {
    const engine = await engineFor(ctx);
    return engine ? await engine.onBeforeCompact(event, ctx.cwd) : null;
  } catch {
    return null;
  }
}
