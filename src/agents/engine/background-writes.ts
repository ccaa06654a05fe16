/**
 * Writes the engine starts off the caller's path and does not await: a "checkpoint"
 * compaction's span to the archive (archive-hooks.ts) and each checkpoint's knowledge records
 * (knowledge-hooks.ts). A session shutdown, a plugin dispose and the replay wait for them here,
 * so a process that exits next loses none of them and a removed state dir sees no late file.
 */
import { spanArchivesSettled } from "./archive-hooks.js";
import { knowledgeSettled } from "./knowledge-hooks.js";

/** Resolves when every background write started so far is done. Never rejects. */
export async function backgroundWritesSettled(): Promise<void> {
  // a span archived after its checkpoint: the checkpoint's knowledge write may start meanwhile
  await spanArchivesSettled().catch(() => undefined);
  await knowledgeSettled().catch(() => undefined);
}
