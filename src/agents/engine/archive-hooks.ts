/**
 * The archive as the context manager's engine uses it: archive the compacted span in
 * the compaction hook, answer `context_search`, and build the automatic recall of the
 * `context` event. Every function is total (failures are logged once per kind and the
 * agent goes on without the archive).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";
import type { ContextManagerConfig } from "../context-manager-config.js";
import { consoleWarnLogger, type OnceLogger, type WarnLogger } from "../../infra/log-once.js";
import { globalSingleton } from "../../infra/global-singleton.js";
import { sessionLog } from "./session-log.js";
import type { ContextManagerEngine } from "./context-manager-engine.js";
import { type AppendResult, archiveFor, type SessionArchive } from "../archive/archive.js";
import { customTypeOf, GAUGE_CUSTOM_TYPE, RECALL_CUSTOM_TYPE } from "../messages/custom-types.js";
import { renderRecallBlock, renderSearchResult } from "../archive/recall-render.js";
import { segmentsOf, stripInjectedBlocks } from "../archive/segments.js";
import { clampInt, SEARCH_LIMITS, type SearchParams } from "../archive/search-params.js";
import { recallCapTokens, recallQueryOf } from "../archive/recall-query.js";
import { stashedTextResolver } from "../archive/stashed-text.js";
import { visibleText } from "../archive/recall-visible.js";

/** Where a session's archive is, and who logs its failures (an engine, or a tool with no engine). */
export interface ArchiveLocation {
  stateDir: string;
  /** the host's key as given (the archive maps it to its directory) */
  sessionKey: string;
  config: ContextManagerConfig;
  logger?: WarnLogger;
}

const locationOf = (engine: ContextManagerEngine): ArchiveLocation => engine.runtime;

/** Once per failure kind per session across runs: the engine's own session log. */
function logOf(at: ArchiveLocation): OnceLogger {
  return sessionLog(at.logger ?? consoleWarnLogger, at.stateDir, at.sessionKey).once;
}

function archiveOf(at: ArchiveLocation): SessionArchive {
  const c = at.config;
  return archiveFor(at.stateDir, at.sessionKey, {
    maxSegments: c.archiveMaxSegments,
    retentionDays: c.archiveRetentionDays,
  });
}

/**
 * session_before_compact, after the compaction checkpoint: archives the messages pi is
 * about to summarize (the split turn's prefix included). Null when off or failed.
 */
export async function archiveCompactedSpan(engine: ContextManagerEngine, event: SessionBeforeCompactEvent): Promise<AppendResult | null> {
  const p = event.preparation;
  return archiveMessages(engine, [...p.messagesToSummarize, ...p.turnPrefixMessages]);
}

/** Session start: scan the archive's ids in the background so the first compaction's awaited append stays cheap. */
export function prefetchArchive(engine: ContextManagerEngine): void {
  if (engine.runtime.config.archive) void archiveOf(locationOf(engine)).prefetchIds();
}

/** Archives `messages` (already archived ones are deduplicated by content). Null when off or failed. */
export async function archiveMessages(engine: ContextManagerEngine, messages: readonly AgentMessage[]): Promise<AppendResult | null> {
  if (!engine.runtime.config.archive) return null;
  const log = logOf(locationOf(engine));
  try {
    const drafts = segmentsOf(messages, stashedTextResolver(engine.runtime.stateDir));
    const result = await archiveOf(locationOf(engine)).append(drafts, { session: engine.identity.sessionId, compaction: engine.compactions + 1 });
    log.clear("archive write");
    return result;
  } catch (e) {
    log.fail("archive write", e);
    return null;
  }
}

/** The `context_search` tool: ranked archived fragments as bounded, quoted text. */
export async function searchForAgent(at: ArchiveLocation, params: SearchParams): Promise<string> {
  const log = logOf(at);
  const query = typeof params.query === "string" ? params.query : "";
  if (!query.trim()) return "Give a query: words, identifiers or file names to look for in the compacted context.";
  const limit = clampInt(params.limit, SEARCH_LIMITS.limit.default, 1, SEARCH_LIMITS.limit.max);
  const maxChars = clampInt(params.maxChars, SEARCH_LIMITS.maxChars.default, SEARCH_LIMITS.maxChars.min, SEARCH_LIMITS.maxChars.max);
  try {
    const archive = archiveOf(at);
    await archive.refresh();
    log.clear("archive search");
    return renderSearchResult(query, archive.search(query, { limit }), archive.size, maxChars);
  } catch (e) {
    log.fail("archive search", e);
    return "The archive could not be read right now.";
  }
}

// --- automatic recall -------------------------------------------------------------------

/** Fragments considered for the block (the cap decides how many are shown). */
const RECALL_CANDIDATES = 8;

interface RecallCache {
  key: string;
  block: AgentMessage | null;
  tokens: number;
}
const recallCache = (): WeakMap<object, RecallCache> => globalSingleton("openclaw.contextManager.recallCache", () => new WeakMap());

export interface AutoRecall {
  messages: AgentMessage[];
  /** tokens of the injected block (0: none) */
  tokens: number;
}

function beforeTrailingGauge(messages: readonly AgentMessage[]): number {
  let at = messages.length;
  while (at > 0 && customTypeOf(messages[at - 1]!) === GAUGE_CUSTOM_TYPE) at--;
  return at;
}

const isRecallMessage = (m: AgentMessage): boolean => customTypeOf(m) === RECALL_CUSTOM_TYPE;

/**
 * `context` event, after a compaction (the history starts with pi's compaction summary):
 * searches the archive with the latest user requests and puts one recall block right
 * before the latest user message. An earlier block is removed first, so blocks are
 * replaced, never stacked. Returns null when nothing changes. Never loads or indexes the
 * archive on this path: a cold or not yet fully indexed archive gets that work started in
 * the background and the call goes without.
 */
export function withAutoRecall(engine: ContextManagerEngine, messages: AgentMessage[], contextWindow: number, pendingRequest?: string): AutoRecall | null {
  const cfg = engine.runtime.config;
  // off: no block was ever injected, so there is nothing to remove either (no scan)
  if (!cfg.archive || !cfg.autoRecall) return null;
  const hadBlock = messages.some(isRecallMessage);
  const base = hadBlock ? messages.filter((m) => !isRecallMessage(m)) : messages;
  const unchanged = hadBlock ? { messages: base, tokens: 0 } : null;
  if (base[0]?.role !== "compactionSummary") return unchanged;
  try {
    const archive = archiveOf(locationOf(engine));
    if (!archive.isReady) {
      void archive
        .load()
        .then(() => archive.indexInBackground())
        .catch((e) => logOf(locationOf(engine)).fail("archive load", e));
      return unchanged;
    }
    const pending = pendingRequest ? stripInjectedBlocks(pendingRequest).trim() : "";
    const { query, requestAt, lastUser } = recallQueryOf(base, pending);
    // a pending request follows the messages: the block goes last (before a trailing gauge line)
    const at = pending ? beforeTrailingGauge(base) : lastUser;
    if (at < 0 || !query) return unchanged;
    const cap = recallCapTokens(cfg, contextWindow || engine.runtime.contextWindowTokens);
    const key = `${archive.size}\0${cap}\0${cfg.recallMinScore}\0${query}`;
    let cached = recallCache().get(engine);
    if (!cached || cached.key !== key) {
      // only what the agent cannot see: query terms present in its context are left out
      const visible = visibleText(base, requestAt);
      const minScore = cfg.recallMinScore * archive.scoreUnit();
      const hits = archive.search(query, { limit: RECALL_CANDIDATES, minScore, skipTerm: (t) => visible.includes(t) });
      const rendered = renderRecallBlock(hits, cap);
      cached = {
        key,
        tokens: rendered.tokens,
        block: rendered.text
          ? ({ role: "custom", customType: RECALL_CUSTOM_TYPE, content: rendered.text, display: false, timestamp: Date.now() } as AgentMessage)
          : null,
      };
      recallCache().set(engine, cached);
    }
    if (!cached.block) return unchanged;
    return { messages: [...base.slice(0, at), cached.block, ...base.slice(at)], tokens: cached.tokens };
  } catch (e) {
    logOf(locationOf(engine)).fail("auto recall", e);
    return unchanged;
  }
}
