/**
 * The values a host gives the context manager for one session (spec §8.3): the key, the
 * window, where state lives, the config, and how the host delivers restore blocks. The pi
 * shell keeps them per SessionManager (pi-extensions/context-manager-runtime.ts); the
 * OpenClaw plugin makes them per session slot.
 */
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import type { FsOps } from "../../infra/fs-ops.js";
import type { WarnLogger } from "../../infra/log-once.js";

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
   * tokens the host keeps free below the window before it compacts (pi's
   * `compaction.reserveTokens`), when the host reports it: smart trim and the cold-moment trim
   * are placed under it (engine/host-reserve.ts); absent: the config's smartTrimReserveTokens
   */
  hostReserveTokens?: number;
  /**
   * true when the host sends no `tool_result` events and tool results are captured from the
   * toolResult messages instead (OpenClaw's context-engine plugin sees messages only)
   */
  toolResultsFromMessages?: boolean;
  /** compactions of this session so far, when the host tracks them */
  compactionCount?: number;
  logger?: WarnLogger;
  /** file-system layer (tests inject faults: ENOSPC, EACCES, EIO) */
  fs?: FsOps;
}
