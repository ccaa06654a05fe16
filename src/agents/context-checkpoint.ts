/**
 * Checkpoint store facade (spec §5): schema types, YAML (de)serialization with validation, and
 * the on-disk store `<stateDir>/context/checkpoints/<sessionDirName(key)>/cp_NNN.yaml` + `_latest.json`.
 * Implementation lives in ./checkpoint/, one job per file. Format and protocol: docs/checkpoint-schema.md.
 */
export * from "./context-checkpoint-schema.js";
export { CheckpointError } from "./checkpoint/errors.js";
export { serializeCheckpoint, parseCheckpoint } from "./checkpoint/yaml.js";
export { validateCheckpoint } from "./checkpoint/validate.js";
export { formatCheckpointId, parseCheckpointId, parseCheckpointFileName, checkpointFileName } from "./checkpoint/ids.js";
export { DEFAULT_RETENTION, type CheckpointStoreOptions } from "./checkpoint/options.js";
export { readCheckpointFile, listCheckpoints, listCheckpointFilesInDir, type CheckpointFileEntry } from "./checkpoint/files.js";
export { POINTER_FILE, type LatestPointer } from "./checkpoint/pointer.js";
export { readLatestCheckpoint } from "./checkpoint/recovery.js";
export { pruneCheckpoints, STALE_TEMP_MS } from "./checkpoint/retention.js";
export { writeCheckpoint, CheckpointWriter, isDuplicateAutoCheckpoint, DEFAULT_DEDUP_DELTA, type WriteCheckpointResult } from "./checkpoint/store.js";
export { listCheckpointSessions, readLatestPointer, readLatestSummary, type CheckpointSessionEntry } from "./checkpoint/sessions.js";
export { readCheckpointMeta } from "./checkpoint/meta.js";
export { summarizeCheckpoint, type CheckpointSummary } from "./checkpoint/summary.js";
export { sessionDirName, checkpointSessionDir, stateSessionDir } from "../infra/session-dir.js";
