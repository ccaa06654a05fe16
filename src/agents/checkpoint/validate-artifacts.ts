/**
 * Validation of the optional `artifacts` list (docs/checkpoint-schema.md, issue 15): the handles of
 * the session's stored outputs a checkpoint points at.
 */
import { tryParseHandle } from "../artifacts/handle.js";
import { CheckpointError } from "./errors.js";
import type { ArtifactRef } from "./schema.js";

/** what a checkpoint may hold in `artifacts[].lines` (it is printed unquoted in the restore block) */
export const LINES_RE = /^\d{1,9}-(?:\d{1,9})?$/;

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
    if (o.lines !== undefined && (typeof o.lines !== "string" || !LINES_RE.test(o.lines))) throw new CheckpointError(file, `${field}.lines`, 'expected a line range like "120-219" or "120-"');
    return { handle: o.handle as string, tool: o.tool as string, target: o.target as string, ...(o.lines !== undefined ? { lines: o.lines as string } : {}), bytes: o.bytes };
  });
}
