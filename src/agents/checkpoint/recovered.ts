/**
 * Validation of the optional `recovered` section (docs/checkpoint-schema.md): a checkpoint the
 * next session wrote from the state files of a session that ended before checkpointing them.
 */
import { type RecoveredState, STATE_FILE_NAMES } from "./schema.js";
import { CheckpointError } from "./errors.js";

const ISO_DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export function validateRecovered(root: Record<string, unknown>, file: string): RecoveredState | undefined {
  const raw = root.recovered;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "object" || Array.isArray(raw)) throw new CheckpointError(file, "recovered", "expected a mapping");
  const o = raw as Record<string, unknown>;
  const by = o.by_session_id;
  if (by !== null && typeof by !== "string") throw new CheckpointError(file, "recovered.by_session_id", "expected a string or null");
  const at = o.state_updated_at;
  if (typeof at !== "string" || !ISO_DATE_TIME_RE.test(at) || Number.isNaN(Date.parse(at))) {
    throw new CheckpointError(file, "recovered.state_updated_at", "expected an ISO-8601 date-time");
  }
  if (!Array.isArray(o.files)) throw new CheckpointError(file, "recovered.files", "expected a list");
  const files = o.files.map((f, i) => {
    if (typeof f !== "string" || !(STATE_FILE_NAMES as readonly string[]).includes(f)) {
      throw new CheckpointError(file, `recovered.files[${i}]`, `expected one of ${STATE_FILE_NAMES.join("|")}`);
    }
    return f;
  });
  const since = o.files_modified_since_checkpoint;
  if (since !== undefined && !Array.isArray(since)) throw new CheckpointError(file, "recovered.files_modified_since_checkpoint", "expected a list");
  const files_modified_since_checkpoint = (since ?? []).map((f: unknown, i: number) => {
    if (typeof f !== "string") throw new CheckpointError(file, `recovered.files_modified_since_checkpoint[${i}]`, "expected a string");
    return f;
  });
  return { by_session_id: by, state_updated_at: at, files, files_modified_since_checkpoint };
}
