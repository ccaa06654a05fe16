/**
 * The Session's host-neutral API: what the hosts call for one run of a session key; every
 * compaction route enters through `beforeCompaction`. Never throws.
 */
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Checkpoint } from "../checkpoint/schema.js";
import { ARCHIVE_FILE, archiveDir, statArchive } from "../archive/store.js";
import { canonicalSessionKey } from "../../infra/session-dir.js";
import type { WarnLogger } from "../../infra/log-once.js";
import { warnSafely } from "../../infra/log-once.js";
import { type RenderedCompactionSummary, renderCompactionSummary } from "../inject/compaction-summary.js";
import type { SearchParams } from "../archive/search-params.js";
import type { NoteKind } from "../state/note-tool.js";
import { archiveCompactedSpanAfter, archiveMessages, searchForAgent } from "./archive-hooks.js";
import { offloadPatch, warmAgedOffload } from "./offload-hooks.js";
import { type CompactionInput, compactedSpanOf } from "./compaction-input.js";
import { type CompactionOutcome, compactionOutcomeSince, markCompactionSummarized } from "./compaction-outcomes.js";
import type { ContextManagerEngine } from "./context-manager-engine.js";
import { type ModelRequest, type PreparedRequest, prepareRequest, type RunStart, trimAhead } from "./request.js";
import type { RequestRecord } from "./request-log.js";
import { readCheckpointForInjection } from "./restore-block.js";
import type { RestoreBlock, RestoreKind, RestoreParams } from "./restore-block.js";
import { sessionAt } from "./cache-budget.js";
import { decideSearchJoin } from "./session.js";

export interface CompactionOptions {
  /** "summary": the checkpoint is the compaction, returned before it is on disk; "checkpoint": the host summarizes */
  use: "summary" | "checkpoint";
  /** the workspace the checkpoint records */
  cwd: string;
  /** what goes to the archive (default: the span the host summarizes; null: nothing) */
  span?: readonly AgentMessage[] | null;
  /** the span is archived as a compaction's (the automatic recall warms the archive after it); default true */
  asCompaction?: boolean;
  /** "summary": the span's archive waits for this too (the host's reply); `durable` does not */
  archiveAfter?: Promise<unknown>;
}

export interface CompactionStart {
  /** the compaction checkpoint (in memory under "summary"), or null: none could be built or written */
  checkpoint: Checkpoint | null;
  /** settles when the checkpoint is on disk (null: its write failed) and the span archived */
  durable: Promise<Checkpoint | null>;
}

/** A tool's result as the hosts see it (pi's tool_result event). */
export type ToolResult = Parameters<ContextManagerEngine["onToolResult"]>[0] & Parameters<typeof offloadPatch>[0];

export class SessionApi {
  constructor(readonly engine: ContextManagerEngine) {}

  /** One model request: messages in, messages to send out, with the gauge's reading. */
  prepareRequest(request: ModelRequest): Promise<PreparedRequest> {
    return prepareRequest(this.engine, request);
  }

  /** A run starts: a resumed history's old tool outputs aged from its first request on; the state loaded now. */
  startRun(entries: readonly unknown[]): void {
    warmAgedOffload(this.engine, entries);
    void this.engine.ready();
  }

  /** A tool's result: captured, and the patch that offloads it (docs/artifacts.md), or undefined. */
  async toolResult(event: ToolResult, cwd: string): Promise<ReturnType<typeof offloadPatch>> {
    await this.engine.onToolResult(event, cwd);
    return offloadPatch(event, this.engine);
  }

  /** The agent's context_note (a decision, open item or learning): recorded in the state; the tool's reply. */
  async note(kind: NoteKind, text: string): Promise<string> {
    const message = await this.engine.withState("context_note", (state) => state.addNote(kind, text));
    return message ?? "Not recorded: the context state is unavailable right now.";
  }

  /** The agent's context_search over this key's archive: the tool's reply. */
  search(params: SearchParams): Promise<string> {
    return searchForAgent(this.engine.runtime, params);
  }

  /**
   * At a run start: whether context_search is in the run's tools. It joins once (and stays) when a
   * trim is ahead in this run (its marker names the tool), the session compacted or the archive holds records.
   */
  async searchJoined(ahead: () => RunStart, compacted: () => boolean): Promise<boolean> {
    const e = this.engine;
    const state = sessionAt(e.runtime.stateDir, e.sessionKey).ourTools(e.identity.sessionId);
    if (state.searchJoined) return true;
    const archive = join(archiveDir(e.runtime.stateDir, e.sessionKey), ARCHIVE_FILE);
    const archived = async () => ((await statArchive(archive))?.size ?? 0) > 0;
    return decideSearchJoin(state, trimAhead(e, ahead()) || compacted() || (await archived()));
  }

  /** What `/context` shows of this run; the breakdown is of `next(latest request)` when given. */
  report(next?: (latest: RequestRecord) => RequestRecord) {
    const { runtime, requests, identity } = this.engine;
    const latest = requests.latest;
    const window = runtime.contextWindowTokens || (latest?.contextWindow ?? 0);
    const settings = { contextWindow: window, checkpointThreshold: runtime.config.checkpointThreshold };
    const breakdown = latest ? requests.breakdown(settings, next ? next(latest) : latest) : undefined;
    const reuse = this.engine.cacheReuse();
    return { runtime, sessionKey: this.engine.sessionKey, sessionId: identity.sessionId, window, breakdown, reuse };
  }

  /** What was captured goes to disk now (a run's or a session's end). */
  flush(): Promise<void> {
    return this.engine.flushNow();
  }

  /** The run's last messages: the final reply has no request after it, so it is captured and written here. */
  async endTurn(messages: readonly AgentMessage[]): Promise<void> {
    if (messages.length > 0) await this.engine.withState("agent_end capture", (state) => state.captureMessages(messages));
    await this.engine.flushNow();
  }

  /** The one entry of every compaction route: the compaction checkpoint, and the span archived. */
  async beforeCompaction(input: CompactionInput, opts: CompactionOptions): Promise<CompactionStart> {
    const span = opts.span === undefined ? compactedSpanOf(input) : opts.span;
    const archive = { compaction: opts.asCompaction ?? true };
    if (opts.use === "checkpoint") {
      const checkpoint = await this.engine.onBeforeCompact(input, opts.cwd);
      // after the checkpoint is on disk (docs/archive.md)
      if (span) await archiveMessages(this.engine, span, archive);
      return { checkpoint, durable: Promise.resolve(checkpoint) };
    }
    const started = await this.engine.startCompactionCheckpoint(input, opts.cwd);
    const after = opts.archiveAfter;
    if (!started) {
      // no checkpoint: the span is still archived (the host's summary runs)
      if (span && !after) await archiveMessages(this.engine, span, archive);
      else if (span) void archiveCompactedSpanAfter(this.engine, span, after!, archive);
      return { checkpoint: null, durable: Promise.resolve(null) };
    }
    const archived = span ? archiveCompactedSpanAfter(this.engine, span, after ? Promise.all([started.durable, after]) : started.durable, archive) : Promise.resolve();
    return { checkpoint: started.checkpoint, durable: after ? started.durable : archived.then(() => started.durable) };
  }

  afterCompaction(): void {
    this.engine.compactions += 1;
  }

  /** The checkpoint as this compaction's summary (no restore block follows it); `previous`: the one before. */
  compactionSummary(checkpoint: Checkpoint, previous: string | null = null): RenderedCompactionSummary {
    const e = this.engine;
    markCompactionSummarized(e.runtime.stateDir, e.sessionKey, e.identity.sessionId);
    return renderCompactionSummary(checkpoint, { maxTokens: e.runtime.config.compactionSummaryMaxTokens, previousSummary: previous });
  }

  /** The restore block owed now, or null. `sessionIds`: the ids whose checkpoints count as this session's. */
  restoreOwed(kind: RestoreKind, sessionIds?: () => ReadonlyArray<string | null>): Promise<RestoreBlock | null> {
    const e = this.engine;
    return owedRestoreBlock({
      kind,
      sessionKey: e.runtime.sessionKey,
      sessionIds: sessionIds ?? [e.identity.sessionId],
      stateDir: e.runtime.stateDir,
      config: e.runtime.config,
      logger: e.runtime.logger,
      bundlePrevious: () => e.ready(),
    });
  }
}

export interface OwedRestore extends RestoreParams {
  kind: RestoreKind;
  /** the host key as given: the read maps it to the stored key itself */
  sessionKey: string;
  /** this session's id first, then the ids it was known by (pre-rotation, earlier instances) */
  sessionIds: ReadonlyArray<string | null> | (() => ReadonlyArray<string | null>);
  /** post-compaction: when the compaction started (0: any time) */
  since?: number;
  logger?: WarnLogger;
  /** resume: bundles the previous session's uncheckpointed state before the read (spec §7.3) */
  bundlePrevious: () => Promise<unknown>;
}

/**
 * The one delivery rule of every host (core's seams have no engine): resume, a checkpoint of an
 * earlier session (none of `sessionIds`); post-compaction, compactionCheckpointFilter.
 */
export async function owedRestoreBlock(p: OwedRestore): Promise<RestoreBlock | null> {
  if (p.kind === "resume") await p.bundlePrevious();
  const ids = typeof p.sessionIds === "function" ? p.sessionIds() : p.sessionIds;
  const accept =
    p.kind === "resume"
      ? (cp: Checkpoint) => !(cp.meta.session_id !== null && ids.includes(cp.meta.session_id))
      : compactionCheckpointFilter(p.stateDir, p.sessionKey, ids, p.since ?? 0, p.logger);
  if (!accept) return null;
  const { bundlePrevious: _bundle, sessionIds: _ids, since: _since, sessionKey, ...read } = p;
  return readCheckpointForInjection(sessionKey, { ...read, accept });
}

/**
 * Which checkpoint may stand for the compaction that started at `since`: the one its hook wrote
 * (none, logged, when it failed), else a compaction checkpoint created since.
 */
function compactionCheckpointFilter(
  stateDir: string,
  sessionKey: string,
  sessionIds: ReadonlyArray<string | null>,
  since: number,
  logger: WarnLogger | undefined,
): ((cp: Checkpoint) => boolean) | null {
  const stored = canonicalSessionKey(sessionKey);
  let outcome: CompactionOutcome | null = null;
  for (const id of sessionIds) {
    const o = compactionOutcomeSince(stateDir, stored, id, since);
    if (o && (!outcome || o.at > outcome.at)) outcome = o;
  }
  if (outcome && outcome.checkpointId === null) {
    if (outcome.reported) return null;
    outcome.reported = true;
    warnSafely(
      logger,
      "[context-manager] no restore block after this compaction: its checkpoint could not be written (see the compaction checkpoint failure); an older checkpoint is not sent in its place",
    );
    return null;
  }
  const mine = (cp: Checkpoint): boolean => sessionIds.includes(cp.meta.session_id ?? null) && cp.meta.trigger === "compaction";
  const written = outcome?.checkpointId;
  if (written) return (cp) => mine(cp) && cp.meta.checkpoint_id === written;
  return (cp) => mine(cp) && Date.parse(cp.meta.created_at) >= since;
}
