/**
 * The slice of OpenClaw's plugin contract this plugin uses (openclaw@2026.9.6), as structural
 * copies so the install needs no 300 MB openclaw package; compat/ runs the plugin in a real OpenClaw.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

/** What every session call gets (assemble's runtimeContext: `promptCache.retention`, "long": 1 hour). */
interface SessionParams {
  sessionId: string;
  sessionKey?: string;
  tokenBudget?: number;
  runtimeContext?: Record<string, unknown>;
}

export interface AssembleParams extends SessionParams {
  messages: AgentMessage[];
  prompt?: string;
  /** the current model id ("claude-opus-4", "gpt-4o") */
  model?: string;
  /** what the runtime resolved of the model (provider, family) */
  runtimeSettings?: { model?: { resolved?: string | null; provider?: string | null } };
}

export type AssembleResult = { messages: AgentMessage[]; estimatedTokens: number; systemPromptAddition?: string };

export interface AfterTurnParams extends SessionParams {
  sessionFile: string;
  messages: AgentMessage[];
  prePromptMessageCount: number;
  /** a heartbeat run: its prompt is the host's, not the user's (host-provenance.ts) */
  isHeartbeat?: boolean;
}

/** OpenClaw 2026.9's commitTurn: the accepted turn, from its admitted user entry to its terminal entry. */
export interface CommitTurnParams
  extends Omit<AfterTurnParams, "tokenBudget" | "sessionFile" | "prePromptMessageCount"> {
  advancementKey: string;
}

export interface CompactParams extends SessionParams {
  sessionKey: string;
  force?: boolean;
  currentTokenCount?: number;
}

export interface CompactResult {
  ok: boolean;
  compacted: boolean;
  reason?: string;
  result?: {
    summary?: string;
    tokensBefore: number;
    tokensAfter?: number;
    details?: unknown;
    /** the successor session id when the runtime rotated the transcript */
    sessionId?: string;
    sessionTarget?: { sessionId?: string };
  };
}

export type DelegateCompaction = (params: CompactParams) => Promise<CompactResult>;

export interface ContextEngineShape {
  readonly info: {
    id: string;
    name: string;
    ownsCompaction?: boolean;
    /** 2026.9 runs a durable turn through the engine only with both and commitTurn (else "legacy") */
    transcriptSemantics?: {
      currentTurnFence: "before-current-turn-entry-v1";
      turnAdvancementIdempotency: "atomic-idempotent-v1";
    };
  };
  ingest(params: unknown): Promise<{ ingested: boolean }>;
  assemble(params: AssembleParams): Promise<AssembleResult>;
  afterTurn(params: AfterTurnParams): Promise<void>;
  commitTurn(params: CommitTurnParams): Promise<{ status: "committed" | "duplicate" }>;
  compact(params: CompactParams): Promise<CompactResult>;
  dispose(): Promise<void>;
}

/** OpenClaw 2026.9's `CompactionProvider` (plugin-sdk): what the compaction-safeguard calls instead of the model. */
export interface SummarizeParams {
  messages: unknown[];
  signal?: AbortSignal;
  compressionRatio?: number;
  previousSummary?: string;
}

export type CompactionProviderShape = { id: string; label: string; summarize(params: SummarizeParams): Promise<string> };

/** The part of `OpenClawPluginApi` the entry uses. */
export interface PluginApiShape {
  id: string;
  pluginConfig?: Record<string, unknown>;
  /** OpenClaw's whole config: its compaction reserve is read */
  config?: unknown;
  logger?: { warn(message: string): void };
  registerContextEngine(id: string, factory: (ctx: { workspaceDir?: string }) => ContextEngineShape | Promise<ContextEngineShape>): void;
  /** a tool, or a factory making one per run from the run's session (the fields of OpenClawPluginToolContext read) */
  registerTool?(tool: unknown, opts?: { name?: string; optional?: boolean }): void;
  /** `api.registerCompactionProvider` (openclaw ≥ 2026.9) */
  registerCompactionProvider?(provider: CompactionProviderShape): void;
  /** `api.on(hookName, handler)`: the plugin hooks (before_compaction) */
  on?(hookName: string, handler: (event: unknown, ctx: unknown) => unknown): void;
}
