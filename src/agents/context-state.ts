/**
 * Incremental state capture (spec §7): the rules that turn the extension's `tool_result`
 * (Layer A) and `context` (Layer B) events into state, and its load/flush as small JSON
 * files (STATE_FILE_NAMES) under `stateSessionDir(stateDir, key)`. The accumulators are
 * state/captured-state.ts, the snapshot state/state-snapshot.ts, each file's data
 * state/state-codec.ts.
 *
 * Hot path model: `captureMessages` only looks at messages it has not seen (cursor:
 * index + identity + timestamp of the last seen message), every collection is a Map
 * with O(1) dedup and oldest-first eviction, and `flush` rewrites only the files that
 * changed, atomically. Rules are documented in docs/capture-rules.md.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { isContextOverflow } from "@mariozechner/pi-ai";
import { GIST, LONG_ANSWER_MIN, DECISION_REPLY_MAX, decisionText, endsWithQuestion, contentHeadTail, extractToolResult, isInterruptStop, normalizeToolPath, itemKey, lastNonBlankLine, proposalGist, summarizeToolCall, taskListItems, type ToolResultEventLike } from "./context-capture.js";
import { assistantText, isInjectedMessage, prop, toolCallsOf, toolPathArg, userText } from "./messages/read.js";
import { messageTokens } from "./messages/message-tokens.js";
import { safeGist } from "./text/safe-gist.js";
import { OnceLogger, consoleWarnLogger, type WarnLogger } from "../infra/log-once.js";
import { debugLog } from "../infra/debug-log.js";
import { stateSessionDir } from "../infra/session-dir.js";
import { keepNewest } from "./state/lru.js";
import { STATE_FILE_NAMES, isExpectedStaleReason, judgeStateFile, moveAside, readStateFile, stateFileText, writeStateFiles, type StateFileName, type StateFileRead } from "./state/state-files.js";
import { asText, codePointLength, gist } from "./text/gist.js";
import { advanceCursor, resumeIndex, timestampOf } from "./state/message-cursor.js";
import { dateOf, isoOf } from "./state/message-date.js";
import { userOrigin } from "./messages/host-provenance.js";
import { toolResultEventOf } from "./state/tool-result-of-message.js";
import { type Exchange, RECENT_ENTRIES } from "./state/thread-data.js";
import { FAILURE_SUPERSEDED_AFTER_REQUESTS } from "./state/work-ledger.js";
import { backtickNames, isTaskTool, taskAsk } from "./state/turn-log.js";
import { type CaptureCaps, CapturedState } from "./state/captured-state.js";
import { snapshotOf, type ContextStateSnapshot } from "./state/state-snapshot.js";
import { applyStateFile, stateFileData } from "./state/state-codec.js";
import { changeGist, commandFamily, exitCodeOf, isEmptySearch } from "./messages/tool-outcome.js";
import { removedPaths } from "./messages/shell-removals.js";
import { changedText, declaredNames } from "./state/declared-names.js";
import { ensurePrivateDir } from "../infra/atomic-file.js";
import { nodeFsOps, type FsOps } from "../infra/fs-ops.js";
import type { NoteKind } from "./state/note-tool.js";
import { DeferredGists } from "./state/deferred-gists.js";
import type { LastToolCall } from "./checkpoint/schema.js";

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
  /**
   * The state files as the previous-session check read them just before (recover-previous-
   * session.ts), judged here for this session instead of read a second time.
   */
  preread?: ReadonlyMap<StateFileName, StateFileRead>;
}


export class ContextState {
  readonly dir: string;
  private readonly fs: FsOps;
  private readonly log: OnceLogger;
  private readonly dirtyFiles = new Set<StateFileName>();
  private flushChain: Promise<void> = Promise.resolve();
  /** the accumulators, one group per state file */
  private readonly acc: CapturedState;
  /** texts not gisted yet: settled at the end of each capture pass (state/deferred-gists.ts) */
  private readonly deferred = new DeferredGists();
  /** inside captureMessages: a tool result's change gist can wait for the pass's end */
  private inPass = false;

  private constructor(
    private readonly opts: ContextStateOptions,
    private readonly sink: WarnLogger,
  ) {
    this.dir = stateSessionDir(opts.stateDir, opts.sessionKey);
    this.fs = opts.fs ?? nodeFsOps;
    this.log = new OnceLogger(sink);
    this.acc = new CapturedState(opts.config);
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
      const pre = opts.preread?.get(name);
      const loaded = pre ? judgeStateFile(pre, exp) : await readStateFile(st.fs, st.dir, name, exp);
      if (loaded.kind === "missing") continue;
      const reason = loaded.kind === "stale" ? loaded.reason : applyStateFile(st.acc, name, loaded.data);
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
      const reason = applyStateFile(st.acc, f.name, f.data);
      if (reason !== null) invalid.push(`${f.name}.json (${reason})`);
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
      this.acc.addError(f);
      this.mark("thread");
      this.acc.work.onFailure(f, family);
      workChanged = true;
    } else {
      workChanged = this.acc.work.onSuccess(cap.tool, cap.target, family);
    }
    if (family && typeof command === "string") {
      const exit = exitCodeOf(output) ?? (ev.isError ? null : 0);
      // without a path argument the capture's target is this command's gist already
      const commandGist = toolPathArg(ev.input) === null ? cap.target : safeGist(command, GIST.command);
      this.acc.work.onCommand(family, commandGist, !cap.failure || emptySearch, exit, now);
      workChanged = true;
      // a removal that certainly ran: the changed files it deleted are no longer there
      if (!cap.failure && exit === 0) {
        for (const p of removedPaths(command)) workChanged = this.acc.work.onPathRemoved(normalizeToolPath(p, cwd), now) || workChanged;
      }
    }
    if (cap.file) {
      this.touchFile(cap.file.path, cap.file.access);
      if (cap.file.access === "modified" && (cap.tool === "edit" || cap.tool === "write")) {
        const names = declaredNames(changedText(cap.tool, ev.input), cap.file.path).map((n) => safeGist(n, GIST.name)).filter(Boolean);
        this.onFileChanged(cap.file.path, cap.tool, ev.input, now, names);
        workChanged = true;
      }
    }
    if (workChanged) this.mark("work");
  }

  /**
   * In a capture pass, only the latest change of a file stands (or the one before it when the
   * latest says nothing): its gist is taken when the pass ends (settleChanges). A file the
   * ledger does not hold (new, or evicted in this pass) starts its list anew, as its entry does.
   */
  private onFileChanged(path: string, tool: "edit" | "write", input: unknown, now: Date, names: string[]): void {
    if (!this.inPass) return this.acc.work.onFileChanged(path, tool, safeGist(changeGist(tool, input), GIST.change), now, names);
    const changes = this.deferred.changes;
    let list = this.acc.work.hasFile(path) ? changes.get(path) : undefined;
    if (!list) changes.set(path, (list = []));
    list.push({ tool, input });
    this.acc.work.onFileChanged(path, tool, "", now, names);
  }

  // ------------------------------------------------------------ Layer B

  /**
   * Called with the whole (cloned) message array on each context event. Only messages
   * after the last seen one are processed: O(new messages), also after a compaction
   * replaced the array and after a restart (the cursor is persisted in thread.json).
   * `end`: capture the array's first `end` messages as if they were the whole array (a history
   * captured a message at a time, engine captureInSlices, without a copy of it per message).
   */
  captureMessages(messages: readonly AgentMessage[], end = messages.length): void {
    end = Math.max(0, Math.min(end, messages.length));
    const start = this.resumeIndex(messages, end);
    if (start >= end) {
      this.updateCursorIndex(messages, 0, end);
      return;
    }
    const tools = this.opts.toolResultsFromMessages;
    let tokens = 0;
    this.inPass = true;
    for (let i = start; i < end; i++) {
      try {
        const m = messages[i]!;
        if (m && typeof m === "object" && !isInjectedMessage(m)) tokens += messageTokens(m);
        // before the message itself (pi's tool_result event comes before the result is in the
        // history); a heartbeat turn's tools are the host's, like the rest of that turn
        if (tools && m?.role === "toolResult" && !this.acc.thread.host_turn && !isInjectedMessage(m)) this.captureToolResult(toolResultEventOf(messages, i), tools.cwd, dateOf(m));
        this.processMessage(m);
      } catch (err) {
        // one malformed message must not stop capture of the ones after it (the cursor moves on)
        this.log.fail("message capture", err);
      }
    }
    this.inPass = false;
    this.settleDeferred();
    if (tokens > 0) {
      this.acc.thread.captured_tokens += tokens;
      this.mark("thread");
    }
    this.updateCursorIndex(messages, end - start, end);
  }

  /** Tokens of the messages captured since the latest checkpoint (the auto-80pct dedup). */
  get capturedTokens(): number {
    return this.acc.thread.captured_tokens;
  }

  private resumeIndex(messages: readonly AgentMessage[], end: number): number {
    return resumeIndex(this.acc.thread.cursor, messages, this.opts.coveredUntil ?? null, end);
  }

  /** Points the cursor at the last non-injected message of this array (of its first `end`). */
  private updateCursorIndex(messages: readonly AgentMessage[], processedNow = 0, end = messages.length): void {
    const next = advanceCursor(this.acc.thread.cursor, messages, processedNow, end);
    if (!next) return;
    this.acc.thread.cursor = next;
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
    const t = this.acc.thread;
    t.host_turn = origin === "heartbeat";
    // a tool call that never got its result before the user spoke again: interrupted
    const req = this.acc.work.requestCount;
    for (const call of t.pending_calls) {
      this.settleCall(call);
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
    this.acc.work.onUserRequest(topic, text, safeGist(text, GIST.turnRequest));
    this.mark("work");
    this.closeSupersededItems();
    const ex: Exchange = { seq, role: "user", gist: "" };
    this.deferred.exchanges.set(ex, text);
    if (t.first_user === null) {
      t.first_user = topic;
      t.first_exchange = ex;
    }
    t.last_user = topic;
    const prev = t.prev_assistant;
    if (prev?.long) {
      // spec §11.2: a user message after a long answer is a pivot of the thread
      t.pivots = keepNewest([...t.pivots, ex], this.acc.caps.maxExchanges);
      // a slash command ("/theme") instructs the host; a question ("Where were we?") does not settle
      if (codePointLength(text, DECISION_REPLY_MAX) < DECISION_REPLY_MAX && !text.startsWith("/") && !endsWithQuestion(text)) {
        // the proposal's gist is read only by a decision (prev_assistant is dropped below)
        this.settleProposal();
        const what = decisionText(prev.proposal, text);
        this.acc.addDecision(what, isoOf(timestampOf(m)));
        this.mark("decisions");
      } else this.deferred.proposal = null;
    }
    t.recent = keepNewest([...t.recent, ex], RECENT_ENTRIES);
    t.prev_assistant = null;
    t.last = { role: "user", stopReason: null, hasToolCalls: false, endsWithQuestion: false, tail: "" };
    this.mark("thread");
  }

  private onAssistant(m: AssistantMessage): void {
    // a provider's context-overflow error: pi drops it, compacts and retries the same turn
    if (m.stopReason === "error" && isOverflowError(m)) return;
    const t = this.acc.thread;
    const calls = toolCallsOf(m);
    if (t.host_turn) {
      // a heartbeat turn leaves the user's thread as it was: only its calls are tracked
      for (const call of calls) t.pending_calls.push(this.deferCall({ id: call.id, name: "", params_summary: "" }, call.name, call.arguments));
      if (t.pending_calls.length > this.acc.caps.maxTools) t.pending_calls = keepNewest(t.pending_calls, this.acc.caps.maxTools);
      this.mark("thread");
      return;
    }
    const text = assistantText(m);
    if (text) {
      const turn = this.acc.work.turnLog.currentTurn();
      if (turn) {
        const texts = this.deferred.turnTexts.get(turn);
        if (texts) texts.push(text);
        else this.deferred.turnTexts.set(turn, [text]);
      }
      this.mark("work");
      const seq = ++t.seq;
      const ex: Exchange = { seq, role: "agent", gist: "" };
      this.deferred.exchanges.set(ex, text);
      const lastRecent = t.recent[t.recent.length - 1];
      // several text replies in one turn: the latest stands for the turn
      t.recent = lastRecent?.role === "agent" ? [...t.recent.slice(0, -1), ex] : keepNewest([...t.recent, ex], RECENT_ENTRIES);
      const long = codePointLength(text, LONG_ANSWER_MIN + 1) > LONG_ANSWER_MIN;
      t.prev_assistant = { long, proposal: "" };
      if (long) this.deferred.proposal = { of: t.prev_assistant, text };
      const tasks = taskListItems(text);
      for (const item of tasks.open) this.openItem(`task\u0000${itemKey(item)}`, item);
      for (const item of tasks.done) this.closeItem(`task\u0000${itemKey(item)}`);
    }
    for (const call of calls) {
      if (isTaskTool(call.name)) {
        this.acc.work.turnLog.onTaskCall(safeGist(call.id, 80), safeGist(call.name, 40), safeGist(taskAsk(call.arguments), GIST.turnRequest));
        this.mark("work");
      }
      // summaries taken at the pass's end, for the calls still last or pending (settleCalls)
      t.last_tool_call = this.deferCall({ name: "", params_summary: "" }, call.name, call.arguments);
      t.pending_calls.push(this.deferCall({ id: call.id, name: "", params_summary: "" }, call.name, call.arguments));
    }
    if (t.pending_calls.length > this.acc.caps.maxTools) t.pending_calls = keepNewest(t.pending_calls, this.acc.caps.maxTools);
    if (isInterruptStop(m.stopReason)) {
      t.interrupted = true;
      const why = m.errorMessage ? safeGist(m.errorMessage, 80) : m.stopReason;
      this.openItem(`interrupted\u0000r${this.acc.work.requestCount}\u0000${t.seq}`, safeGist(`Interrupted turn (${why}): ${t.last_user ?? ""}`, GIST.item));
    } else if (m.stopReason === "stop") {
      if (text && calls.length === 0) {
        this.deferred.reports.push({ text, seq: this.acc.work.requestCount });
        this.mark("work");
      }
      // the agent completed a turn after the interruption: it has resumed
      if (t.interrupted) {
        t.interrupted = false;
        for (const key of this.acc.items.keys()) if (key.startsWith("interrupted\u0000")) this.closeItem(key);
      }
    }
    t.last = {
      role: "assistant",
      stopReason: typeof m.stopReason === "string" ? gist(m.stopReason, 40) : null,
      hasToolCalls: calls.length > 0,
      // both read from the text when it is still the last message's at the pass's end (settleDeferred)
      endsWithQuestion: false,
      tail: "",
    };
    this.deferred.tail = text ? { last: t.last, text } : null;
    this.mark("thread");
  }

  private deferCall<T extends LastToolCall>(entry: T, name: string, args: unknown): T {
    this.deferred.calls.set(entry, { name, args });
    return entry;
  }

  /** Fills a call's summary, if it is still to be taken. */
  private settleCall(entry: LastToolCall): void {
    const call = this.deferred.calls.get(entry);
    if (!call) return;
    this.deferred.calls.delete(entry);
    try {
      const s = summarizeToolCall(call.name, call.args);
      entry.name = s.name;
      entry.params_summary = s.params_summary;
    } catch (err) {
      this.log.fail("message capture", err);
    }
  }

  /** Each changed file's latest change gist from this pass (onFileChanged). */
  private settleChanges(): void {
    const work = this.acc.work;
    for (const [path, list] of this.deferred.changes) {
      if (!work.hasFile(path)) continue;
      try {
        for (let i = list.length - 1; i >= 0; i--) {
          const change = safeGist(changeGist(list[i]!.tool, list[i]!.input), GIST.change);
          if (!change) continue;
          work.setChange(path, change);
          break;
        }
      } catch (err) {
        this.log.fail("message capture", err);
      }
    }
  }

  /** The gists of the texts still standing at the end of a capture pass (state/deferred-gists.ts). */
  private settleDeferred(): void {
    const d = this.deferred;
    const t = this.acc.thread;
    try {
      if (d.tail && t.last === d.tail.last) t.last.endsWithQuestion = endsWithQuestion(d.tail.text);
      if (t.last_tool_call) this.settleCall(t.last_tool_call);
      for (const call of t.pending_calls) this.settleCall(call);
      this.settleChanges();
      this.settleTurnTexts();
      this.settleProposal();
      for (let i = d.reports.length - 1; i >= 0; i--) {
        const report = safeGist(d.reports[i]!.text, GIST.report);
        if (!report) continue;
        this.acc.work.onReport(report, d.reports[i]!.seq);
        break;
      }
      if (d.tail && t.last === d.tail.last) t.last.tail = safeGist(lastNonBlankLine(d.tail.text), GIST.topic);
      for (const ex of [...t.recent, ...t.pivots, t.first_exchange]) {
        const text = ex ? d.exchanges.get(ex) : undefined;
        if (ex && text !== undefined) {
          ex.gist = safeGist(text, GIST.exchange);
          d.exchanges.delete(ex);
        }
      }
    } catch (err) {
      this.log.fail("message capture", err);
    } finally {
      d.clearPass();
    }
  }

  /** Each turn's outcome, for the turns the log still holds: its latest text with a gist. */
  private settleTurnTexts(): void {
    const log = this.acc.work.turnLog;
    for (const [turn, texts] of this.deferred.turnTexts) {
      if (!log.holds(turn)) continue;
      for (let i = texts.length - 1; i >= 0; i--) {
        const outcome = safeGist(texts[i]!, GIST.turnOutcome);
        if (!outcome) continue;
        log.onText(outcome, backtickNames(texts[i]!).map((n) => safeGist(n, GIST.name)).filter(Boolean), turn);
        break;
      }
    }
  }

  /** The pending long answer's proposal, when that answer is still the previous one. */
  private settleProposal(): void {
    const p = this.deferred.proposal;
    this.deferred.proposal = null;
    if (p && this.acc.thread.prev_assistant === p.of) p.of.proposal = proposalGist(p.text);
  }

  private onToolResultMessage(m: ToolResultMessage): void {
    const t = this.acc.thread;
    if (typeof m.toolCallId === "string" && isTaskTool(String(m.toolName))) {
      const outcome = safeGist(contentHeadTail(m.content, 2000), GIST.turnOutcome);
      if (this.acc.work.turnLog.onTaskResult(safeGist(m.toolCallId, 80), outcome, m.isError !== true)) this.mark("work");
    }
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
    const now = this.acc.work.requestCount;
    for (const key of this.acc.items.keys()) {
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
        this.acc.addDecision(text, now.toISOString());
        this.mark("decisions");
        return "Decision recorded.";
      case "learning":
        this.acc.addLearning(text);
        this.mark("learnings");
        return "Learning recorded.";
      case "open_item":
        this.openItem(`note\u0000${itemKey(text)}`, text);
        return "Open item recorded.";
      case "close_item": {
        const closed = this.acc.items.closeByText(text);
        // also closes the same item carried forward from an earlier checkpoint
        if (closed === 0) this.acc.items.markClosed(text);
        this.mark("open_items");
        return closed > 0 ? "Open item closed." : "Marked as closed.";
      }
    }
  }

  // ------------------------------------------------------------ accumulators

  private touchTool(tool: string): void {
    if (this.acc.resources.touchTool(tool)) this.mark("resources");
  }

  private touchFile(p: string, access: "read" | "modified"): void {
    if (this.acc.resources.touchFile(p, access)) this.mark("resources");
  }

  private openItem(key: string, text: string): void {
    if (this.acc.items.openItem(key, text)) this.mark("open_items");
  }

  private closeItem(key: string): void {
    if (this.acc.items.closeItem(key)) this.mark("open_items");
  }

  private mark(name: StateFileName): void {
    this.dirtyFiles.add(name);
  }

  // ------------------------------------------------------------ snapshot

  snapshot(): ContextStateSnapshot {
    return snapshotOf(this.acc, this.opts.sessionKey, this.opts.sessionId);
  }

  // ------------------------------------------------------------ persistence

  /**
   * Writes the changed files (each atomically; fsync'd only when `durable`: a turn's flush is
   * not, the reset after a checkpoint is, state/state-files.ts says why). Never throws: a
   * failure is logged once and the files stay dirty for the next flush. Calls are serialized.
   */
  flush(opts: { durable?: boolean } = {}): Promise<void> {
    this.flushChain = this.flushChain.then(() => this.flushNow(opts.durable ?? false));
    return this.flushChain;
  }

  private async flushNow(durable: boolean): Promise<void> {
    if (this.dirtyFiles.size === 0) return;
    const names = [...this.dirtyFiles];
    this.dirtyFiles.clear();
    const now = new Date().toISOString();
    const files = names.map((name) => ({ name, text: () => stateFileText(this.opts.sessionKey, this.opts.sessionId, now, stateFileData(this.acc, name)) }));
    // side by side (the directory fsync'd once when durable): the flush costs the slowest file, not the sum
    const failed = await writeStateFiles(this.fs, this.dir, files, { durable });
    for (const { name } of failed) this.dirtyFiles.add(name);
    if (failed.length > 0) this.log.fail("state write", failed[0]!.error);
    else this.log.clear("state write");
  }

  /**
   * After a checkpoint is written: clears what the checkpoint now holds
   * (CapturedState.clearCheckpointed) and flushes every file.
   */
  async reset(): Promise<void> {
    this.acc.clearCheckpointed();
    for (const name of STATE_FILE_NAMES) this.mark(name);
    await this.flush({ durable: true });
  }
}

function isOverflowError(m: AssistantMessage): boolean {
  try {
    return isContextOverflow(m);
  } catch {
    return false;
  }
}
