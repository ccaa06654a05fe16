/**
 * The values a host gives the context manager for one session (spec §8.3). Below them, what the
 * engine's collaborators use of it: they take EngineCore, not the class, which imports them (no cycle).
 */
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import type { FsOps } from "../../infra/fs-ops.js";
import type { OnceLogger, WarnLogger } from "../../infra/log-once.js";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Checkpoint, SessionIdentity } from "../checkpoint/schema.js";
import type { CheckpointWriter } from "../checkpoint/writer.js";
import type { ContextReading, GaugeAction, GaugeReading } from "../gauge/context-gauge.js";
import type { ContextState } from "../state/context-state.js";
import type { ReuseEstimate } from "../prompt-cost/reuse.js";
import type { RequestLog } from "./request-log.js";

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
  /** true: the host (OpenClaw's agent runner) enqueues restore blocks; false: standalone pi sends them itself */
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

/** The session an engine is made for, beside the host's runtime values. */
export interface EngineSession extends Pick<SessionIdentity, "sessionFile" | "cwd"> {
  sessionId: string;
  /** compaction entries already in this session (used when the host passes none) */
  compactionsSoFar: number;
}

export interface ContextDecision {
  /** messages to send instead of the original (gauge appended), or undefined to leave them */
  messages: AgentMessage[] | undefined;
  reading: GaugeReading;
  /** always null: the auto checkpoint is written in the background (see `checkpointWrite`) */
  checkpoint: Checkpoint | null;
  /** the auto-80pct checkpoint this call started, settling when it is on disk (null on failure) */
  checkpointWrite?: Promise<Checkpoint | null>;
  /** the gauge text of this reading ("" below the gauge threshold), and its action */
  gaugeText?: string;
  gaugeAction?: GaugeAction;
}

export interface EngineCore {
  readonly runtime: ContextManagerRuntimeValue;
  /** who this engine captures for: what its checkpoints record */
  readonly identity: SessionIdentity & { sessionId: string };
  readonly sessionKey: string;
  /** one line per failure kind for this session across the process's engines (Session.logFor) */
  readonly log: OnceLogger;
  /** the last requests prepared, by reference: the context breakdown is computed from them on demand */
  readonly requests: RequestLog;
  compactions: number;
  /** the automatic recall's block as last searched (archive-hooks.ts): searched again when its key changes */
  recall: { key: string; block: AgentMessage | null; tokens: number } | null;
  /** appends to the archive by this engine so far: a recall block cached before one is searched again */
  archiveAppends: number;
  onContext(messages: AgentMessage[], usage: ContextReading | undefined, appendGauge?: boolean): Promise<ContextDecision>;
  // checkpoint-writes.ts: the latest checkpoint of this session (undefined: unread), the writer (what
  // it knows of the directory stays in memory), the store's warning kinds logged, the background write
  previous: Checkpoint | null | undefined;
  writer: CheckpointWriter | null;
  readonly storeWarned: Set<string>;
  pendingWrite: Promise<Checkpoint | null> | null;
  recoveryDue: boolean;
  recoverPrevious(): Promise<unknown>;
  idle(): Promise<void>;
  ensureState(): Promise<ContextState | null>;
  writeState(state: ContextState): Promise<void>;
  storeOpts(): { stateDir: string; retention: number; fs?: FsOps };
  cacheReuse(): ReuseEstimate | null;
}
