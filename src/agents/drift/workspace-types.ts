/** The workspace record types live in the checkpoint schema, which stores them; re-exported for existing importers. */
export { FILE_STATES, HASH_SCOPES, type FileState, type HashScope, type WorkspaceFile, type WorkspaceGit, type WorkspaceSnapshot } from "../context-checkpoint-schema.js";
