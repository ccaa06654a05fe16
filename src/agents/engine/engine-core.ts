/**
 * What the engine's collaborators (request.ts, checkpoint-writes.ts, the archive and offload hooks)
 * use of it: they take this, not the class, which imports them (no import cycle).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Checkpoint, SessionIdentity } from "../checkpoint/schema.js";
import type { CheckpointWriter } from "../checkpoint/writer.js";
import type { ContextReading, GaugeAction, GaugeReading } from "../gauge/context-gauge.js";
import type { ContextState } from "../state/context-state.js";
import type { ReuseEstimate } from "../prompt-cost/reuse.js";
import type { OnceLogger } from "../../infra/log-once.js";
import type { FsOps } from "../../infra/fs-ops.js";
import type { ContextManagerRuntimeValue } from "./runtime.js";
import type { RequestLog } from "./request-log.js";

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
