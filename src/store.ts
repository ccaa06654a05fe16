/**
 * Package entry `openclaw-context-manager/store`: read and write checkpoints without pi
 * (docs/checkpoint-schema.md): the atomic store, the YAML codec, validation, retention and the
 * restore renderer. Needs only `yaml` at run time.
 */
export * from "./agents/checkpoint/schema.js";
export { CheckpointError } from "./agents/checkpoint/errors.js";
export { serializeCheckpoint, parseCheckpoint } from "./agents/checkpoint/yaml.js";
export { validateCheckpoint } from "./agents/checkpoint/validate.js";
export { formatCheckpointId, parseCheckpointId, parseCheckpointFileName, checkpointFileName } from "./agents/checkpoint/ids.js";
export { DEFAULT_RETENTION, type CheckpointStoreOptions, readCheckpointFile } from "./agents/checkpoint/files.js";
export { listCheckpoints, listCheckpointFilesInDir, type CheckpointFileEntry } from "./agents/checkpoint/files.js";
export { POINTER_FILE, type LatestPointer, readLatestCheckpoint, pruneCheckpoints } from "./agents/checkpoint/files.js";
export { STALE_TEMP_MS, summarizeCheckpoint } from "./agents/checkpoint/files.js";
export { writeCheckpoint, CheckpointWriter, isDuplicateAutoCheckpoint, DEFAULT_DEDUP_DELTA, type WriteCheckpointResult } from "./agents/checkpoint/writer.js";
export { listCheckpointSessions, readLatestPointer, readLatestSummary, type CheckpointSessionEntry } from "./agents/checkpoint/sessions.js";
export { readCheckpointMeta } from "./agents/checkpoint/sessions.js";
export { sessionDirName, checkpointSessionDir, stateSessionDir } from "./infra/session-dir.js";
export { renderCheckpointRestore } from "./agents/inject/render-restore.js";
export { type RenderedRestore, type RenderRestoreOptions } from "./agents/inject/render-restore.js";
