/**
 * The compaction hook (spec §8.1): the ONE awaited call OpenClaw core adds at
 * the top of compaction-safeguard's `session_before_compact` handler, before
 * any early return and before summarization. It writes the `compaction`
 * checkpoint, then archives the compacted span, and never throws into the handler.
 */
import type { ExtensionContext, SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";
import type { Checkpoint } from "../context-checkpoint-schema.js";
import { engineFor } from "./context-manager.js";
import { archiveCompactedSpan } from "../engine/archive-hooks.js";

export async function writeCompactionCheckpoint(
  event: SessionBeforeCompactEvent,
  ctx: ExtensionContext,
): Promise<Checkpoint | null> {
  try {
    const engine = await engineFor(ctx);
    if (!engine) return null;
    const checkpoint = await engine.onBeforeCompact(event, ctx.cwd);
    // the compacted span goes to the archive after the checkpoint is on disk (docs/archive.md)
    await archiveCompactedSpan(engine, event);
    return checkpoint;
  } catch {
    return null;
  }
}
