/**
 * Continuity (issue 15): a checkpoint records the handles of the session's stashed outputs
 * that matter (optional field `artifacts`, docs/checkpoint-schema.md), so the restore block
 * can point at them and gc keeps them while the checkpoint is kept.
 * Which matter: outputs of tools aimed at a file of the checkpoint's ledger (files modified,
 * then read), newest first, then the newest others; at most CHECKPOINT_MAX_ARTIFACTS.
 */
import { CheckpointError } from "../checkpoint/errors.js";
import type { RenderedRestore } from "../context-checkpoint-inject.js";
import { quoteUntrusted, RESTORE_END_MARKER } from "../context-checkpoint-inject.js";
import { estimateTextTokens } from "../token-estimate.js";
import { tryParseHandle } from "./handle.js";
import { FETCH_TOOL_NAME } from "./preview.js";
import { sessionStashes } from "./session-stashes.js";

export interface ArtifactRef {
  handle: string;
  tool: string;
  /** path / command the tool was aimed at ("" when unknown), redacted */
  target: string;
  bytes: number;
}

export const CHECKPOINT_MAX_ARTIFACTS = 10;
/** lines of the restore block's artifacts section */
const RESTORE_MAX_LINES = 3;
/** share of the restore budget the section may take */
const RESTORE_BUDGET_SHARE = 0.15;

const norm = (p: string) => p.replace(/^\.\//, "");

export function checkpointArtifacts(sessionKey: string, files: { modified: readonly string[]; read: readonly string[] }): ArtifactRef[] {
  const stashes = [...sessionStashes(sessionKey)].reverse(); // newest first
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
    .map(({ s }) => ({ handle: s.handle, tool: s.tool, target: s.target, bytes: s.bytes }));
}

/** The optional `artifacts` list of a parsed checkpoint (absent -> undefined); a bad entry is a CheckpointError. */
export function validateArtifactRefs(root: Record<string, unknown>, file: string): ArtifactRef[] | undefined {
  const raw = root.artifacts;
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw new CheckpointError(file, "artifacts", "expected a list");
  if (raw.length > 1000) throw new CheckpointError(file, "artifacts", "more than 1000 entries");
  return raw.map((e, i) => {
    const field = `artifacts[${i}]`;
    if (typeof e !== "object" || e === null || Array.isArray(e)) throw new CheckpointError(file, field, "expected a mapping");
    const o = e as Record<string, unknown>;
    if (tryParseHandle(o.handle) === null) throw new CheckpointError(file, `${field}.handle`, "expected ocm_artifact:v1:sha256:<64 lowercase hex>");
    for (const k of ["tool", "target"] as const) if (typeof o[k] !== "string") throw new CheckpointError(file, `${field}.${k}`, "expected a string");
    if (typeof o.bytes !== "number" || !Number.isSafeInteger(o.bytes) || o.bytes < 0) throw new CheckpointError(file, `${field}.bytes`, "expected a non-negative integer");
    return { handle: o.handle as string, tool: o.tool as string, target: o.target as string, bytes: o.bytes };
  });
}

/** Lines pointing at the stored outputs; handles re-checked (they are the only unquoted text). */
export function renderArtifactsSection(refs: readonly ArtifactRef[] | undefined, maxChars: number): string[] {
  if (!refs?.length) return [];
  const lines = [`Stored outputs (read with ${FETCH_TOOL_NAME}):`];
  let used = lines[0]!.length + 1;
  for (const r of refs.slice(0, RESTORE_MAX_LINES)) {
    if (tryParseHandle(r.handle) === null) continue;
    const kb = Math.max(1, Math.round(r.bytes / 1024));
    const line = `- ${quoteUntrusted(r.tool, 24)} ${quoteUntrusted(r.target, 60)} (${kb} KB): ${r.handle}`;
    if (used + line.length + 1 > maxChars) break;
    lines.push(line);
    used += line.length + 1;
  }
  return lines.length > 1 ? lines : [];
}

/** `render(maxTokens)` renders the block; returns it with the section before the end marker, never over maxTokens. */
export function renderWithArtifacts(refs: readonly ArtifactRef[] | undefined, maxTokens: number, render: (maxTokens: number) => RenderedRestore): RenderedRestore {
  const maxChars = Math.max(0, Math.floor(maxTokens)) * 4;
  const section = renderArtifactsSection(refs, Math.floor(maxChars * RESTORE_BUDGET_SHARE));
  if (section.length === 0) return render(maxTokens);
  const reserve = section.reduce((n, l) => n + l.length + 1, 0) + 1;
  const base = render(Math.floor((maxChars - reserve) / 4));
  if (!base.text) return base;
  const lines = base.text.split("\n");
  const end = lines.lastIndexOf(RESTORE_END_MARKER);
  lines.splice(end >= 0 ? end : lines.length, 0, ...section);
  const text = lines.join("\n");
  return { ...base, text, tokens: estimateTextTokens(text) };
}
