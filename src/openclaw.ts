/**
 * Package entry `openclaw-context-manager/openclaw`: the seams OpenClaw core calls
 * (docs/openclaw-integration.md): extension registration, the compaction hooks and the restore injection.
 */
export { buildContextManagerExtensionFactories, defaultStateDir } from "./agents/pi-extensions/context-manager.js";
export { agentAndChannelOf } from "./agents/engine/runtime.js";
export { compactWithCheckpoint, type CompactionSeam, writeCompactionCheckpoint } from "./agents/pi-extensions/context-manager.js";
export { writeServerCompactionCheckpoint, type ServerCompactionParams } from "./agents/pi-extensions/context-manager.js";
export { onCompactionCompleted, onSessionStarted, type Enqueue } from "./openclaw-core/restore-seams.js";
export { readCheckpointForInjection, type RestoreBlock, type RestoreKind, type RestoreParams } from "./agents/engine/restore-block.js";
export {
  type ContextManagerConfig,
  ContextManagerConfigError,
  DEFAULT_CONTEXT_MANAGER_CONFIG,
  resolveContextManagerConfig,
} from "./agents/config/context-manager-config.js";
