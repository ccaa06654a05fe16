/** The engine's boundary types (context-manager-engine.ts): what it is made for and what it answers. */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Checkpoint } from "../checkpoint/schema.js";
import type { SessionIdentity } from "../checkpoint/schema.js";
import type { GaugeAction, GaugeReading } from "../gauge/context-gauge.js";

/** The automatic recall's block as last searched (archive-hooks.ts), and what it was searched for. */
export interface RecallBlockCache {
  key: string;
  block: AgentMessage | null;
  tokens: number;
}

/** What a compaction checkpoint adds to the state's draft. */
export interface DraftExtra {
  fileOps?: { read: Iterable<string>; written: Iterable<string>; edited: Iterable<string> };
  splitTurn?: { isSplitTurn: boolean; lastToolCall: { name: string; params_summary: string } | null };
  compactionCount?: number;
  cwd?: string;
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
