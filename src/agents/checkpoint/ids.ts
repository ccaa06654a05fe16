/**
 * Checkpoint ids: "cp_" + a positive integer, zero-padded to 3 digits ("cp_001".."cp_999",
 * then "cp_1000", ...). Only the canonical form is accepted, so one number has one id and
 * one file name. Always sort by the number, never by the string ("cp_1000" > "cp_999").
 */

const ID_RE = /^cp_(\d{3,})$/;
const FILE_RE = /^(cp_\d{3,})\.yaml$/;

export function formatCheckpointId(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`checkpoint number must be a positive integer, got ${n}`);
  return `cp_${String(n).padStart(3, "0")}`;
}

/** "cp_007" -> 7; null for anything that is not a canonical id ("cp_7", "cp_0001", "cp_000"). */
export function parseCheckpointId(id: string): number | null {
  const m = ID_RE.exec(id);
  if (!m || m[1] === undefined) return null;
  const n = Number(m[1]);
  if (!Number.isSafeInteger(n) || n < 1) return null;
  return formatCheckpointId(n) === id ? n : null;
}

export function checkpointFileName(id: string): string {
  return `${id}.yaml`;
}

/** "cp_007.yaml" -> { id: "cp_007", n: 7 }; null for any other name (temp files, pointer, junk). */
export function parseCheckpointFileName(name: string): { id: string; n: number } | null {
  const m = FILE_RE.exec(name);
  if (!m || m[1] === undefined) return null;
  const n = parseCheckpointId(m[1]);
  return n === null ? null : { id: m[1], n };
}
