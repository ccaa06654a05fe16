/**
 * Session-scoped runtime values for the context manager (spec §8.3), following
 * OpenClaw's compaction-safeguard-runtime pattern: the host sets them for the
 * SessionManager of one run, the extension reads them in its handlers.
 *
 * OpenClaw opens a new SessionManager every run, so these values live for one
 * run only; everything that must last between turns is on disk. The same record holds the
 * SessionManager's Session (context-manager.ts): one registry per SessionManager, dropped with it.
 */
import type { ContextManagerRuntimeValue } from "../engine/runtime.js";
import type { SessionApi } from "../engine/session-api.js";
import { processServices } from "../../infra/process-services.js";

export type { ContextManagerRuntimeValue } from "../engine/runtime.js";

/** What the extension keeps of one SessionManager. */
interface ManagerSlot {
  runtime?: ContextManagerRuntimeValue;
  /** one Session per SessionManager, shared by every copy of the extension's module */
  session?: Promise<SessionApi>;
}

declare module "../../infra/process-services.js" {
  interface ProcessServices { piManagerSlots?: WeakMap<object, ManagerSlot> } // by pi SessionManager, dropped with it
}

const registry = (): WeakMap<object, ManagerSlot> => (processServices().piManagerSlots ??= new WeakMap());

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

/** The SessionManager's Session, when one was made. */
export function sessionOfManager(sessionManager: object): Promise<SessionApi> | undefined {
  return registry().get(sessionManager)?.session;
}

export function setSessionOfManager(sessionManager: object, session: Promise<SessionApi>): void {
  slotOf(sessionManager).session = session;
}
