/**
 * Session-scoped runtime values for the context manager (spec §8.3), following
 * OpenClaw's compaction-safeguard-runtime pattern: the host sets them for the
 * SessionManager of one run, the extension reads them in its handlers.
 *
 * OpenClaw opens a new SessionManager every run, so these values live for one
 * run only; everything that must last between turns is on disk. The same record holds the
 * SessionManager's engine (context-manager.ts): one registry per SessionManager, dropped with it.
 */
import type { ContextManagerRuntimeValue } from "../engine/runtime.js";
import type { ContextManagerEngine } from "../engine/context-manager-engine.js";
import { globalSingleton } from "../../infra/global-singleton.js";

export type { ContextManagerRuntimeValue } from "../engine/runtime.js";

/** What the extension keeps of one SessionManager. */
interface ManagerSlot {
  runtime?: ContextManagerRuntimeValue;
  /** one engine per SessionManager, shared by every copy of the extension's module */
  engine?: Promise<ContextManagerEngine>;
}

type Registry = WeakMap<object, ManagerSlot>;

const registry = (): Registry => globalSingleton("openclaw.contextManager.runtime", () => new WeakMap());

function slotOf(sessionManager: object): ManagerSlot {
  let slot = registry().get(sessionManager);
  if (!slot) {
    slot = {};
    registry().set(sessionManager, slot);
  }
  return slot;
}

export function setContextManagerRuntime(sessionManager: object, value: ContextManagerRuntimeValue | null): void {
  if (value === null) {
    const slot = registry().get(sessionManager);
    if (slot) delete slot.runtime;
  } else slotOf(sessionManager).runtime = value;
}

export function getContextManagerRuntime(sessionManager: object): ContextManagerRuntimeValue | undefined {
  return registry().get(sessionManager)?.runtime;
}

/** The SessionManager's engine, when one was made. */
export function engineOfManager(sessionManager: object): Promise<ContextManagerEngine> | undefined {
  return registry().get(sessionManager)?.engine;
}

export function setEngineOfManager(sessionManager: object, engine: Promise<ContextManagerEngine>): void {
  slotOf(sessionManager).engine = engine;
}
