/**
 * What a replay is asked for and what it reports (replayer.ts): the options, each checkpoint
 * and compaction it saw, and the report `npm run replay -- --json` writes.
 */
import type { Fidelity } from "./fidelity.js";
import type { FidelityV2 } from "./fidelity-v2.js";
import type { RecallReport } from "./recall.js";
import type { LatencyStats } from "./stats.js";
import type { OffloadReport } from "./offload-metrics.js";
import type { TrimReport } from "./trim-metrics.js";
import type { KnowledgeReport } from "./knowledge-metrics.js";
import type { BreakdownReport } from "./breakdown-metrics.js";
import type { CostReport, CostTraceRow } from "./cost-probe.js";

export interface ReplayOptions {
  /** simulated context window in tokens (default 32k) */
  contextWindow?: number;
  /** defaults: production's 16,384 / 20,000 at 200k, scaled to the window */
  reserveTokens?: number;
  keepRecentTokens?: number;
  /** a final manual /compact after the last message, so the whole run is checkpointed (default true) */
  finalCompact?: boolean;
  /** keep the temp dir (default false) */
  keepDir?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** large tool outputs off the prompt (config `offload`); default: the config default */
  offload?: boolean;
  /** other context-manager config keys for the run (thresholds) */
  contextManager?: Record<string, unknown>;
  /** who compacts (config `compaction`, issue 25); default: the config default ("host") */
  compaction?: "host" | "checkpoint";
  /** smart trim (config `smartTrim`, its reserve set to the replay's); default: the config default */
  smartTrim?: boolean;
  /**
   * A peer's pi extension (entry file or package dir) that compacts instead of us: loaded into
   * the session by pi's extension loader, the context manager disabled and the host's
   * compaction-safeguard off (pi alone with the peer, as `pi -e <peer>`), measured the same way.
   */
  peerExtension?: string;
  /** the host alone: our manager disabled and pi's own compaction (no safeguard), the baseline of cost ratios */
  hostAlone?: boolean;
  /** told every chat request as billed under anthropic-pi (`--trace`) */
  costTrace?: (row: CostTraceRow) => void;
}

export interface CheckpointRecord {
  id: string;
  trigger: string;
  tokens: number;
  chars: number;
  /** auto-80pct: the context call that wrote it; compaction: session_before_compact to the summarizer request */
  writeMs: number | null;
}

export interface CompactionRecord {
  trigger: string;
  final: boolean;
  tokensBefore: number;
  tokensAfter: number | null;
  messagesBefore: number;
  checkpointId: string | null;
  restoreTokens: number | null;
  restoreDelivered: boolean;
  lastUserRequest: string;
  lastUserInRestore: boolean | null;
  /** the rendered restore block (JSON report only) */
  restoreText: string | null;
  /** how many messages of the transcript had been replayed (sent, answered or delivered) before it */
  deliveredMessages: number;
  fidelity: Fidelity | null;
  /** measured on restoreText (checkpoint mode: on summaryText, the summary is the restore) against the transcript's first deliveredMessages messages */
  fidelityV2: FidelityV2 | null;
  /** last 3 requests and modified files on what the agent saw at the next request (summary + kept messages; visible-after.ts) */
  visibleAfter: { lastRequests: FidelityV2["lastRequests"]; modifiedFiles: FidelityV2["modifiedFiles"] } | null;
  /** the text that replaced the history (host mode: the faux summarizer's text plus the safeguard's sections) */
  summaryText: string;
  /** compaction_start to compaction_end, ms */
  compactionMs: number;
}

export interface ReplayReport {
  transcript: string;
  contextWindow: number;
  reserveTokens: number;
  keepRecentTokens: number;
  durationMs: number;
  recorded: { messages: number; segments: number; replies: number; toolResults: number; orphanToolCalls: number };
  replay: {
    chatRequests: number;
    summarizerRequests: number;
    /** chars/4 of every summarizer request (host mode; 0 in checkpoint mode) */
    summarizerInputTokens: number;
    syntheticReplies: number;
    skippedReplies: number;
    /** chat requests the faux model rejected as over the window (pi then compacts and retries) */
    overflowRejections: number;
    toolResultsDelivered: number;
    missingToolResults: number;
    maxMessagesInContext: number;
  };
  handler: LatencyStats & { byMessages: Array<{ messages: string } & LatencyStats> };
  handlerWithCheckpoint: LatencyStats;
  checkpoints: CheckpointRecord[];
  checkpointWrite: { auto: LatencyStats; compaction: LatencyStats };
  compactions: CompactionRecord[];
  restore: { blocks: number; delivered: number; tokens: LatencyStats };
  fidelity: Fidelity | null;
  /** chars/4 of every chat request as the provider received it, summed over the session */
  inputTokensTotal: number;
  /** inputTokensTotal + replay.summarizerInputTokens: what the session cost the model, compaction included */
  inputTokensWithSummarizer: number;
  /** who compacted ("peer": the extension at `peerExtension`) */
  compactionMode: "host" | "checkpoint" | "peer" | "host-alone";
  /** the peer extension's entry file, when compactionMode is "peer" */
  peerExtension?: string;
  /** every chat request billed under each caching model (src/agents/prompt-cost/, cost-probe.ts) */
  cost: CostReport;
  /** natural compactions (the final /compact not counted) */
  compactionCount: number;
  offload: OffloadReport;
  /** recall of the archive of compacted context (src/replay/recall.ts, docs/archive.md) */
  recall: RecallReport | null;
  /** smart trim (src/replay/trim-metrics.ts) */
  trim: TrimReport | null;
  /** the knowledge layer (src/replay/knowledge-metrics.ts) */
  knowledge: KnowledgeReport | null;
  /** the context breakdown against each request's measured size (src/replay/breakdown-metrics.ts) */
  breakdown: BreakdownReport;
  warnings: string[];
  errors: string[];
}
