import path from "node:path";

/**
 * Any problem with one checkpoint file: unreadable, not YAML, wrong schema, a bad field,
 * another session's checkpoint. The message always names the file (base name) and, when one
 * field is at fault, its path: `cp_003.yaml: meta.trigger: expected one of auto-80pct|compaction|session-end`.
 */
export class CheckpointError extends Error {
  /** the file as the caller named it (full path when read from disk) */
  readonly file: string;
  /** dotted field path, e.g. `decisions[2].what` */
  readonly field?: string;

  constructor(file: string, field: string | undefined, detail: string, options?: { cause?: unknown }) {
    super(`${path.basename(file) || file}: ${field ? `${field}: ` : ""}${detail}`, options);
    this.name = "CheckpointError";
    this.file = file;
    if (field !== undefined) this.field = field;
  }
}
