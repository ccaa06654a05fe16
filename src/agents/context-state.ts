/**
 * Incremental state capture (spec §7): an in-memory accumulator fed by the
 * extension's `tool_result` (Layer A) and `context` (Layer B) events, persisted as
 * five small JSON files under `stateSessionDir(stateDir, key)`.
 *
 * Hot path model: `captureMessages` only looks at messages it has not seen (cursor:
 * index + identity + timestamp of the last seen message), every collection is a Map
 * with O(1) dedup and oldest-first eviction, and `flush` rewrites only the files that
 * changed, atomically. Rules are documented in docs/capture-rules.md.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { isContextOverflow } from "@mariozechner/pi-ai";
import type { KeyExchange, LastToolCall, Resources, ToolFailure, WorkingStatus, WorkLedger as WorkLedgerData } from "./context-checkpoint-schema.js";
import {
  GIST,
  LONG_ANSWER_MIN,
  DECISION_REPLY_MAX,
  assistantText,
  decisionText,
  endsWithQuestion,
  contentHeadTail,
  extractToolResult,
  isInjectedMessage,
  isInterruptStop,
  itemKey,
  lastNonBlankLine,
  proposalGist,
  prop,
  safeGist,
  statusOf,
  summarizeToolCall,
  taskListItems,
  toolCallsOf,
  userText,
  type LastMessageInfo,
  type ToolResultEventLike,
} from "./context-capture.js";
import type { ContextManagerConfig } from "./context-manager-config.js";
import { OnceLogger, consoleWarnLogger, type WarnLogger } from "../infra/log-once.js";
import { debugLog } from "../infra/debug-log.js";
import { stateSessionDir } from "../infra/session-dir.js";
import { LruMap, keepNewest } from "./state/lru.js";
import {
  STATE_FILE_NAMES,
  STATE_FILE_VERSION,
  StateDataError,
  asArray,
  asNumber,
  asObject,
  asString,
  asStringArray,
  asStringOrNull,
  isExpectedStaleReason,
  moveAside,
  readStateFile,
  stateFilePath,
  type StateEnvelope,
  type StateFileName,
} from "./state/state-files.js";
import { asText, codePointLength, gist } from "./text/gist.js";
import { advanceCursor, resumeIndex, timestampOf } from "./state/message-cursor.js";
import { userOrigin } from "./messages/host-provenance.js";
import { toolResultEventOf } from "./state/tool-result-of-message.js";
import { emptyThread, type Exchange, parseThreadData, RECENT_ENTRIES, type ThreadData } from "./state/thread-data.js";
import { nextActionOf } from "./state/next-action.js";
import { FAILURE_SUPERSEDED_AFTER_REQUESTS, WorkLedger } from "./state/work-ledger.js";
import { changeGist, commandFamily, exitCodeOf, isEmptySearch } from "./messages/tool-outcome.js";
import { changedText, declaredNames } from "./state/declared-names.js";
import { ensurePrivateDir, writeFileAtomic } from "../infra/atomic-file.js";
import { errorCode, nodeFsOps, type FsOps } from "../infra/fs-ops.js";

export type CaptureCaps = Pick<
  ContextManagerConfig,
  "maxDecisions" | "maxExchanges" | "maxTools" | "maxFiles" | "maxOpenItems" | "maxLearnings" | "maxErrors"
>;

export interface ContextStateOptions {
  stateDir: string;
  sessionKey: string;
  sessionId: string | null;
  config: CaptureCaps;
  fs?: FsOps;
  /** created_at of the latest checkpoint of this key: state files older than it are stale */
  latestCheckpointAt?: string | null;
  /** ms time of THIS session's latest checkpoint: without a saved cursor, capture starts after it */
  coveredUntil?: number | null;
  logger?: WarnLogger;
  /**
   * The host sends no `tool_result` events (OpenClaw's context-engine plugin): tool results are
   * captured from the toolResult messages, paths resolved against this cwd.
   */
  toolResultsFromMessages?: { cwd: string };
}

export interface CapturedDecision {
  what: string;
  /** ISO-8601 UTC */
  when: string;
}

/** Everything the checkpoint builder needs, as plain data (already redacted and gisted). */
export interface ContextStateSnapshot {
  sessionKey: string;
  sessionId: string | null;
  /** first user message of the session, gist 100 (kept across reset) */
  firstUser: string | null;
  /** last user message, gist 100 (kept across reset) */
  lastUser: string | null;
  /** = lastUser ?? "" (spec §11.1: working.topic) */
  topic: string;
  /** first user message + pivots + last 2 pairs, in order, capped (since the last reset) */
  keyExchanges: KeyExchange[];
  /** tool failures since the last reset, oldest first */
  errors: ToolFailure[];
  /** decisions since the last reset, oldest first */
  decisions: CapturedDecision[];
  /** since the last reset; LRU order (most recently touched last) */
  resources: Resources;
  /** currently open items (kept across reset), oldest first */
  openItems: string[];
  /** items closed since the last reset: remove them from a carried-forward checkpoint */
  closedItems: string[];
  /** since the last reset */
  learnings: string[];
  status: WorkingStatus;
  nextAction: string;
  /** the last assistant reply was aborted / errored */
  interrupted: boolean;
  /** the most recent tool call seen in the messages, or null */
  lastToolCall: LastToolCall | null;
  /** false until any conversational message has been captured (nothing to say about status) */
  hasActivity: boolean;
  /** messages processed by the cursor so far (diagnostics) */
  messagesSeen: number;
  /** the work ledger (whole session, never reset by a checkpoint) */
  work: WorkLedgerData;
}

export type NoteKind = "decision" | "open_item" | "learning" | "close_item";

const CLOSED_ITEMS_FACTOR = 4;

export class ContextState {
  readonly dir: string;
  private readonly fs: FsOps;
  private readonly log: OnceLogger;
  private readonly caps: CaptureCaps;
  private readonly dirtyFiles = new Set<StateFileName>();
  private flushChain: Promise<void> = Promise.resolve();

  // decisions.json
  private readonly decisions: LruMap<string, CapturedDecision>;
  // resources.json
  private readonly filesRead: LruMap<string, true>;
  private readonly filesModified: LruMap<string, true>;
  private readonly toolsUsed: LruMap<string, true>;
  // open_items.json: key -> text
  private readonly openItems: LruMap<string, string>;
  private readonly closedItems: LruMap<string, string>;
  // learnings.json
  private readonly learnings: LruMap<string, string>;
  // thread.json
  private readonly errors: LruMap<string, ToolFailure>;
  private thread: Omit<ThreadData, "errors">;
  // work.json
  private work: WorkLedger;

  private constructor(
    private readonly opts: ContextStateOptions,
    private readonly sink: WarnLogger,
  ) {
    this.dir = stateSessionDir(opts.stateDir, opts.sessionKey);
    this.fs = opts.fs ?? nodeFsOps;
    this.log = new OnceLogger(sink);
    const c = opts.config;
    this.caps = c;
    this.decisions = new LruMap(c.maxDecisions);
    this.filesRead = new LruMap(c.maxFiles);
    this.filesModified = new LruMap(c.maxFiles);
    this.toolsUsed = new LruMap(c.maxTools);
    this.openItems = new LruMap(c.maxOpenItems);
    this.closedItems = new LruMap(c.maxOpenItems * CLOSED_ITEMS_FACTOR);
    this.learnings = new LruMap(c.maxLearnings);
    this.errors = new LruMap(c.maxErrors);
    this.thread = emptyThread();
    this.work = new WorkLedger(workCaps(c));
  }

  /**
   * Creates the state directory and reloads what an earlier process of the SAME session
   * captured. Files of another session id, older than `latestCheckpointAt`, unreadable or
   * invalid are moved to `<dir>/stale/` (never merged) and logged in one line.
   */
  static async load(opts: ContextStateOptions): Promise<ContextState> {
    const st = new ContextState(opts, opts.logger ?? consoleWarnLogger);
    try {
      await ensurePrivateDir(st.dir, st.fs);
    } catch (err) {
      st.log.fail("state directory", err);
      return st;
    }
    const exp = { sessionKey: opts.sessionKey, sessionId: opts.sessionId, latestCheckpointAt: opts.latestCheckpointAt ?? null };
    const movedAside: string[] = [];
    let expectedOnly = true;
    const now = new Date();
    for (const name of STATE_FILE_NAMES) {
      const loaded = await readStateFile(st.fs, st.dir, name, exp);
      if (loaded.kind === "missing") continue;
      let reason = loaded.kind === "stale" ? loaded.reason : null;
      if (loaded.kind === "ok") {
        try {
          st.apply(name, loaded.data);
        } catch (err) {
          st.clearFile(name);
          reason = `invalid data: ${err instanceof StateDataError ? err.message : String(err)}`;
        }
      }
      if (reason !== null) {
        if (loaded.kind !== "stale" || !isExpectedStaleReason(reason)) expectedOnly = false;
        await moveAside(st.fs, st.dir, name, now);
        movedAside.push(`${name}.json (${reason})`);
      }
    }
    if (movedAside.length > 0) {
      try {
        const line = `[context-manager] state not merged, moved to ${st.dir}/stale: ${movedAside.join("; ")}`;
        // an earlier session's (or an already checkpointed) state is the normal path of a new session: debug level
        if (expectedOnly) (st.sink.debug ?? ((m: string) => debugLog(m)))(line);
        else st.sink.warn(line);
      } catch {
        // a broken logger must not break loading
      }
    }
    return st;
  }

  /**
   * A state built from state-file data read elsewhere (a previous session's held files,
   * state/previous-session.ts): nothing is read or written here. Invalid data of a file is
   * left out and named in `invalid`.
   */
  static fromData(
    opts: ContextStateOptions,
    files: Iterable<{ name: StateFileName; data: unknown }>,
  ): { state: ContextState; invalid: string[] } {
    const st = new ContextState(opts, opts.logger ?? consoleWarnLogger);
    const invalid: string[] = [];
    for (const f of files) {
      try {
        st.apply(f.name, f.data);
      } catch (err) {
        st.clearFile(f.name);
        invalid.push(`${f.name}.json (invalid data: ${err instanceof StateDataError ? err.message : String(err)})`);
      }
    }
    return { state: st, invalid };
  }

  get sessionKey(): string {
    return this.opts.sessionKey;
  }

  get sessionId(): string | null {
    return this.opts.sessionId;
  }

  /** Some file has changes not yet flushed. */
  get dirty(): boolean {
    return this.dirtyFiles.size > 0;
  }

  /** Names of the files the next flush will write (tests, diagnostics). */
  get dirtyFileNames(): StateFileName[] {
    return [...this.dirtyFiles];
  }

  // ------------------------------------------------------------ Layer A

  /**
   * Layer A: tool, file access, failure (history in thread.errors), and the work ledger:
   * file changes with their gist, command outcomes, the failure lifecycle. A grep/rg that
   * only found nothing is a command run, not a failure.
   */
  captureToolResult(ev: ToolResultEventLike, cwd: string, now: Date = new Date()): void {
    const cap = extractToolResult(ev, cwd, now);
    this.touchTool(cap.tool);
    const command = prop(ev.input, "command");
    const family = typeof command === "string" ? safeGist(commandFamily(command), 60) : "";
    const output = ev.isError || family ? contentHeadTail(ev.content) : "";
    const emptySearch = ev.isError && isEmptySearch(asText(ev.toolName), ev.input, output);
    let workChanged = false;
    if (cap.failure && !emptySearch) {
      const f = cap.failure;
      this.errors.touch(`${f.tool}\u0000${f.target}\u0000${f.error}`, f);
      this.mark("thread");
      this.work.onFailure(f, family);
      workChanged = true;
    } else {
      workChanged = this.work.onSuccess(cap.tool, cap.target, family);
    }
    if (family && typeof command === "string") {
      this.work.onCommand(family, safeGist(command, GIST.command), !cap.failure || emptySearch, exitCodeOf(output) ?? (ev.isError ? null : 0), now);
      workChanged = true;
    }
    if (cap.file) {
      this.touchFile(cap.file.path, cap.file.access);
      if (cap.file.access === "modified" && (cap.tool === "edit" || cap.tool === "write")) {
        const names = declaredNames(changedText(cap.tool, ev.input), cap.file.path).map((n) => safeGist(n, GIST.name)).filter(Boolean);
        this.work.onFileChanged(cap.file.path, cap.tool, safeGist(changeGist(cap.tool, ev.input), GIST.change), now, names);
        workChanged = true;
      }
    }
    if (workChanged) this.mark("work");
  }

  // ------------------------------------------------------------ Layer B

  /**
   * Called with the whole (cloned) message array on each context event. Only messages
   * after the last seen one are processed: O(new messages), also after a compaction
   * replaced the array and after a restart (the cursor is persisted in thread.json).
   */
  captureMessages(messages: readonly AgentMessage[]): void {
    const start = this.resumeIndex(messages);
    if (start >= messages.length) {
      this.updateCursorIndex(messages);
      return;
    }
    const tools = this.opts.toolResultsFromMessages;
    for (let i = start; i < messages.length; i++) {
      try {
        const m = messages[i]!;
        // before the message itself (pi's tool_result event comes before the result is in the
        // history); a heartbeat turn's tools are the host's, like the rest of that turn
        if (tools && m?.role === "toolResult" && !this.thread.host_turn && !isInjectedMessage(m)) this.captureToolResult(toolResultEventOf(messages, i), tools.cwd, dateOf(m));
        this.processMessage(m);
      } catch (err) {
        // one malformed message must not stop capture of the ones after it (the cursor moves on)
        this.log.fail("message capture", err);
      }
    }
    this.updateCursorIndex(messages, messages.length - start);
  }

  private resumeIndex(messages: readonly AgentMessage[]): number {
    return resumeIndex(this.thread.cursor, messages, this.opts.coveredUntil ?? null);
  }

  /** Points the cursor at the last non-injected message of this array. */
  private updateCursorIndex(messages: readonly AgentMessage[], processedNow = 0): void {
    const next = advanceCursor(this.thread.cursor, messages, processedNow);
    if (!next) return;
    this.thread.cursor = next;
    this.mark("thread");
  }

  private processMessage(m: AgentMessage): void {
    if (!m || typeof m !== "object" || isInjectedMessage(m)) return;
    switch (m.role) {
      case "user":
        this.onUser(m);
        break;
      case "assistant":
        this.onAssistant(m as AssistantMessage);
        break;
      case "toolResult":
        this.onToolResultMessage(m as ToolResultMessage);
        break;
      default:
        // custom (host) messages, bashExecution, compaction/branch summaries: not conversation turns
        break;
    }
  }

  private onUser(m: AgentMessage): void {
    // host-written (heartbeat, cron, another session): not a request of the user's
    const origin = userOrigin(m);
    const text = origin === "user" ? userText(m) : "";
    const t = this.thread;
    t.host_turn = origin === "heartbeat";
    // a tool call that never got its result before the user spoke again: interrupted
    const req = this.work.requestCount;
    for (const call of t.pending_calls) {
      this.openItem(`pending\u0000r${req}\u0000${call.id}`, safeGist(`Tool call without result: ${call.name} ${call.params_summary}`, GIST.item));
    }
    t.pending_calls = [];
    if (!text) {
      t.prev_assistant = null;
      this.mark("thread");
      return;
    }
    const seq = ++t.seq;
    const topic = safeGist(text, GIST.topic);
    this.work.onUserRequest(topic, text);
    this.mark("work");
    this.closeSupersededItems();
    const ex: Exchange = { seq, role: "user", gist: safeGist(text, GIST.exchange) };
    if (t.first_user === null) {
      t.first_user = topic;
      t.first_exchange = ex;
    }
    t.last_user = topic;
    const prev = t.prev_assistant;
    if (prev?.long) {
      // spec §11.2: a user message after a long answer is a pivot of the thread
      t.pivots = keepNewest([...t.pivots, ex], this.caps.maxExchanges);
      // a slash command ("/theme") is an instruction to the host, not an answer to the proposal
      if (codePointLength(text, DECISION_REPLY_MAX) < DECISION_REPLY_MAX && !text.startsWith("/")) {
        const what = decisionText(prev.proposal, text);
        this.decisions.touch(what, { what, when: isoOf(timestampOf(m)) });
        this.mark("decisions");
      }
    }
    t.recent = keepNewest([...t.recent, ex], RECENT_ENTRIES);
    t.prev_assistant = null;
    t.last = { role: "user", stopReason: null, hasToolCalls: false, endsWithQuestion: false, tail: "" };
    this.mark("thread");
  }

  private onAssistant(m: AssistantMessage): void {
    // a provider's context-overflow error: pi drops it, compacts and retries the same turn
    if (m.stopReason === "error" && isOverflowError(m)) return;
    const t = this.thread;
    const calls = toolCallsOf(m);
    if (t.host_turn) {
      // a heartbeat turn leaves the user's thread as it was: only its calls are tracked
      for (const call of calls) t.pending_calls.push({ id: call.id, ...summarizeToolCall(call.name, call.arguments) });
      if (t.pending_calls.length > this.caps.maxTools) t.pending_calls = keepNewest(t.pending_calls, this.caps.maxTools);
      this.mark("thread");
      return;
    }
    const text = assistantText(m);
    if (text) {
      const seq = ++t.seq;
      const ex: Exchange = { seq, role: "agent", gist: safeGist(text, GIST.exchange) };
      const lastRecent = t.recent[t.recent.length - 1];
      // several text replies in one turn: the latest stands for the turn
      t.recent = lastRecent?.role === "agent" ? [...t.recent.slice(0, -1), ex] : keepNewest([...t.recent, ex], RECENT_ENTRIES);
      const long = codePointLength(text, LONG_ANSWER_MIN + 1) > LONG_ANSWER_MIN;
      t.prev_assistant = { long, proposal: long ? proposalGist(text) : "" };
      const tasks = taskListItems(text);
      for (const item of tasks.open) this.openItem(`task\u0000${itemKey(item)}`, item);
      for (const item of tasks.done) this.closeItem(`task\u0000${itemKey(item)}`);
    }
    for (const call of calls) {
      const s = summarizeToolCall(call.name, call.arguments);
      t.last_tool_call = s;
      t.pending_calls.push({ id: call.id, ...s });
    }
    if (t.pending_calls.length > this.caps.maxTools) t.pending_calls = keepNewest(t.pending_calls, this.caps.maxTools);
    if (isInterruptStop(m.stopReason)) {
      t.interrupted = true;
      const why = m.errorMessage ? safeGist(m.errorMessage, 80) : m.stopReason;
      this.openItem(`interrupted\u0000r${this.work.requestCount}\u0000${t.seq}`, safeGist(`Interrupted turn (${why}): ${t.last_user ?? ""}`, GIST.item));
    } else if (m.stopReason === "stop") {
      if (text && calls.length === 0) {
        this.work.onReport(safeGist(text, GIST.report));
        this.mark("work");
      }
      // the agent completed a turn after the interruption: it has resumed
      if (t.interrupted) {
        t.interrupted = false;
        for (const key of this.openItems.keys()) if (key.startsWith("interrupted\u0000")) this.closeItem(key);
      }
    }
    t.last = {
      role: "assistant",
      stopReason: typeof m.stopReason === "string" ? gist(m.stopReason, 40) : null,
      hasToolCalls: calls.length > 0,
      endsWithQuestion: text ? endsWithQuestion(text) : false,
      tail: text ? safeGist(lastNonBlankLine(text), GIST.topic) : "",
    };
    this.mark("thread");
  }

  private onToolResultMessage(m: ToolResultMessage): void {
    const t = this.thread;
    if (t.pending_calls.length > 0) t.pending_calls = t.pending_calls.filter((c) => c.id !== m.toolCallId);
    if (t.host_turn) return this.mark("thread");
    t.last = { role: "toolResult", stopReason: null, hasToolCalls: false, endsWithQuestion: false, tail: "" };
    this.mark("thread");
  }

  /**
   * Interrupted turns and tool calls without a result are about a request the user has
   * since moved on from: closed once two more requests came after the one they belong to
   * (the same rule as failures). The request number is part of their key.
   */
  private closeSupersededItems(): void {
    const now = this.work.requestCount;
    for (const key of this.openItems.keys()) {
      const m = /^(?:interrupted|pending)\u0000r(\d+)\u0000/.exec(key);
      if (m && now - Number(m[1]) >= FAILURE_SUPERSEDED_AFTER_REQUESTS) this.closeItem(key);
    }
  }

  // ------------------------------------------------------------ notes (context_note tool)

  /** Records an agent-provided note. Returns a short confirmation for the tool result. */
  addNote(kind: NoteKind, rawText: string, now: Date = new Date()): string {
    const text = safeGist(rawText, GIST.item);
    if (!text) return "Nothing recorded: empty text.";
    switch (kind) {
      case "decision":
        this.decisions.touch(text, { what: text, when: now.toISOString() });
        this.mark("decisions");
        return "Decision recorded.";
      case "learning":
        this.learnings.touch(itemKey(text), text);
        this.mark("learnings");
        return "Learning recorded.";
      case "open_item":
        this.openItem(`note\u0000${itemKey(text)}`, text);
        return "Open item recorded.";
      case "close_item": {
        const k = itemKey(text);
        let closed = 0;
        for (const [key, value] of this.openItems.entries()) {
          if (itemKey(value) === k) {
            this.closeItem(key);
            closed++;
          }
        }
        // also closes the same item carried forward from an earlier checkpoint
        if (closed === 0) {
          this.closedItems.touch(k, text);
          this.mark("open_items");
        }
        return closed > 0 ? "Open item closed." : "Marked as closed.";
      }
    }
  }

  // ------------------------------------------------------------ accumulators

  private touchTool(tool: string): void {
    if (this.toolsUsed.isNewest(tool)) return;
    this.toolsUsed.touch(tool, true);
    this.mark("resources");
  }

  private touchFile(p: string, access: "read" | "modified"): void {
    // already the most recent entry of its list: nothing changes, nothing to write
    if (this.filesModified.isNewest(p) || (access === "read" && this.filesRead.isNewest(p))) return;
    if (access === "modified") {
      this.filesRead.delete(p);
      this.filesModified.touch(p, true);
    } else if (this.filesModified.has(p)) {
      // a modified file stays listed as modified only; a later read refreshes its recency
      this.filesModified.touch(p, true);
    } else {
      this.filesRead.touch(p, true);
    }
    this.mark("resources");
  }

  private openItem(key: string, text: string): void {
    if (!text) return;
    if (this.openItems.get(key) === text) return;
    this.openItems.touch(key, text);
    this.closedItems.delete(itemKey(text));
    this.mark("open_items");
  }

  private closeItem(key: string): void {
    const text = this.openItems.get(key);
    if (text === undefined) return;
    this.openItems.delete(key);
    this.closedItems.touch(itemKey(text), text);
    this.mark("open_items");
  }

  private mark(name: StateFileName): void {
    this.dirtyFiles.add(name);
  }

  // ------------------------------------------------------------ snapshot

  snapshot(): ContextStateSnapshot {
    const t = this.thread;
    const openItems = this.openItems.values();
    const status = statusOf(t.last);
    return {
      sessionKey: this.opts.sessionKey,
      sessionId: this.opts.sessionId,
      firstUser: t.first_user,
      lastUser: t.last_user,
      topic: t.last_user ?? "",
      keyExchanges: this.keyExchanges(),
      errors: this.errors.values(),
      decisions: this.decisions.values(),
      resources: {
        files_read: this.filesRead.keys(),
        files_modified: this.filesModified.keys(),
        tools_used: this.toolsUsed.keys(),
      },
      openItems,
      closedItems: this.closedItems.values(),
      learnings: this.learnings.values(),
      status,
      nextAction: nextActionOf({
        status,
        userSpokeLast: t.last?.role === "user",
        interrupted: t.interrupted,
        answered: this.work.answered,
        latestRequest: t.last_user ?? "",
        lastToolCall: t.last_tool_call,
        questionTail: t.last?.tail ?? "",
      }),
      interrupted: t.interrupted,
      lastToolCall: t.last_tool_call,
      hasActivity: t.last !== null,
      messagesSeen: t.cursor.processed,
      work: this.work.snapshot(),
    };
  }

  /** spec §11.2: first user message, pivots, last 2 pairs; in order; first + newest within the cap. */
  private keyExchanges(): KeyExchange[] {
    const t = this.thread;
    const bySeq = new Map<number, Exchange>();
    for (const e of t.pivots) bySeq.set(e.seq, e);
    for (const e of t.recent) bySeq.set(e.seq, e);
    const first = t.first_exchange;
    if (first) bySeq.delete(first.seq);
    const rest = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    const room = Math.max(0, this.caps.maxExchanges - (first ? 1 : 0));
    const kept = keepNewest(rest, room);
    const out = first ? [first, ...kept] : kept;
    return out.map((e) => ({ role: e.role, gist: e.gist }));
  }

  // ------------------------------------------------------------ persistence

  /**
   * Writes the changed files (each atomically). Never throws: a failure is logged once
   * and the files stay dirty for the next flush. Calls are serialized.
   */
  flush(): Promise<void> {
    this.flushChain = this.flushChain.then(() => this.flushNow());
    return this.flushChain;
  }

  private async flushNow(): Promise<void> {
    if (this.dirtyFiles.size === 0) return;
    const names = [...this.dirtyFiles];
    this.dirtyFiles.clear();
    const now = new Date().toISOString();
    for (const name of names) {
      const env: StateEnvelope<unknown> = {
        version: STATE_FILE_VERSION,
        session_id: this.opts.sessionId,
        session_key: this.opts.sessionKey,
        updated_at: now,
        data: this.dataOf(name),
      };
      try {
        await this.writeStateFile(name, `${JSON.stringify(env, null, 1)}\n`);
        this.log.clear("state write");
      } catch (err) {
        this.dirtyFiles.add(name);
        this.log.fail("state write", err);
      }
    }
  }

  /**
   * Atomic write of one state file. The directory may have vanished since load (deleted
   * mid-session, or it could not be created on a full disk): recreate it once and retry,
   * so capture resumes on its own when the fault clears.
   */
  private async writeStateFile(name: StateFileName, text: string): Promise<void> {
    const file = stateFilePath(this.dir, name);
    try {
      await writeFileAtomic(file, text, { fs: this.fs });
    } catch (err) {
      if (errorCode(err) !== "ENOENT") throw err;
      await ensurePrivateDir(this.dir, this.fs);
      await writeFileAtomic(file, text, { fs: this.fs });
    }
  }

  /**
   * After a checkpoint is written: clears what the checkpoint now holds (decisions,
   * resources, errors, learnings, key exchanges except the first user message, closed
   * items) and flushes every file. Keeps the cursor (the messages were seen), the first
   * and last user message (thread summary/topic), the open items and pending tool calls
   * (they are the current situation, not a delta: a later success must still close them),
   * and the last-message facts behind status and next_action.
   */
  async reset(): Promise<void> {
    this.decisions.clear();
    this.filesRead.clear();
    this.filesModified.clear();
    this.toolsUsed.clear();
    this.errors.clear();
    this.learnings.clear();
    this.closedItems.clear();
    this.thread.pivots = [];
    this.thread.recent = [];
    for (const name of STATE_FILE_NAMES) this.mark(name);
    await this.flush();
  }

  private dataOf(name: StateFileName): unknown {
    switch (name) {
      case "decisions":
        return { items: this.decisions.values() };
      case "resources":
        return { files_read: this.filesRead.keys(), files_modified: this.filesModified.keys(), tools_used: this.toolsUsed.keys() };
      case "open_items":
        return { open: this.openItems.entries().map(([key, text]) => ({ key, text })), closed: this.closedItems.values() };
      case "learnings":
        return { items: this.learnings.values() };
      case "thread":
        return { ...this.thread, errors: this.errors.values() } satisfies ThreadData;
      case "work":
        return this.work.toData();
    }
  }

  private clearFile(name: StateFileName): void {
    switch (name) {
      case "decisions":
        this.decisions.clear();
        break;
      case "resources":
        this.filesRead.clear();
        this.filesModified.clear();
        this.toolsUsed.clear();
        break;
      case "open_items":
        this.openItems.clear();
        this.closedItems.clear();
        break;
      case "learnings":
        this.learnings.clear();
        break;
      case "thread":
        this.errors.clear();
        this.thread = emptyThread();
        break;
      case "work":
        this.work = new WorkLedger(workCaps(this.caps));
        break;
    }
  }

  /** Loads one file's data; throws StateDataError naming the field on a bad shape. */
  private apply(name: StateFileName, raw: unknown): void {
    const d = asObject(raw, "data");
    switch (name) {
      case "decisions":
        for (const [i, v] of asArray(d.items, "items").entries()) {
          const o = asObject(v, `items[${i}]`);
          const what = asString(o.what, `items[${i}].what`);
          this.decisions.touch(what, { what, when: asString(o.when, `items[${i}].when`) });
        }
        break;
      case "resources":
        for (const p of asStringArray(d.files_read, "files_read")) this.filesRead.touch(p, true);
        for (const p of asStringArray(d.files_modified, "files_modified")) this.filesModified.touch(p, true);
        for (const p of asStringArray(d.tools_used, "tools_used")) this.toolsUsed.touch(p, true);
        break;
      case "open_items":
        for (const [i, v] of asArray(d.open, "open").entries()) {
          const o = asObject(v, `open[${i}]`);
          this.openItems.touch(asString(o.key, `open[${i}].key`), asString(o.text, `open[${i}].text`));
        }
        for (const text of asStringArray(d.closed, "closed")) this.closedItems.touch(itemKey(text), text);
        break;
      case "learnings":
        for (const text of asStringArray(d.items, "items")) this.learnings.touch(itemKey(text), text);
        break;
      case "thread":
        this.applyThread(d);
        break;
      case "work":
        this.work = WorkLedger.fromData(d, workCaps(this.caps));
        break;
    }
  }

  private applyThread(d: Record<string, unknown>): void {
    const { thread, errors } = parseThreadData(d, this.caps.maxExchanges);
    this.thread = thread;
    for (const e of errors) this.errors.touch(`${e.tool}\u0000${e.target}\u0000${e.error}`, e);
  }
}

function workCaps(c: CaptureCaps) {
  return { maxFiles: c.maxFiles, maxCommands: 30, maxFailures: c.maxErrors, maxRequests: 12 };
}

function isOverflowError(m: AssistantMessage): boolean {
  try {
    return isContextOverflow(m);
  } catch {
    return false;
  }
}

function isoOf(ts: number): string {
  return dateOfTs(ts).toISOString();
}

function dateOfTs(ts: number): Date {
  const d = ts > 0 ? new Date(ts) : new Date();
  return Number.isNaN(d.getTime()) ? new Date() : d;
}

/** when a message was written (now when it does not say) */
function dateOf(m: AgentMessage): Date {
  return dateOfTs(timestampOf(m));
}
export { CURSOR_CLOCK_SKEW_MS, messageIdentity } from "./state/message-cursor.js";
