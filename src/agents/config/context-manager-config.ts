/** Configuration (OpenClaw: `agents.defaults.contextManager`): a partial object validated key by key. */

/** A number key's default and the range a config may set (whole numbers unless `integer` is false). */
const num = (value: number, min: number, max: number, integer = true) => ({ value, min, max, integer });
const oneOf = <const V extends readonly string[]>(value: V[number], values: V) => ({ value, values });

/** Every key with its default (and a number's range); the config's type is read from it (stateDir added). */
const KEYS = {
  /** master switch; when false no factory is registered */
  enabled: true,
  /** utilization (0..1) at which the gauge line is injected */
  gaugeThreshold: num(0.7, 0, 1, false),
  /** utilization (0..1) at which an auto-80pct checkpoint is written */
  checkpointThreshold: num(0.8, 0, 1, false),
  /** an auto checkpoint is skipped when input_tokens moved less than this fraction */
  dedupDelta: num(0.05, 0, 1, false),
  /** checkpoints kept per session key */
  retention: num(5, 1, 10_000),
  /** hard cap of the restore block, in tokens (chars/4) */
  restoreMaxTokens: num(800, 100, 100_000),
  maxDecisions: num(50, 1, 10_000),
  maxExchanges: num(8, 1, 1_000),
  maxTools: num(100, 1, 10_000),
  maxFiles: num(100, 1, 10_000),
  maxOpenItems: num(20, 1, 10_000),
  maxLearnings: num(20, 1, 10_000),
  maxErrors: num(20, 1, 10_000),
  /** register the agent-facing `context_note` tool (decisions / open items / learnings) */
  noteTool: false,
  /** large tool outputs off the prompt: stash + handle + preview, and the artifact_fetch tool (docs/artifacts.md) */
  offload: true,
  /** aged offload: a result followed by at least this many assistant turns is shown as handle + preview (0: never) */
  offloadAgeTurns: num(4, 0, 10_000),
  /** … when its text is longer than this many chars */
  offloadAgedMinChars: num(1_200, 1_200, 100_000_000),
  /** head + tail preview of an aged result, in chars */
  offloadAgedPreviewChars: num(300, 0, 800),
  /** aged offload of a succeeded call's long string arguments (a write's content, an edit's texts), same age and size */
  offloadAgeToolArgs: true,
  /** log what the guards swallowed and the quiet expected paths (also OPENCLAW_CONTEXT_DEBUG=1) */
  debug: false,
  /** archive the compacted span at every compaction (docs/archive.md) */
  archive: true,
  /** most segments kept per session key; the oldest are evicted */
  archiveMaxSegments: num(20_000, 100, 1_000_000),
  /** archived segments older than this many days are dropped */
  archiveRetentionDays: num(30, 1, 3650),
  /** register the agent-facing `context_search` tool over the archive */
  searchTool: true,
  /** after a compaction, inject matching archive fragments before the latest user message */
  autoRecall: false,
  /** hard cap of the automatic recall block, in tokens; also never above 10% of the window */
  recallMaxTokens: num(1000, 50, 100_000),
  /** least score of an auto-recalled fragment: BM25 x recency, in idfs of a term found in one segment */
  recallMinScore: num(4, 0, 1000, false),
  /** memory the process-wide caches may hold, in MiB, shared as engine/cache-budget.ts says (docs/configuration.md) */
  cacheMemoryMiB: num(256, 16, 65_536),
  /** who compacts: "host" (its model summary + our restore block) or "checkpoint" (our summary, no model call; issue 25) */
  compaction: oneOf("host", ["host", "checkpoint"]),
  /** hard cap of the checkpoint compaction summary, in tokens (chars/4) */
  compactionSummaryMaxTokens: num(2000, 300, 100_000),
  /** "host" mode: a host summary that fails or runs longer than this is replaced by the checkpoint summary where the route allows */
  compactionDeadlineMs: num(60_000, 1_000, 3_600_000),
  /** smart trim (issue 26): drop low-value messages from a request near the window instead of letting the host compact (docs/archive.md#smart-trim) */
  smartTrim: false,
  /** the host's compaction reserve: safeLimit = window - this - the recall cap (pi's default 16,384) */
  smartTrimReserveTokens: num(16_384, 0, 10_000_000),
  /** typed knowledge records from each checkpoint's facts, searched beside the segments */
  knowledge: true,
  /** context_search also searches the other keys of the same agent (results labelled with their key) */
  crossSession: false,
  /** whose prompt-cache rules our prompt changes follow (src/agents/cache/; "auto": from the host's model) */
  promptCache: oneOf("auto", ["auto", "anthropic", "openai", "none"]),
  /** how long a cache entry lives ("auto": what the host requests; pi: PI_CACHE_RETENTION, OpenClaw: its retention) */
  promptCacheTtl: oneOf("auto", ["auto", "5m", "1h"]),
  /** aged offload's age under Anthropic's breakpoint rules, while the swap still lies within the provider's lookback (0: offloadAgeTurns) */
  promptCacheAgeTurns: num(1, 0, 10_000),
};

type ValueOf<K> = K extends { min: number } ? number : K extends { values: readonly (infer V)[] } ? V : K;
type Defaults = { [K in keyof typeof KEYS]: ValueOf<(typeof KEYS)[K]> };
const DEFAULTS = Object.fromEntries(Object.entries(KEYS).map(([k, v]) => [k, typeof v === "object" ? v.value : v])) as Defaults;

export type ContextManagerConfig = Defaults & {
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

/** Keys no longer read (docs/configuration.md#retired-keys): ignored with one process warning per key. */
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

export function resolveContextManagerConfig(input: unknown = {}): ContextManagerConfig {
  if (input === undefined || input === null) return { ...DEFAULT_CONTEXT_MANAGER_CONFIG };
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new ContextManagerConfigError("(root)", `expected an object, got ${describe(input)}`);
  }
  const out: ContextManagerConfig = { ...DEFAULT_CONTEXT_MANAGER_CONFIG };
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (value === undefined) continue;
    const rule = Object.hasOwn(KEYS, key) ? KEYS[key as keyof typeof KEYS] : undefined;
    if (RETIRED_KEYS.has(key)) {
      const w = `context-manager: config key "${key}" is no longer read and is ignored (${RETIRED_KEYS.get(key)})`;
      if (!warnedRetired.has(key)) process.emitWarning(w, { code: "OPENCLAW_CONTEXT_RETIRED_KEY" });
      warnedRetired.add(key);
      continue;
    }
    const fail = (what: string): never => {
      throw new ContextManagerConfigError(key, what);
    };
    if (typeof rule === "boolean") {
      if (typeof value !== "boolean") fail(`expected true or false, got ${describe(value)}`);
    } else if (typeof rule === "object" && "min" in rule) {
      if (typeof value !== "number" || !Number.isFinite(value)) fail(`expected a number, got ${describe(value)}`);
      const n = value as number;
      if (rule.integer && !Number.isInteger(n)) fail(`expected a whole number, got ${n}`);
      if (n < rule.min || n > rule.max) fail(`expected ${rule.min}..${rule.max}, got ${n}`);
    } else if (key === "stateDir") {
      if (typeof value !== "string" || value.trim() === "" || value.includes("\0")) {
        fail(`expected a non-empty path, got ${describe(value)}`);
      }
    } else if (rule !== undefined) {
      if (typeof value !== "string" || !(rule.values as readonly string[]).includes(value)) {
        const quoted = rule.values.map((v) => `"${v}"`);
        const what = quoted.length === 2 ? quoted.join(" or ") : `one of ${quoted.join(", ")}`;
        fail(`expected ${what}, got ${describe(value)}`);
      }
    } else fail("unknown key");
    (out as unknown as Record<string, unknown>)[key] = value;
  }
  const { gaugeThreshold: g, checkpointThreshold: c } = out;
  if (g > c) throw new ContextManagerConfigError("gaugeThreshold", `must not exceed checkpointThreshold (${g} > ${c})`);
  return out;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}
