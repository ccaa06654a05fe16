/**
 * Session-scoped runtime values for the context manager (spec §8.3), following
 * OpenClaw's compaction-safeguard-runtime pattern: the host sets them for the
 * SessionManager of one run, the extension reads them in its handlers.
 *
 * OpenClaw opens a new SessionManager every run, so these values live for one
 * run only; everything that must last between turns is on disk.
 */
import type { ContextManagerConfig } from "../context-manager-config.js";
import type { FsOps } from "../../infra/fs-ops.js";
import { globalSingleton } from "../../infra/global-singleton.js";

export interface ContextManagerRuntimeValue {
  sessionKey: string;
  contextWindowTokens: number;
  stateDir: string;
  config: ContextManagerConfig;
  agentId?: string | null;
  channel?: string | null;
  /** the Pi session id (defaults to sessionManager.getSessionId()) */
  sessionId?: string | null;
  sessionFile?: string | null;
  /**
   * true when a host (OpenClaw's agent runner) delivers restore blocks with
   * enqueueSystemEvent; false in standalone Pi, where the extension sends them
   * itself with pi.sendMessage(…, { deliverAs: "nextTurn" }).
   */
  hostInjectsRestore: boolean;
  /**
   * true when the host sends no `tool_result` events and tool results are captured from the
   * toolResult messages instead (OpenClaw's context-engine plugin sees messages only)
   */
  toolResultsFromMessages?: boolean;
  /** compactions of this session so far, when the host tracks them */
  compactionCount?: number;
  logger?: ContextManagerLogger;
  /** file-system layer (tests inject faults: ENOSPC, EACCES, EIO) */
  fs?: FsOps;
}

export interface ContextManagerLogger {
  warn(message: string): void;
  info?(message: string): void;
}

type Registry = WeakMap<object, ContextManagerRuntimeValue>;

const registry = (): Registry => globalSingleton("openclaw.contextManager.runtime", () => new WeakMap());

export function setContextManagerRuntime(sessionManager: object, value: ContextManagerRuntimeValue | null): void {
  if (value === null) registry().delete(sessionManager);
  else registry().set(sessionManager, value);
}

export function getContextManagerRuntime(sessionManager: object): ContextManagerRuntimeValue | undefined {
  return registry().get(sessionManager);
}
