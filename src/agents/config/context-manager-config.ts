/**
 * Configuration of the context manager (OpenClaw: `agents.defaults.contextManager`).
 * Every key has a default; `resolveContextManagerConfig` validates a partial
 * object and throws a `ContextManagerConfigError` naming the offending key.
 */

export type PromptCacheSetting = "auto" | "anthropic" | "openai" | "none";
export const PROMPT_CACHE_SETTINGS: readonly PromptCacheSetting[] = ["auto", "anthropic", "openai", "none"];
export type PromptCacheTtlSetting = "auto" | "5m" | "1h";
export const PROMPT_CACHE_TTL_SETTINGS: readonly PromptCacheTtlSetting[] = ["auto", "5m", "1h"];

export type CompactionMode = "host" | "checkpoint";
export const COMPACTION_MODES: readonly CompactionMode[] = ["host", "checkpoint"];

/** Every key with its default; the config's type is read from it (stateDir, the one key without a default, added). */
const DEFAULTS = {
  /** master switch; when false no factory is registered */
  enabled: true,
  /** utilization (0..1) at which the gauge line is injected */
  gaugeThreshold: 0.7,
  /** utilization (0..1) at which an auto-80pct checkpoint is written */
  checkpointThreshold: 0.8,
  /** an auto checkpoint is skipped when input_tokens moved less than this fraction */
  dedupDelta: 0.05,
  /** checkpoints kept per session key */
  retention: 5,
  /** hard cap of the restore block, in tokens (chars/4) */
  restoreMaxTokens: 800,
  maxDecisions: 50,
  maxExchanges: 8,
  maxTools: 100,
  maxFiles: 100,
  maxOpenItems: 20,
  maxLearnings: 20,
  maxErrors: 20,
  /** register the agent-facing `context_note` tool (decisions / open items / learnings) */
  noteTool: false,
  /** large tool outputs off the prompt: stash + handle + preview, and the artifact_fetch tool (docs/artifacts.md) */
  offload: true,
  /** aged offload: a result followed by at least this many assistant turns is shown as handle + preview (0: never) */
  offloadAgeTurns: 4,
  /** … when its text is longer than this many chars */
  offloadAgedMinChars: 1_200,
  /** head + tail preview of an aged result, in chars */
  offloadAgedPreviewChars: 300,
  /** aged offload of a succeeded call's long string arguments (a write's content, an edit's texts), same age and size */
  offloadAgeToolArgs: true,
  /** log what the guards swallowed and the quiet expected paths (also OPENCLAW_CONTEXT_DEBUG=1) */
  debug: false,
  /** archive the compacted span at every compaction (docs/archive.md) */
  archive: true,
  /** most segments kept per session key; the oldest are evicted */
  archiveMaxSegments: 20_000,
  /** archived segments older than this many days are dropped */
  archiveRetentionDays: 30,
  /** register the agent-facing `context_search` tool over the archive */
  searchTool: true,
  /** after a compaction, inject matching archive fragments before the latest user message */
  autoRecall: false,
  /** hard cap of the automatic recall block, in tokens; also never above 10% of the window */
  recallMaxTokens: 1000,
  /**
   * minimum score of a fragment the automatic recall injects: BM25 x recency over the query
   * terms not visible in the context, in units of the idf of a term found in one segment
   */
  recallMinScore: 4,
  /**
   * memory the process-wide caches may hold, in MiB (docs/configuration.md#memory-a-busy-gateway):
   * loaded archives 38%, session slots 35%, per-key Sessions 18%, archive tails 5%,
   * knowledge indexes 3%, knowledge followers 1% (engine/cache-budget.ts)
   */
  cacheMemoryMiB: 256,
  /** who compacts: "host" (its model summary + our restore block) or "checkpoint" (our summary, no model call; issue 25) */
  compaction: "host" as CompactionMode,
  /** hard cap of the checkpoint compaction summary, in tokens (chars/4) */
  compactionSummaryMaxTokens: 2000,
  /** "host" mode: a host summary that fails or runs longer than this is replaced by the checkpoint summary where the route allows */
  compactionDeadlineMs: 60_000,
  /** smart trim (issue 26): drop low-value messages from a request near the window instead of letting the host compact (docs/archive.md#smart-trim) */
  smartTrim: false,
  /** the host's compaction reserve: safeLimit = window - this - the recall cap (pi's default 16,384) */
  smartTrimReserveTokens: 16_384,
  /** typed knowledge records from each checkpoint's facts, searched beside the segments */
  knowledge: true,
  /** context_search also searches the other keys of the same agent (results labelled with their key) */
  crossSession: false,
  /** whose prompt-cache rules our prompt changes follow (src/agents/cache/; "auto": from the host's model) */
  promptCache: "auto" as PromptCacheSetting,
  /** how long a cache entry lives ("auto": what the host requests; pi: PI_CACHE_RETENTION, OpenClaw: its retention) */
  promptCacheTtl: "auto" as PromptCacheTtlSetting,
  /** aged offload's age under Anthropic's breakpoint rules, while the swap still lies within the provider's lookback (0: offloadAgeTurns) */
  promptCacheAgeTurns: 1,
};

export type ContextManagerConfig = typeof DEFAULTS & {
  /** override of `<OPENCLAW_STATE_DIR or ~/.openclaw>` */
  stateDir?: string;
};

export const DEFAULT_CONTEXT_MANAGER_CONFIG: Readonly<ContextManagerConfig> = Object.freeze({ ...DEFAULTS });

export class ContextManagerConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`agents.defaults.contextManager.${key}: ${message}`);
    this.name = "ContextManagerConfigError";
  }
}

type NumberRule = { min: number; max: number; integer: boolean };

const NUMBER_RULES: Record<string, NumberRule> = {
  gaugeThreshold: { min: 0, max: 1, integer: false },
  checkpointThreshold: { min: 0, max: 1, integer: false },
  dedupDelta: { min: 0, max: 1, integer: false },
  retention: { min: 1, max: 10_000, integer: true },
  restoreMaxTokens: { min: 100, max: 100_000, integer: true },
  maxDecisions: { min: 1, max: 10_000, integer: true },
  maxExchanges: { min: 1, max: 1_000, integer: true },
  maxTools: { min: 1, max: 10_000, integer: true },
  maxFiles: { min: 1, max: 10_000, integer: true },
  maxOpenItems: { min: 1, max: 10_000, integer: true },
  maxLearnings: { min: 1, max: 10_000, integer: true },
  maxErrors: { min: 1, max: 10_000, integer: true },
  offloadAgeTurns: { min: 0, max: 10_000, integer: true },
  offloadAgedMinChars: { min: 1_200, max: 100_000_000, integer: true },
  offloadAgedPreviewChars: { min: 0, max: 800, integer: true },
  archiveMaxSegments: { min: 100, max: 1_000_000, integer: true },
  archiveRetentionDays: { min: 1, max: 3650, integer: true },
  recallMaxTokens: { min: 50, max: 100_000, integer: true },
  recallMinScore: { min: 0, max: 1000, integer: false },
  cacheMemoryMiB: { min: 16, max: 65_536, integer: true },
  compactionSummaryMaxTokens: { min: 300, max: 100_000, integer: true },
  compactionDeadlineMs: { min: 1_000, max: 3_600_000, integer: true },
  smartTrimReserveTokens: { min: 0, max: 10_000_000, integer: true },
  promptCacheAgeTurns: { min: 0, max: 10_000, integer: true },
};

/** the switches: the keys whose default is true or false */
const isBooleanKey = (key: string): boolean => Object.hasOwn(DEFAULTS, key) && typeof (DEFAULTS as Record<string, unknown>)[key] === "boolean";

/**
 * Keys no longer read (docs/configuration.md#retired-keys): a config that sets one still loads,
 * the key ignored, with one process warning per key.
 */
const RETIRED_KEYS: ReadonlyMap<string, string> = new Map([
  ["smartTrimMarker", "smart trim always marks where it trimmed"],
  ["smartTrimHeadroom", "smart trim always goes 60% below its limit"],
  ["smartTrimKeepRecent", "smart trim always keeps the last 6 user/assistant messages"],
  ["offloadMinChars", "a fresh stash takes results over 8,000 chars (seed 004)"],
  ["offloadMinLines", "a fresh stash takes results over 200 lines (seed 004)"],
  ["offloadStructuredMinChars", "a fresh stash takes JSON / HTML results over 4,000 chars"],
  ["offloadPreviewChars", "a fresh stash leaves a 600-char preview"],
  ["fetchMaxChars", "artifact_fetch's maxChars defaults to 8,000, as its description says"],
]);
const warnedRetired = new Set<string>();

function warnRetired(key: string): void {
  if (warnedRetired.has(key)) return;
  warnedRetired.add(key);
  process.emitWarning(`context-manager: config key "${key}" is no longer read and is ignored (${RETIRED_KEYS.get(key)})`, { code: "OPENCLAW_CONTEXT_RETIRED_KEY" });
}

export function resolveContextManagerConfig(input: unknown = {}): ContextManagerConfig {
  if (input === undefined || input === null) return { ...DEFAULT_CONTEXT_MANAGER_CONFIG };
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new ContextManagerConfigError("(root)", `expected an object, got ${describe(input)}`);
  }
  const out: ContextManagerConfig = { ...DEFAULT_CONTEXT_MANAGER_CONFIG };
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (RETIRED_KEYS.has(key)) warnRetired(key);
    else if (isBooleanKey(key)) {
      if (typeof value !== "boolean") throw new ContextManagerConfigError(key, `expected true or false, got ${describe(value)}`);
      (out as unknown as Record<string, unknown>)[key] = value;
    } else if (key in NUMBER_RULES) {
      const rule = NUMBER_RULES[key]!;
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw new ContextManagerConfigError(key, `expected a number, got ${describe(value)}`);
      }
      if (rule.integer && !Number.isInteger(value)) throw new ContextManagerConfigError(key, `expected a whole number, got ${value}`);
      if (value < rule.min || value > rule.max) {
        throw new ContextManagerConfigError(key, `expected ${rule.min}..${rule.max}, got ${value}`);
      }
      (out as unknown as Record<string, unknown>)[key] = value;
    } else if (key === "stateDir") {
      if (typeof value !== "string" || value.trim() === "" || value.includes("\0")) {
        throw new ContextManagerConfigError(key, `expected a non-empty path, got ${describe(value)}`);
      }
      out.stateDir = value;
    } else if (key === "compaction") {
      if (typeof value !== "string" || !(COMPACTION_MODES as readonly string[]).includes(value)) {
        throw new ContextManagerConfigError(key, `expected "host" or "checkpoint", got ${describe(value)}`);
      }
      out.compaction = value as CompactionMode;
    } else if (key === "promptCache" || key === "promptCacheTtl") {
      const allowed: readonly string[] = key === "promptCache" ? PROMPT_CACHE_SETTINGS : PROMPT_CACHE_TTL_SETTINGS;
      if (typeof value !== "string" || !allowed.includes(value)) {
        throw new ContextManagerConfigError(key, `expected one of ${allowed.map((v) => `"${v}"`).join(", ")}, got ${describe(value)}`);
      }
      (out as unknown as Record<string, unknown>)[key] = value;
    } else {
      throw new ContextManagerConfigError(key, "unknown key");
    }
  }
  if (out.gaugeThreshold > out.checkpointThreshold) {
    throw new ContextManagerConfigError(
      "gaugeThreshold",
      `must not exceed checkpointThreshold (${out.gaugeThreshold} > ${out.checkpointThreshold})`,
    );
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}
