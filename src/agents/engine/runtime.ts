/**
 * The values a host gives the context manager for one session (spec §8.3). The pi shell keeps
 * them per SessionManager (pi-extensions/context-manager-session.ts); the plugin per session slot.
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
   * true when a host (OpenClaw's agent runner) delivers restore blocks with enqueueSystemEvent;
   * false in standalone Pi, where the extension sends them with pi.sendMessage (nextTurn)
   */
  hostInjectsRestore: boolean;
  /** tokens the host keeps free below the window before it compacts (pi's `compaction.reserveTokens`) */
  hostReserveTokens?: number;
  /** the host sends no `tool_result` events: tool results are captured from the messages (the plugin) */
  toolResultsFromMessages?: boolean;
  /** compactions of this session so far, when the host tracks them */
  compactionCount?: number;
  logger?: WarnLogger;
  /** file-system layer (tests inject faults: ENOSPC, EACCES, EIO) */
  fs?: FsOps;
}

/**
 * The reserve the trims are placed under: the host's where it reports one (a larger one would cut far
 * below where the host compacts), else `smartTrimReserveTokens` (docs/configuration.md#smart-trim).
 */
export function reserveTokensOf(runtime: Pick<ContextManagerRuntimeValue, "hostReserveTokens" | "config">): number {
  const host = runtime.hostReserveTokens;
  return typeof host === "number" && Number.isFinite(host) && host >= 0 ? host : runtime.config.smartTrimReserveTokens;
}

/** OpenClaw's keys are `agent:<agentId>:<channel>:…`; a key of another form names neither. */
export function agentAndChannelOf(sessionKey: string): { agentId: string | null; channel: string | null } {
  if (!sessionKey.startsWith("agent:")) return { agentId: null, channel: null };
  return {
    agentId: /^agent:([^:]+):/.exec(sessionKey)?.[1] ?? null,
    channel: sessionKey.split(":")[2] ?? null,
  };
}
