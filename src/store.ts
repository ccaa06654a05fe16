/**
 * Package entry `openclaw-context-manager/store`: read and write checkpoints without pi
 * (docs/checkpoint-schema.md): the atomic store, the YAML codec, validation, retention and the
 * restore renderer. Needs only `yaml` at run time.
 */
export * from "./agents/context-checkpoint.js";
export { renderCheckpointRestore } from "./agents/context-checkpoint-inject.js";
export { type RenderedRestore, type RenderRestoreOptions } from "./agents/inject/sections.js";
