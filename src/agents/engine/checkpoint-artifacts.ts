/**
 * Continuity (issue 15): a checkpoint records the handles of the session's stashed outputs
 * that matter (optional field `artifacts`, docs/checkpoint-schema.md), so the restore block
 * can point at them and gc keeps them while the checkpoint is kept.
 * Which matter: outputs of tools aimed at a file of the checkpoint's ledger (files modified,
 * then read), newest first, then the newest others; at most CHECKPOINT_MAX_ARTIFACTS.
 */
import type { ArtifactRef } from "../checkpoint/schema.js";
import type { SessionStash } from "../artifacts/session-stashes.js";

export const CHECKPOINT_MAX_ARTIFACTS = 10;
const norm = (p: string) => p.replace(/^\.\//, "");

export function checkpointArtifacts(sessionStashes: readonly SessionStash[], files: { modified: readonly string[]; read: readonly string[] }): ArtifactRef[] {
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
