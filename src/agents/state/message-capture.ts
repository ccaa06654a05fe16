/**
 * The capture into state (spec §7.2, §11, docs/capture-rules.md): Layer A per tool result, Layer B in a pass
 * over the messages not seen yet (with Layer A for a host without `tool_result` events); gists taken at its end.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { LastToolCall } from "../checkpoint/schema.js";
import type { OnceLogger } from "../../infra/log-once.js";
import { assistantText, isInjectedMessage, prop, toolCallsOf, toolPathArg, userText } from "../messages/read.js";
import { isContextOverflowError } from "../messages/context-overflow.js";
import { changeGist, commandFamily, exitCodeOf, isEmptySearch, removedPaths } from "../messages/tool-outcome.js";
import { messageTokens } from "../gauge/context-gauge.js";
import { userOrigin } from "../messages/host-provenance.js";
import { asText, codePointLength, gist, safeGist } from "../text/gist.js";
import { DECISION_REPLY_MAX, GIST, LONG_ANSWER_MIN, contentHeadTail, extractToolResult } from "./capture-rules.js";
import { endsWithQuestion, gistedNames, itemKey, lastNonBlankLine, normalizeToolPath } from "./capture-rules.js";
import { proposalGist, summarizeToolCall, taskListItems, type ToolResultEventLike } from "./capture-rules.js";
import { changedText, declaredNames } from "./declared-names.js";
import type { CapturedState } from "./captured-state.js";
import { keepNewest } from "./lru.js";
import { type Exchange, type LastMessageInfo, RECENT_ENTRIES, type Thread } from "./thread-data.js";
import { advanceCursor, resumeIndex, timestampOf } from "./thread-data.js";
import { FAILURE_SUPERSEDED_AFTER_REQUESTS } from "./work-ledger.js";
import { backtickNames, isTaskTool, taskAsk } from "./turn-log.js";

type AssistantMessage = Extract<AgentMessage, { role: "assistant" }>;
type ToolResultMessage = Extract<AgentMessage, { role: "toolResult" }>;
type Changes = Map<string, Array<{ tool: string; input: unknown }>>;

export interface MessageCaptureOptions {
  /** ms time of THIS session's latest checkpoint: without a saved cursor, capture starts after it */
  coveredUntil?: number | null;
  /** the host sends no `tool_result` events: tool results come from the messages, paths resolved against cwd */
  toolResultsFromMessages?: { cwd: string };
}

export class MessageCapture {
  // Texts a later message of the pass may replace: gisted only if still standing at its end (most never are).
  /** each turn's texts by turn-log entry, oldest first (the latest with a gist stands for the turn) */
  private readonly turnTexts = new Map<object, string[]>();
  /** turn-ending texts with the request number they answered, oldest first */
  private reports: Array<{ text: string; seq: number }> = [];
  /** the last message's info object, whose tail is this text's last line */
  private tail: { last: LastMessageInfo; text: string } | null = null;
  private readonly exchanges = new Map<Exchange, string>();
  /** a long answer's proposal, by the prev_assistant object it belongs to */
  private proposal: { of: NonNullable<Thread["prev_assistant"]>; text: string } | null = null;
  /** per changed path, this pass's edit/write calls, oldest first (the latest with a gist stands) */
  private readonly changes: Changes = new Map();
  /** summaries not taken yet, by the last_tool_call or pending call object they fill */
  private readonly calls = new Map<LastToolCall, { name: string; args: unknown }>();

  constructor(
    protected readonly s: CapturedState,
    protected readonly opts: MessageCaptureOptions,
    protected readonly log: OnceLogger,
  ) {}

  /** The messages after the last seen one; `end`: the first `end` as if they were all (no copies). */
  captureMessages(messages: readonly AgentMessage[], end = messages.length): void {
    end = Math.max(0, Math.min(end, messages.length));
    const start = resumeIndex(this.s.thread.cursor, messages, this.opts.coveredUntil ?? null, end);
    const tools = this.opts.toolResultsFromMessages;
    let tokens = 0;
    for (let i = start; i < end; i++) {
      try {
        const m = messages[i]!;
        if (!m || typeof m !== "object" || isInjectedMessage(m)) continue;
        tokens += messageTokens(m);
        // before the message itself (pi's tool_result event comes before the result is in the
        // history); a heartbeat turn's tools are the host's, like the rest of that turn
        const result = tools && m.role === "toolResult" && !this.s.thread.host_turn;
        if (result) this.captureToolResult(toolResultEventOf(messages, i), tools.cwd, dateOf(m), this.changes);
        this.processMessage(m);
      } catch (err) {
        // one malformed message must not stop capture of the ones after it (the cursor moves on)
        this.log.fail("message capture", err);
      }
    }
    if (start < end) this.settleDeferred();
    if (tokens > 0) this.s.thread.captured_tokens += tokens;
    const cursor = advanceCursor(this.s.thread.cursor, messages, Math.max(0, end - start), end);
    if (cursor) this.s.thread.cursor = cursor;
    if (tokens > 0 || cursor) this.s.mark("thread");
  }

  /**
   * A tool result into resources, thread.errors and the work ledger; a search that found nothing is
   * no failure. `pass`: the capture pass's changes, whose gists wait for its end.
   */
  captureToolResult(ev: ToolResultEventLike, cwd: string, now = new Date(), pass?: Changes): void {
    const t = this.s;
    const command = prop(ev.input, "command");
    const family = typeof command === "string" ? safeGist(commandFamily(command), 60) : "";
    // read once: a failure's error line and the command's outcome come from the same head and tail
    const output = ev.isError || family ? contentHeadTail(ev.content) : "";
    const cap = extractToolResult(ev, cwd, now, ev.isError ? output : undefined);
    t.touchTool(cap.tool);
    const emptySearch = ev.isError && isEmptySearch(asText(ev.toolName), ev.input, output);
    if (cap.failure && !emptySearch) {
      t.addError(cap.failure);
      t.work.onFailure(cap.failure, family);
      t.mark("work");
    } else if (t.work.onSuccess(cap.tool, cap.target, family)) t.mark("work");
    if (family && typeof command === "string") {
      const exit = exitCodeOf(output) ?? (ev.isError ? null : 0);
      // without a path argument the capture's target is this command's gist already
      const commandGist = toolPathArg(ev.input) === null ? cap.target : safeGist(command, GIST.command);
      t.work.onCommand(family, commandGist, !cap.failure || emptySearch, exit, now);
      t.mark("work");
      // a removal that certainly ran: the changed files it deleted are no longer there
      if (!cap.failure && exit === 0) {
        for (const p of removedPaths(command)) t.work.onPathRemoved(normalizeToolPath(p, cwd), now);
      }
    }
    if (cap.file) {
      t.touchFile(cap.file.path, cap.file.access);
      if (cap.file.access === "modified" && (cap.tool === "edit" || cap.tool === "write")) {
        const file = cap.file.path;
        const names = gistedNames(declaredNames(changedText(cap.tool, ev.input), file));
        // in a pass, the change gist is taken at its end, of the latest change that says something
        if (pass) {
          const list = (t.work.hasFile(file) && pass.get(file)) || [];
          list.push({ tool: cap.tool, input: ev.input });
          pass.set(file, list);
        }
        const change = pass ? "" : safeGist(changeGist(cap.tool, ev.input), GIST.change);
        t.work.onFileChanged(file, cap.tool, change, now, names);
        t.mark("work");
      }
    }
  }

  private processMessage(m: AgentMessage): void {
    // custom (host) messages, bashExecution, compaction/branch summaries: not conversation turns
    if (m.role === "user") this.onUser(m);
    else if (m.role === "assistant") this.onAssistant(m);
    else if (m.role === "toolResult") this.onToolResultMessage(m);
  }

  private onUser(m: AgentMessage): void {
    // host-written (heartbeat, cron, another session): not a request of the user's
    const origin = userOrigin(m);
    const text = origin === "user" ? userText(m) : "";
    const t = this.s.thread;
    t.host_turn = origin === "heartbeat";
    // a tool call that never got its result before the user spoke again: interrupted
    const req = this.s.work.requestCount;
    for (const call of t.pending_calls) {
      this.settleCall(call);
      this.s.openItem(`pending\u0000r${req}\u0000${call.id}`, safeGist(`Tool call without result: ${call.name} ${call.params_summary}`, GIST.item));
    }
    t.pending_calls = [];
    if (!text) {
      t.prev_assistant = null;
      this.s.mark("thread");
      return;
    }
    const topic = safeGist(text, GIST.topic);
    this.s.work.onUserRequest(topic, text, safeGist(text, GIST.turnRequest));
    this.s.mark("work");
    this.closeSupersededItems();
    const ex: Exchange = { seq: ++t.seq, role: "user", gist: "" };
    this.exchanges.set(ex, text);
    if (t.first_user === null) {
      t.first_user = topic;
      t.first_exchange = ex;
    }
    t.last_user = topic;
    const prev = t.prev_assistant;
    if (prev?.long) {
      // spec §11.2: a user message after a long answer is a pivot of the thread
      t.pivots = keepNewest([...t.pivots, ex], this.s.caps.maxExchanges);
      // a slash command ("/theme") instructs the host; a question ("Where were we?") does not settle
      if (codePointLength(text, DECISION_REPLY_MAX) < DECISION_REPLY_MAX && !text.startsWith("/") && !endsWithQuestion(text)) {
        // the proposal's gist is read only by a decision (prev_assistant is dropped below)
        this.settleProposal();
        this.s.addDecision(`${prev.proposal} → ${safeGist(text, GIST.decisionReply)}`, dateOf(m).toISOString());
      } else this.proposal = null;
    }
    t.recent = keepNewest([...t.recent, ex], RECENT_ENTRIES);
    t.prev_assistant = null;
    t.last = lastInfo("user");
    this.s.mark("thread");
  }

  private onAssistant(m: AssistantMessage): void {
    // a provider's context-overflow error: pi drops it, compacts and retries the same turn
    if (m.stopReason === "error" && isContextOverflowError(m)) return;
    const t = this.s.thread;
    const calls = toolCallsOf(m);
    // a heartbeat turn leaves the user's thread as it was: only its calls are tracked
    const text = t.host_turn ? "" : assistantText(m);
    if (text) {
      const turn = this.s.work.turnLog.currentTurn();
      if (turn) {
        const texts = this.turnTexts.get(turn);
        if (texts) texts.push(text);
        else this.turnTexts.set(turn, [text]);
      }
      this.s.mark("work");
      const ex: Exchange = { seq: ++t.seq, role: "agent", gist: "" };
      this.exchanges.set(ex, text);
      const lastRecent = t.recent[t.recent.length - 1];
      // several text replies in one turn: the latest stands for the turn
      t.recent = lastRecent?.role === "agent" ? [...t.recent.slice(0, -1), ex] : keepNewest([...t.recent, ex], RECENT_ENTRIES);
      const long = codePointLength(text, LONG_ANSWER_MIN + 1) > LONG_ANSWER_MIN;
      t.prev_assistant = { long, proposal: "" };
      if (long) this.proposal = { of: t.prev_assistant, text };
      const tasks = taskListItems(text);
      for (const item of tasks.open) this.s.openItem(`task\u0000${itemKey(item)}`, item);
      for (const item of tasks.done) this.s.closeItem(`task\u0000${itemKey(item)}`);
    }
    for (const call of calls) {
      // summaries taken at the pass's end, for the calls still last or pending (settleCall)
      t.pending_calls.push(this.deferCall({ id: call.id, name: "", params_summary: "" }, call.name, call.arguments));
      if (t.host_turn) continue;
      if (isTaskTool(call.name)) {
        this.s.work.turnLog.onTaskCall(safeGist(call.id, 80), safeGist(call.name, 40), safeGist(taskAsk(call.arguments), GIST.turnRequest));
        this.s.mark("work");
      }
      t.last_tool_call = this.deferCall({ name: "", params_summary: "" }, call.name, call.arguments);
    }
    t.pending_calls = keepNewest(t.pending_calls, this.s.caps.maxTools);
    if (t.host_turn) return this.s.mark("thread");
    if (m.stopReason === "aborted" || m.stopReason === "error") {
      t.interrupted = true;
      const why = m.errorMessage ? safeGist(m.errorMessage, 80) : m.stopReason;
      this.s.openItem(`interrupted\u0000r${this.s.work.requestCount}\u0000${t.seq}`, safeGist(`Interrupted turn (${why}): ${t.last_user ?? ""}`, GIST.item));
    } else if (m.stopReason === "stop") {
      if (text && calls.length === 0) {
        this.reports.push({ text, seq: this.s.work.requestCount });
        this.s.mark("work");
      }
      // the agent completed a turn after the interruption: it has resumed
      if (t.interrupted) {
        t.interrupted = false;
        for (const key of this.s.open.keys()) if (key.startsWith("interrupted\u0000")) this.s.closeItem(key);
      }
    }
    // endsWithQuestion and tail read from the text if it is still the last message's at the pass's end
    const stopReason = typeof m.stopReason === "string" ? gist(m.stopReason, 40) : null;
    t.last = { ...lastInfo("assistant"), stopReason, hasToolCalls: calls.length > 0 };
    this.tail = text ? { last: t.last, text } : null;
    this.s.mark("thread");
  }

  private onToolResultMessage(m: ToolResultMessage): void {
    const t = this.s.thread;
    if (typeof m.toolCallId === "string" && isTaskTool(String(m.toolName))) {
      const outcome = safeGist(contentHeadTail(m.content, 2000), GIST.turnOutcome);
      if (this.s.work.turnLog.onTaskResult(safeGist(m.toolCallId, 80), outcome, m.isError !== true)) this.s.mark("work");
    }
    if (t.pending_calls.length > 0) t.pending_calls = t.pending_calls.filter((c) => c.id !== m.toolCallId);
    if (!t.host_turn) t.last = lastInfo("toolResult");
    this.s.mark("thread");
  }

  /** Interrupted turns and calls without a result close two requests after theirs (in their key), like failures. */
  private closeSupersededItems(): void {
    const now = this.s.work.requestCount;
    for (const key of this.s.open.keys()) {
      const m = /^(?:interrupted|pending)\u0000r(\d+)\u0000/.exec(key);
      if (m && now - Number(m[1]) >= FAILURE_SUPERSEDED_AFTER_REQUESTS) this.s.closeItem(key);
    }
  }

  private deferCall<T extends LastToolCall>(entry: T, name: string, args: unknown): T {
    this.calls.set(entry, { name, args });
    return entry;
  }

  private settleCall(entry: LastToolCall): void {
    const call = this.calls.get(entry);
    if (!call) return;
    this.calls.delete(entry);
    try {
      Object.assign(entry, summarizeToolCall(call.name, call.args));
    } catch (err) {
      this.log.fail("message capture", err);
    }
  }

  /** The pending long answer's proposal, when that answer is still the previous one. */
  private settleProposal(): void {
    const p = this.proposal;
    this.proposal = null;
    if (p && this.s.thread.prev_assistant === p.of) p.of.proposal = proposalGist(p.text);
  }

  /** The gists of the texts still standing at the end of a capture pass. */
  private settleDeferred(): void {
    const { s, tail } = this;
    const t = s.thread;
    try {
      if (tail && t.last === tail.last) t.last.endsWithQuestion = endsWithQuestion(tail.text);
      if (t.last_tool_call) this.settleCall(t.last_tool_call);
      for (const call of t.pending_calls) this.settleCall(call);
      // each changed file's latest change gist from this pass
      for (const [path, list] of this.changes) {
        if (!s.work.hasFile(path)) continue;
        try {
          const change = latestWithGist(list, (c) => safeGist(changeGist(c.tool, c.input), GIST.change));
          if (change) s.work.setChange(path, change.gist);
        } catch (err) {
          this.log.fail("message capture", err);
        }
      }
      // each turn's outcome, for the turns the log still holds
      const log = s.work.turnLog;
      for (const [turn, texts] of this.turnTexts) {
        const outcome = log.holds(turn) ? latestWithGist(texts, (x) => safeGist(x, GIST.turnOutcome)) : null;
        if (outcome) log.onText(outcome.gist, gistedNames(backtickNames(outcome.item)), turn);
      }
      this.settleProposal();
      const report = latestWithGist(this.reports, (r) => safeGist(r.text, GIST.report));
      if (report) s.work.onReport(report.gist, report.item.seq);
      if (tail && t.last === tail.last) t.last.tail = safeGist(lastNonBlankLine(tail.text), GIST.topic);
      for (const ex of [...t.recent, ...t.pivots, t.first_exchange]) {
        const text = ex ? this.exchanges.get(ex) : undefined;
        if (ex && text !== undefined) {
          ex.gist = safeGist(text, GIST.exchange);
          this.exchanges.delete(ex);
        }
      }
    } catch (err) {
      this.log.fail("message capture", err);
    } finally {
      this.turnTexts.clear();
      this.reports = [];
      this.tail = null;
      this.exchanges.clear();
      this.changes.clear();
      this.calls.clear();
    }
  }
}

/** The newest of `items` whose gist is not empty, with that gist (the latest that says something stands). */
function latestWithGist<T>(items: readonly T[], gistOf: (item: T) => string): { item: T; gist: string } | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const g = gistOf(items[i]!);
    if (g) return { item: items[i]!, gist: g };
  }
  return null;
}

const lastInfo = (role: LastMessageInfo["role"]): LastMessageInfo =>
  ({ role, stopReason: null, hasToolCalls: false, endsWithQuestion: false, tail: "" });

/** When a message was written, as capture records it: now when its timestamp is missing or unusable. */
function dateOf(m: AgentMessage): Date {
  const ts = timestampOf(m);
  const d = ts > 0 ? new Date(ts) : new Date();
  return Number.isNaN(d.getTime()) ? new Date() : d;
}

/** a result sits right after its call in every host's history; a bound keeps a hostile one cheap */
const LOOKBACK = 64;

/**
 * A toolResult message as the `tool_result` event pi would have sent for it, for hosts that send
 * none (OpenClaw's context engine); the call's arguments come from the assistant message that made it.
 */
function toolResultEventOf(messages: readonly AgentMessage[], index: number): ToolResultEventLike {
  const m = messages[index] as ToolResultMessage;
  const id = typeof m.toolCallId === "string" ? m.toolCallId : undefined;
  let call: ToolCallBlock | undefined;
  for (let i = index - 1; id !== undefined && !call && i >= Math.max(0, index - LOOKBACK); i--) {
    const prev = messages[i];
    if (prev?.role === "assistant") call = toolCallBlock(prev, id);
  }
  const name = typeof m.toolName === "string" ? m.toolName : "";
  return { toolName: name, toolCallId: id, input: call?.arguments ?? {}, content: m.content, isError: m.isError === true };
}

/** The message's tool call block with this id (toolCallsOf's reading of ids), without a list of every call. */
function toolCallBlock(msg: AssistantMessage, id: string): ToolCallBlock | undefined {
  const content: unknown = msg.content;
  if (!Array.isArray(content)) return undefined;
  for (const b of content as Array<ToolCallBlock | undefined>) if (b?.type === "toolCall" && asText(b.id) === id) return b;
  return undefined;
}

type ToolCallBlock = { type?: unknown; id?: unknown; arguments?: unknown };
