/**
 * Checkpoint ids: "cp_" + a positive integer zero-padded to 3 digits ("cp_001", "cp_1000"); only
 * the canonical form, so one number has one file name. Sort by the number, never the string.
 */
const ID_RE = /^cp_(\d{3,})$/;
/** Highest checkpoint number: a larger one is corrupt or hostile, and would leave no room for later writes. */
export const MAX_CHECKPOINT_NUMBER = 999_999_999_999;
const FILE_RE = /^(cp_(\d{3,}))\.yaml$/;

export function formatCheckpointId(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_CHECKPOINT_NUMBER) {
    throw new RangeError(`checkpoint number must be an integer from 1 to ${MAX_CHECKPOINT_NUMBER}, got ${n}`);
  }
  return `cp_${String(n).padStart(3, "0")}`;
}

/** "cp_007" -> 7; null for anything that is not a canonical id ("cp_7", "cp_0001", "cp_000"). */
export function parseCheckpointId(id: string): number | null {
  const digits = ID_RE.exec(id)?.[1];
  if (digits === undefined) return null;
  const n = Number(digits);
  return n >= 1 && n <= MAX_CHECKPOINT_NUMBER && formatCheckpointId(n) === id ? n : null;
}

export function checkpointFileName(id: string): string {
  return `${id}.yaml`;
}

/** "cp_007.yaml" -> { id: "cp_007", n: 7 }; null for any other name (temp files, pointer, junk). */
export function parseCheckpointFileName(name: string): { id: string; n: number } | null {
  const id = FILE_RE.exec(name)?.[1];
  const n = id === undefined ? null : parseCheckpointId(id);
  return n === null ? null : { id: id!, n };
}

/** A name shaped like a checkpoint file whose number is out of range (see MAX_CHECKPOINT_NUMBER). */
export function isOutOfRangeCheckpointFileName(name: string): boolean {
  const digits = FILE_RE.exec(name)?.[2];
  return digits !== undefined && !digits.startsWith("0") && Number(digits) > MAX_CHECKPOINT_NUMBER;
}
