/**
 * Session-scoped runtime values for the context manager (spec §8.3), following
 * OpenClaw's compaction-safeguard-runtime pattern: the host sets them for the
 * SessionManager of one run, the extension reads them in its handlers.
 *
 * OpenClaw opens a new SessionManager every run, so these values live for one
 * run only; everything that must last between turns is on disk.
 */
import type { ContextManagerRuntimeValue } from "../engine/runtime.js";
import { globalSingleton } from "../../infra/global-singleton.js";

export type { ContextManagerRuntimeValue } from "../engine/runtime.js";

type Registry = WeakMap<object, ContextManagerRuntimeValue>;

const registry = (): Registry => globalSingleton("openclaw.contextManager.runtime", () => new WeakMap());

export function setContextManagerRuntime(sessionManager: object, value: ContextManagerRuntimeValue | null): void {
  if (value === null) registry().delete(sessionManager);
  else registry().set(sessionManager, value);
}

export function getContextManagerRuntime(sessionManager: object): ContextManagerRuntimeValue | undefined {
  return registry().get(sessionManager);
}
