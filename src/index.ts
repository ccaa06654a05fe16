/**
 * Package entry `openclaw-context-manager`: the store/reader API, the OpenClaw seams and the
 * pi extension factory. Subpaths: `./store` (no pi needed), `./openclaw`, `./pi-extension`
 * (the default export is the standalone pi extension), `./cli`.
 */
export * from "./store.js";
export * from "./openclaw.js";
export {
  createContextManagerExtension,
  type ContextManagerExtensionOptions,
  standaloneRuntime,
} from "./agents/pi-extensions/context-manager.js";
export { loadPiContextManagerConfig, PiSettingsError } from "./agents/pi-extensions/context-manager-session.js";
