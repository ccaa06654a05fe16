/**
 * One session key's memory for the process, weighed as one (cache-budget.ts). Its caches are read
 * again from disk in O(new messages) after a shed or an eviction; `lasting` survives eviction.
 */
import { AgedOffload } from "../artifacts/aged-offload.js";
import type { OffloadSettings } from "../artifacts/offload.js";
import type { CallSizes } from "../breakdown/call-sizes.js";
import { CacheSession } from "../cache/cache-session.js";
import { BYTES_PER_KEY, SmartTrim } from "../trim/smart-trim.js";
import type { AgedHistory } from "./aged-history.js";
import type { CompactionOutcome } from "../checkpoint/compaction-outcome.js";
import type { SessionStash } from "../artifacts/session-stashes.js";
import { OnceLogger, type WarnLogger } from "../../infra/log-once.js";
import { debugLog } from "../../infra/debug-log.js";

export interface SessionLog {
  /** the engine's logger: fail(kind) logs once until clear(kind) */
  once: OnceLogger;
  /** sink for ContextState: drops a "<kind> failed" line already logged and not yet recovered */
  stateSink: WarnLogger;
  /** the state files were written again: their failure kinds may log anew */
  stateRecovered(): void;
}

/** The aged-offload memory under one set of offload settings, and whether it has seen the session's history. */
export interface AgedMemory {
  settings: string;
  offload: AgedOffload;
  /** it has seen the session's history (a session start, or its first request) */
  warmed: boolean;
}

/**
 * Whether `context_search` joined a session's tools: a tool that joins rewrites the cached prompt,
 * so it joins once, at a run start, and stays (docs/design.md#context_search-joins-when-the-archive-holds-something).
 */
export class OurToolsState {
  searchJoined = false;
  /** the tool list changed at this run start: its first request rewrites the prompt */
  private toolsChanged = false;

  /** The run start's decision: whether context_search joins now (sticky: never taken off again). */
  decideSearchJoin(archiveHolds: boolean): boolean {
    if (this.searchJoined || !archiveHolds) return false;
    this.searchJoined = true;
    this.toolsChanged = true;
    return true;
  }

  /** Whether this request's tool list changed since the previous one (taken once). */
  takeToolsChanged(): boolean {
    const changed = this.toolsChanged;
    this.toolsChanged = false;
    return changed;
  }
}

/** A compaction the plugin made: the first `cut` messages of the history are replaced by `summary`. */
export interface OwnCompactionView {
  sessionId: string;
  cut: number;
  /** role and timestamp of the message just before the cut: the view holds only for that history */
  mark: string;
  summary: string;
  tokensBefore: number;
  checkpointId: string;
  /** ms time of the compaction: the summary's timestamp, so the gauge trusts no usage of a reply older than it */
  at: number;
}

/** What a host keeps per session id of the key (the plugin's slots): weighed, shed and evicted with the Session. */
export interface HostSlot {
  approxBytes(): number;
  /** lets go of the history it holds, keeping what reading the disk again would cost; true when it held one */
  shedHistory(): boolean;
}

const FAILURE_LINE = /^\[context-manager\] (.+?) failed \(/;

export class Session {
  /** Smart trim's sticky set, kept when the SmartTrim (MBs) is shed, so the prompt prefix stays (~160 B a message). */
  private sticky: Set<string> | undefined;
  private trim: SmartTrim | null = null;
  private agedMemory: AgedMemory | null = null;
  /**
   * What the breakdown (request-log.ts) keeps of a key: tool call sizes (else each run's first breakdown
   * sizes every call again: 2-3 ms at 2,000 messages), the gauge phrase at its reading, what requests aged.
   */
  breakdown: { calls: CallSizes | null; phrase: { text: string; tokens: number } | null; aged: AgedHistory | null } =
    { calls: null, phrase: null, aged: null };
  private logs = new WeakMap<WarnLogger, SessionLog>();
  /** the prompt-cache policy's memory (gauge anchors, request ends): a restarted process starts with none */
  cache = new CacheSession();
  /** the host's slots of this key, by the host's own id (the plugin: its scope and a session id) */
  readonly hostSlots = new Map<string, HostSlot>();
  /** what is no cache, so eviction keeps it (work in flight, outcomes, stashes) */
  readonly lasting = {
    compactionOutcomes: new Map<string, CompactionOutcome>(),
    stashes: [] as SessionStash[],
    /** the compacted spans' archive and the previous sessions' recovery, each in order (see `queued`) */
    running: new Map<"span" | "recovery", Promise<unknown>>(),
    ourTools: new Map<string, OurToolsState>(),
    ownCompaction: null as OwnCompactionView | null,
  };

  constructor(
    readonly stateDir: string,
    readonly sessionKey: string,
  ) {}

  /** One log line per failure kind across runs (a per-engine log would repeat a read-only disk every turn). */
  logFor(sink: WarnLogger): SessionLog {
    let log = this.logs.get(sink);
    if (log) return log;
    const seen = new Set<string>();
    log = {
      once: new OnceLogger(sink),
      stateSink: {
        warn(message: string) {
          const kind = FAILURE_LINE.exec(message)?.[1];
          if (kind !== undefined && seen.has(kind)) return;
          if (kind !== undefined) seen.add(kind);
          sink.warn(message);
        },
        debug: (message: string) => (sink.debug ? sink.debug(message) : debugLog(message.replace(/^\[context-manager\] /, ""))),
      },
      stateRecovered: () => seen.clear(),
    };
    this.logs.set(sink, log);
    return log;
  }

  /** Session id's context_search state, for the process (`lasting`: a joined tool stays joined; 16 ids kept). */
  ourTools(sessionId: string): OurToolsState {
    const map = this.lasting.ourTools;
    let s = map.get(sessionId);
    if (!s) {
      s = new OurToolsState();
      if (map.size >= 16) map.delete(map.keys().next().value as string);
      map.set(sessionId, s);
    }
    return s;
  }

  /** The key's SmartTrim (made on first use, or again with its sticky set after a shed). */
  smartTrim(): SmartTrim {
    if (!this.trim) {
      this.trim = new SmartTrim(this.sticky);
      this.sticky = this.trim.stickySet;
    }
    return this.trim;
  }

  /** Whether smart trim left messages out of this key's requests (they stay out of every later one). */
  get trimsMessages(): boolean {
    return this.trim ? this.trim.hasTrimmed : (this.sticky?.size ?? 0) > 0;
  }

  get heldTrim(): SmartTrim | null {
    return this.trim;
  }

  /** The key's aged-offload memory under `settings` (another settings' memory is replaced). */
  agedOffload(settings: OffloadSettings): AgedMemory {
    const id = JSON.stringify(settings);
    if (this.agedMemory?.settings !== id) {
      this.agedMemory = { settings: id, offload: new AgedOffload(settings, { stateDir: this.stateDir, sessionKey: this.sessionKey }), warmed: false };
    }
    return this.agedMemory;
  }

  /** About what the caches hold, in bytes (`lasting` is no cache: eviction cannot make room from it). */
  approxBytes(): number {
    const trim = this.trim ? this.trim.approxBytes() : 256 + (this.sticky?.size ?? 0) * BYTES_PER_KEY;
    const b = this.breakdown;
    const breakdown = (b.calls?.approxBytes() ?? 0) + (b.phrase ? 2 * b.phrase.text.length : 0) + (b.aged?.approxBytes() ?? 0);
    const cache = 512 + this.cache.anchors.length * 256 + this.cache.ends.length * 32;
    let slots = 0;
    for (const slot of this.hostSlots.values()) slots += slot.approxBytes();
    return 256 + trim + (this.agedMemory?.offload.approxBytes() ?? 0) + breakdown + cache + slots;
  }

  holdsLasting(): boolean {
    const l = this.lasting;
    return l.compactionOutcomes.size > 0 || l.stashes.length > 0 || l.running.size > 0 || l.ourTools.size > 0 || l.ownCompaction !== null;
  }

  /** Drops every cache (what eviction and a new Session would drop); `lasting` stays. */
  emptyCaches(): void {
    this.trim = null;
    this.sticky = undefined;
    this.agedMemory = null;
    this.breakdown = { calls: null, phrase: null, aged: null };
    this.cache = new CacheSession();
    this.logs = new WeakMap();
    this.hostSlots.clear();
  }

  /** Over the budget, heaviest first: slot histories, SmartTrim (its sticky set stays), aged outputs, call sizes. */
  shed(): boolean {
    let shedSlots = false;
    for (const slot of this.hostSlots.values()) shedSlots = slot.shedHistory() || shedSlots;
    if (shedSlots) return true;
    if (this.trim) {
      this.sticky = this.trim.stickySet;
      this.trim = null;
      return true;
    }
    if (!this.agedMemory && !this.breakdown.calls) return false;
    this.agedMemory = null;
    this.breakdown.calls = null;
    return true;
  }
}

/** `run` once the work queued under `key` before it settled; held there until it settles itself. */
export function queued<K, T>(queue: Map<K, Promise<unknown>>, key: K, run: () => Promise<T>): Promise<T> {
  const p: Promise<T> = (queue.get(key) ?? Promise.resolve()).then(run).finally(() => {
    if (queue.get(key) === p) queue.delete(key);
  });
  queue.set(key, p);
  return p;
}
