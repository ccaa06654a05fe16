/**
 * The archive as the context manager's engine uses it: archive the compacted span in
 * the compaction hook, answer `context_search`, and build the automatic recall of the
 * `context` event. Every function is total (failures are logged once per kind and the
 * agent goes on without the archive).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";
import { userText } from "../context-capture.js";
import { userOrigin } from "../messages/host-provenance.js";
import type { ContextManagerConfig } from "../context-manager-config.js";
import { consoleWarnLogger, type OnceLogger, type WarnLogger } from "../../infra/log-once.js";
import { globalSingleton } from "../../infra/global-singleton.js";
import { sessionLog } from "./session-log.js";
import { type AppendResult, archiveFor, type SessionArchive } from "../archive/archive.js";
import { RECALL_CUSTOM_TYPE } from "../archive/recall-markers.js";
import { GAUGE_CUSTOM_TYPE } from "../context-gauge.js";
import { renderRecallBlock, renderSearchResult } from "../archive/recall-render.js";
import { segmentsOf, stripInjectedBlocks } from "../archive/segments.js";
import { stashedTextResolver } from "../archive/stashed-text.js";
import { visibleText } from "../archive/recall-visible.js";

/** What the archive needs from an engine (ContextManagerEngine satisfies it). */
export interface ArchiveHost {
  readonly runtime: { stateDir: string; sessionKey: string; config: ContextManagerConfig; contextWindowTokens: number; logger?: WarnLogger };
  readonly identity: { sessionId: string };
  readonly compactions: number;
}

/** Once per failure kind per session across runs: the engine's own session log. */
function logOf(host: ArchiveHost): OnceLogger {
  return sessionLog(host.runtime.logger ?? consoleWarnLogger, host.runtime.stateDir, host.runtime.sessionKey).once;
}

function archiveOf(host: ArchiveHost): SessionArchive {
  const c = host.runtime.config;
  return archiveFor(host.runtime.stateDir, host.runtime.sessionKey, {
    maxSegments: c.archiveMaxSegments,
    retentionDays: c.archiveRetentionDays,
  });
}

/**
 * session_before_compact, after the compaction checkpoint: archives the messages pi is
 * about to summarize (the split turn's prefix included). Null when off or failed.
 */
export async function archiveCompactedSpan(host: ArchiveHost, event: SessionBeforeCompactEvent): Promise<AppendResult | null> {
  const p = event.preparation;
  return archiveMessages(host, [...p.messagesToSummarize, ...p.turnPrefixMessages]);
}

/** Session start: scan the archive's ids in the background so the first compaction's awaited append stays cheap. */
export function prefetchArchive(host: ArchiveHost): void {
  if (host.runtime.config.archive) void archiveOf(host).prefetchIds();
}

/** Archives `messages` (already archived ones are deduplicated by content). Null when off or failed. */
export async function archiveMessages(host: ArchiveHost, messages: readonly AgentMessage[]): Promise<AppendResult | null> {
  if (!host.runtime.config.archive) return null;
  const log = logOf(host);
  try {
    const drafts = segmentsOf(messages, stashedTextResolver(host.runtime.stateDir));
    const result = await archiveOf(host).append(drafts, { session: host.identity.sessionId, compaction: host.compactions + 1 });
    log.clear("archive write");
    return result;
  } catch (e) {
    log.fail("archive write", e);
    return null;
  }
}

export interface SearchParams {
  query: string;
  limit?: number;
  maxChars?: number;
}

export const SEARCH_LIMITS = { limit: { default: 5, max: 20 }, maxChars: { default: 4000, min: 200, max: 20_000 } } as const;

const clampInt = (v: unknown, def: number, min: number, max: number): number =>
  typeof v === "number" && Number.isFinite(v) ? Math.max(min, Math.min(max, Math.floor(v))) : def;

/** The `context_search` tool: ranked archived fragments as bounded, quoted text. */
export async function searchForAgent(host: ArchiveHost, params: SearchParams): Promise<string> {
  const log = logOf(host);
  const query = typeof params.query === "string" ? params.query : "";
  if (!query.trim()) return "Give a query: words, identifiers or file names to look for in the compacted context.";
  const limit = clampInt(params.limit, SEARCH_LIMITS.limit.default, 1, SEARCH_LIMITS.limit.max);
  const maxChars = clampInt(params.maxChars, SEARCH_LIMITS.maxChars.default, SEARCH_LIMITS.maxChars.min, SEARCH_LIMITS.maxChars.max);
  try {
    const archive = archiveOf(host);
    await archive.refresh();
    log.clear("archive search");
    return renderSearchResult(query, archive.search(query, { limit }), archive.size, maxChars);
  } catch (e) {
    log.fail("archive search", e);
    return "The archive could not be read right now.";
  }
}

// --- automatic recall -------------------------------------------------------------------

/** User requests the automatic query is built from (the latest ones). */
export const RECALL_QUERY_REQUESTS = 3;
/** Fragments considered for the block (the cap decides how many are shown). */
const RECALL_CANDIDATES = 8;
const RECALL_WINDOW_SHARE = 0.1;

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

/** The cap of the automatic block: min(recallMaxTokens, 10% of the window). */
export function recallCapTokens(config: Pick<ContextManagerConfig, "recallMaxTokens">, contextWindow: number): number {
  const share = contextWindow > 0 ? Math.floor(contextWindow * RECALL_WINDOW_SHARE) : config.recallMaxTokens;
  return Math.max(0, Math.min(config.recallMaxTokens, share));
}

/**
 * The automatic recall's query: the latest RECALL_QUERY_REQUESTS user requests (latest
 * first), with where they are in `messages` (they are not "visible context") and the
 * index of the latest one (-1: none).
 */
export function recallQueryOf(messages: readonly AgentMessage[], pending = ""): { query: string; requestAt: Set<number>; lastUser: number } {
  let lastUser = -1;
  // a request the host keeps out of `messages` until the reply (OpenClaw 2026.9's fenced turn) comes first
  const requests: string[] = pending ? [pending.slice(0, 2000)] : [];
  const requestAt = new Set<number>();
  for (let i = messages.length - 1; i > 0 && requests.length < RECALL_QUERY_REQUESTS; i--) {
    const m = messages[i]!;
    // the user's requests only: a heartbeat or another session's message is no query of theirs
    const text = userOrigin(m) === "user" ? stripInjectedBlocks(userText(m)).trim() : "";
    if (!text) continue;
    if (lastUser < 0) lastUser = i;
    requests.push(text.slice(0, 2000));
    requestAt.add(i);
  }
  return { query: requests.join("\n"), requestAt, lastUser };
}

function beforeTrailingGauge(messages: readonly AgentMessage[]): number {
  let at = messages.length;
  while (at > 0 && messages[at - 1]?.role === "custom" && (messages[at - 1] as { customType?: string }).customType === GAUGE_CUSTOM_TYPE) at--;
  return at;
}

const isRecallMessage = (m: AgentMessage): boolean =>
  m?.role === "custom" && (m as { customType?: string }).customType === RECALL_CUSTOM_TYPE;

/**
 * `context` event, after a compaction (the history starts with pi's compaction summary):
 * searches the archive with the latest user requests and puts one recall block right
 * before the latest user message. An earlier block is removed first, so blocks are
 * replaced, never stacked. Returns null when nothing changes. Never loads or indexes the
 * archive on this path: a cold or not yet fully indexed archive gets that work started in
 * the background and the call goes without.
 */
export function withAutoRecall(host: ArchiveHost, messages: AgentMessage[], contextWindow: number, pendingRequest?: string): AutoRecall | null {
  const cfg = host.runtime.config;
  // off: no block was ever injected, so there is nothing to remove either (no scan)
  if (!cfg.archive || !cfg.autoRecall) return null;
  const hadBlock = messages.some(isRecallMessage);
  const base = hadBlock ? messages.filter((m) => !isRecallMessage(m)) : messages;
  const unchanged = hadBlock ? { messages: base, tokens: 0 } : null;
  if (base[0]?.role !== "compactionSummary") return unchanged;
  try {
    const archive = archiveOf(host);
    if (!archive.isReady) {
      void archive
        .load()
        .then(() => archive.indexInBackground())
        .catch((e) => logOf(host).fail("archive load", e));
      return unchanged;
    }
    const pending = pendingRequest ? stripInjectedBlocks(pendingRequest).trim() : "";
    const { query, requestAt, lastUser } = recallQueryOf(base, pending);
    // a pending request follows the messages: the block goes last (before a trailing gauge line)
    const at = pending ? beforeTrailingGauge(base) : lastUser;
    if (at < 0 || !query) return unchanged;
    const cap = recallCapTokens(cfg, contextWindow || host.runtime.contextWindowTokens);
    const key = `${archive.size}\0${cap}\0${cfg.recallMinScore}\0${query}`;
    let cached = recallCache().get(host);
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
      recallCache().set(host, cached);
    }
    if (!cached.block) return unchanged;
    return { messages: [...base.slice(0, at), cached.block, ...base.slice(at)], tokens: cached.tokens };
  } catch (e) {
    logOf(host).fail("auto recall", e);
    return unchanged;
  }
}
