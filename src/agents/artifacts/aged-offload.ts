/**
 * Aged offload (docs/artifacts.md#aged-offload): a consumed tool result, or a succeeded call's long
 * arguments, shown as a stash once `ageTurns` old. Blobs are written at tool_result time, so a request
 * only swaps; what was never seen then (a resumed session, the plugin route) is judged off the request
 * path. Sticky, so the prompt prefix stays byte-stable for provider caches.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { longArgs, stashTextOf, withAgedArgs } from "./aged-call-args.js";
import { agedRule, offloadToolResult, type OffloadSettings, type ToolResultLike } from "./offload.js";
import { stashArtifact, withBatchedRefs } from "./store.js";
import { callIdsOf } from "../messages/message-key.js";

type TextContent = Array<{ type: "text"; text: string }>;

/** bound on remembered ids per session (a result beyond it simply stays whole) */
const MAX_TRACKED = 20_000;
/** Catch-up items judged per event-loop turn (by count, not time: what ages must not depend on load). */
const CATCH_UP_SLICE = 8;

/** `at`: the index of the result / the call's message in the pass that queued it */
type QueuedResult = ToolResultLike & { toolCallId: string; at: number };
type QueuedCall = { toolName: string; toolCallId: string; input: unknown; at: number };

/** What a request would age for the first time, for the prompt-cache policy to judge. */
export interface FreshAging {
  /** index of the earliest message it would change */
  earliest: number;
  savedChars: number;
  count: number;
}

/** true: swap the fresh agings in now; false: hold them (they are judged again next request). */
export type AgingGate = (fresh: FreshAging, messages: readonly AgentMessage[]) => boolean;

/** Chars of a message content's text blocks (a string content counts whole). */
function textChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const b of content as Array<{ type?: unknown; text?: unknown }>) if (b && b.type === "text" && typeof b.text === "string") n += b.text.length;
  return n;
}

type CallLike = { type?: string; id?: unknown; name?: unknown; arguments?: unknown };

interface Swap {
  index: number;
  id: string;
  message: AgentMessage;
}

interface LastPass {
  length: number;
  boundary: number;
  swaps: Swap[];
  tailRole: unknown;
  tailTime: unknown;
}

/** What identifies a swapped message: a result's toolCallId, a reply's first call id. */
function idAt(message: AgentMessage | undefined): string | undefined {
  const m = message as { role?: unknown; toolCallId?: unknown } | undefined;
  if (m?.role === "toolResult") return typeof m.toolCallId === "string" ? m.toolCallId : undefined;
  return message ? callIdsOf(message)[0] : undefined;
}

export class AgedOffload {
  // by toolCallId: replacements stashed but not old enough (pending) or shown from now on (aged);
  // the same for call arguments (a handle, then the aged arguments); `checked`: judged once
  private readonly pending = new Map<string, TextContent>();
  private readonly aged = new Map<string, TextContent>();
  private readonly checked = new Set<string>();
  private readonly pendingArgs = new Map<string, string>();
  private readonly agedArgs = new Map<string, unknown>();
  private readonly argsChecked = new Set<string>();
  private last: LastPass | null = null;
  /** earliest index a catch-up stashed at since the last pass: the next pass judges from there (O(new)) */
  private rejudgeFrom = Infinity;
  /** results and calls never seen at tool_result time, judged off the request path (calls first) */
  private readonly queue = { results: [] as QueuedResult[], calls: [] as QueuedCall[], scheduled: false };
  /** results and calls shown aged from now on */
  readonly stats = { aged: 0, argsAged: 0 };

  constructor(
    private readonly settings: OffloadSettings,
    private readonly where: { stateDir: string; sessionKey: string },
    /** where catch-up failures go (the host shell points it at the current run's log) */
    public onError: (e: unknown) => void = () => {},
  ) {}

  private schedule(): void {
    if (this.queue.scheduled) return;
    this.queue.scheduled = true;
    setImmediate(() => this.catchUp(true));
  }

  /** Judges the queue; `sliced` (scheduled): CATCH_UP_SLICE at a time, so a gateway's other chats run. */
  private catchUp(sliced = false): void {
    const q = this.queue;
    withBatchedRefs(() => {
      q.scheduled = false;
      for (let done = 0; q.results.length > 0 || q.calls.length > 0; done++) {
        if (sliced && done >= CATCH_UP_SLICE) return this.schedule();
        try {
          // what a catch-up stashes may age where the last pass did not swap: the next pass judges from there
          const c = q.calls.shift();
          if (c) {
            this.stashArgs(c.toolName, c.toolCallId, c.input);
            if (this.pendingArgs.has(c.toolCallId)) this.rejudgeFrom = Math.min(this.rejudgeFrom, c.at);
          } else {
            const r = q.results.shift()!;
            if (this.stash(r, r.toolCallId)) this.rejudgeFrom = Math.min(this.rejudgeFrom, r.at);
          }
        } catch (e) {
          this.onError(e);
        }
      }
    }, (e) => this.onError(e));
  }

  get enabled(): boolean {
    return this.settings.enabled && this.settings.ageTurns > 0;
  }

  /** tool_result time: stash a result now, so aging it later is a swap. Throws on I/O errors. */
  register(event: ToolResultLike): { handle: string; bytes: number } | null {
    const id = event.toolCallId;
    if (!this.enabled || !id || this.checked.has(id) || this.checked.size >= MAX_TRACKED) return null;
    this.checked.add(id);
    return this.stash(event, id);
  }

  /** tool_result time: a succeeded call's long arguments are stashed for aging. Throws on I/O errors. */
  registerCall(event: ToolResultLike & { input?: unknown }): void {
    const id = event.toolCallId;
    if (!this.enabled || !this.settings.ageToolArgs || !id || event.isError) return;
    if (this.argsChecked.has(id) || this.argsChecked.size >= MAX_TRACKED) return;
    this.argsChecked.add(id);
    this.stashArgs(event.toolName, id, event.input);
  }

  /** One artifact for all of a call's long arguments; the marker is built when the call ages. */
  private stashArgs(toolName: string, id: string, input: unknown): void {
    const args = longArgs(input);
    if (args.reduce((n, a) => n + a.text.length, 0) < this.settings.agedMinChars) return;
    const { stateDir, sessionKey } = this.where;
    const stash = { text: stashTextOf(args), kind: "tool_input", tool: toolName, sessionKey, toolCallId: id };
    this.pendingArgs.set(id, stashArtifact(stateDir, stash).receipt.handle);
  }

  private agedArgsOf(block: CallLike, id: string): unknown {
    let args = this.agedArgs.get(id);
    if (args !== undefined) return args;
    const handle = this.pendingArgs.get(id);
    if (!handle) return undefined;
    this.pendingArgs.delete(id);
    args = withAgedArgs(block.arguments, handle);
    this.agedArgs.set(id, args);
    this.stats.argsAged++;
    return args;
  }

  private stash(event: ToolResultLike, id: string): { handle: string; bytes: number } | null {
    const out = offloadToolResult(event, this.where, agedRule(this.settings));
    if (!out || out.savedChars <= 0) return null;
    this.pending.set(id, out.patch.content);
    return { handle: out.receipt.handle, bytes: out.receipt.bytes };
  }

  /** Rough bytes held, for the process cache's budget. */
  approxBytes(): number {
    return 4_096 + (this.pending.size + this.aged.size + this.agedArgs.size + this.pendingArgs.size) * 800 + (this.checked.size + this.argsChecked.size) * 64 + (this.last?.swaps.length ?? 0) * 64;
  }

  /** The messages with aged ones swapped (the same array when none); `gate`: the prompt-cache policy. */
  apply(messages: AgentMessage[], gate?: AgingGate, ageTurns = this.settings.ageTurns): AgentMessage[] {
    if (!this.enabled) return messages;
    const boundary = this.boundaryOf(messages, Math.max(1, ageTurns));
    const last = this.last;
    // only appended to since (pi, between compactions): re-place the swaps, judge what is new or newly old
    const rejudgeFrom = this.rejudgeFrom;
    this.rejudgeFrom = Infinity;
    if (last && messages.length >= last.length && this.stillInPlace(messages, last)) {
      const from = Math.max(0, Math.min(last.boundary, last.length, rejudgeFrom));
      const kept = last.swaps.filter((s) => s.index < from);
      const out = kept.length > 0 ? messages.slice() : null;
      for (const s of kept) out![s.index] = s.message;
      return this.pass(messages, from, boundary, out, kept, gate);
    }
    // indices queued against an earlier history no longer say where their messages stand
    for (const queued of [...this.queue.results, ...this.queue.calls]) queued.at = 0;
    return this.pass(messages, 0, boundary, null, [], gate);
  }

  /** index of the ageTurns-th assistant message from the end: what stands before it is old */
  private boundaryOf(messages: AgentMessage[], ageTurns: number): number {
    for (let i = messages.length - 1, seen = 0; i >= 0; i--) {
      if ((messages[i] as { role?: string }).role === "assistant" && ++seen === ageTurns) return i;
    }
    return -1;
  }

  private stillInPlace(messages: AgentMessage[], last: LastPass): boolean {
    const tail = messages[last.length - 1] as { role?: unknown; timestamp?: unknown } | undefined;
    if (!tail || tail.role !== last.tailRole || tail.timestamp !== last.tailTime) return false;
    for (const s of last.swaps) if (idAt(messages[s.index]) !== s.id) return false;
    return true;
  }

  /** Judges messages[from..] into `out`; first-time agings go in as one batch if `gate` allows. */
  private pass(messages: AgentMessage[], from: number, boundary: number, out: AgentMessage[] | null, swaps: Swap[], gate?: AgingGate): AgentMessage[] {
    // old calls never judged (a resumed session, the plugin route): judged once their result shows success
    let unjudged = null as Map<string, { call: CallLike; at: number }> | null;
    const swap = (index: number, id: string, message: AgentMessage) => {
      out ??= messages.slice();
      out[index] = message;
      swaps.push({ index, id, message });
    };
    const freshResults: Array<{ index: number; id: string }> = [];
    const freshCalls: number[] = [];
    let savedChars = 0;
    for (let i = from; i < messages.length; i++) {
      const m = messages[i] as { role?: string; toolCallId?: unknown; isError?: unknown; toolName?: unknown; content?: unknown };
      if (m.role === "assistant" && i < boundary && this.settings.ageToolArgs && Array.isArray(m.content)) {
        const held = gate ? this.freshArgsChars(m.content as CallLike[]) : 0;
        if (held > 0) {
          freshCalls.push(i);
          savedChars += held;
        }
        const blocks = this.agedCallBlocks(m.content as CallLike[], gate === undefined, (b) => {
          if (!this.argsChecked.has(b.id as string)) (unjudged ??= new Map()).set(b.id as string, { call: b, at: i });
        });
        if (blocks) swap(i, idAt(messages[i])!, { ...(m as object), content: blocks } as AgentMessage);
        continue;
      }
      if (m.role !== "toolResult" || typeof m.toolCallId !== "string") continue;
      const id = m.toolCallId;
      const call = unjudged?.get(id);
      if (call) this.queueArgsCatchUp(call.call, id, m.isError === true, call.at);
      let content = this.aged.get(id);
      if (!content && i < boundary) {
        const pending = this.pending.get(id);
        if (pending && gate) {
          freshResults.push({ index: i, id });
          savedChars += Math.max(0, textChars(m.content) - textChars(pending));
        } else if (pending) content = this.ageResult(id, pending);
        else if (!this.checked.has(id)) this.queueCatchUp(m as unknown as QueuedResult, i);
      }
      if (content) swap(i, id, { ...(m as object), content } as AgentMessage);
    }
    let judgedUpTo = boundary;
    if (gate && (freshResults.length > 0 || freshCalls.length > 0)) {
      const earliest = Math.min(freshResults[0]?.index ?? Infinity, freshCalls[0] ?? Infinity);
      if (gate({ earliest, savedChars, count: freshResults.length + freshCalls.length }, messages)) {
        for (const r of freshResults) swap(r.index, r.id, { ...(messages[r.index] as object), content: this.ageResult(r.id, this.pending.get(r.id)!) } as AgentMessage);
        for (const i of freshCalls) {
          const m = messages[i] as { content: CallLike[] };
          const blocks = this.agedCallBlocks(m.content, true, () => {});
          if (!blocks) continue;
          const at = swaps.findIndex((s) => s.index === i);
          if (at >= 0) swaps.splice(at, 1);
          swap(i, idAt(messages[i])!, { ...(m as object), content: blocks } as AgentMessage);
        }
      } else judgedUpTo = Math.min(boundary, earliest); // held back: judged again from there
    }
    const tail = messages[messages.length - 1] as { role?: unknown; timestamp?: unknown } | undefined;
    this.last = { length: messages.length, boundary: judgedUpTo, swaps, tailRole: tail?.role, tailTime: tail?.timestamp };
    return out ?? messages;
  }

  private ageResult(id: string, content: TextContent): TextContent {
    this.pending.delete(id);
    this.aged.set(id, content);
    this.stats.aged++;
    return content;
  }

  /** Chars the blocks' stashed, not yet aged arguments would take off the prompt. */
  private freshArgsChars(content: CallLike[]): number {
    let n = 0;
    for (const b of content) {
      if (!b || b.type !== "toolCall" || typeof b.id !== "string" || this.agedArgs.has(b.id) || !this.pendingArgs.has(b.id)) continue;
      for (const a of longArgs(b.arguments)) n += a.text.length;
    }
    return n;
  }

  /** The blocks with aged arguments (null: none); `ageNew`: stashed arguments age now. */
  private agedCallBlocks(content: CallLike[], ageNew: boolean, unjudged: (b: CallLike) => void): unknown[] | null {
    let blocks: unknown[] | null = null;
    for (let j = 0; j < content.length; j++) {
      const b = content[j];
      if (!b || b.type !== "toolCall" || typeof b.id !== "string") continue;
      const args = ageNew ? this.agedArgsOf(b, b.id) : this.agedArgs.get(b.id);
      if (args === undefined) {
        if (ageNew || !this.pendingArgs.has(b.id)) unjudged(b);
        continue;
      }
      blocks ??= content.slice();
      blocks[j] = { ...b, arguments: args };
    }
    return blocks;
  }

  /** A call never seen at tool_result time: judged once; its arguments age from the next request on. */
  private queueArgsCatchUp(call: CallLike, id: string, isError: boolean, at: number): void {
    if (this.argsChecked.size >= MAX_TRACKED) return;
    this.argsChecked.add(id);
    if (isError) return;
    const toolName = typeof call.name === "string" ? call.name : "";
    this.queue.calls.push({ toolName, toolCallId: id, input: call.arguments, at });
    this.schedule();
  }

  /** A result never seen at tool_result time: judge and stash it once, after this request is on its way. */
  private queueCatchUp(m: ToolResultLike & { toolCallId: string }, at: number): void {
    if (this.checked.size >= MAX_TRACKED) return;
    this.checked.add(m.toolCallId);
    const { toolName, toolCallId, content } = m;
    this.queue.results.push({ toolName, toolCallId, content, isError: m.isError === true, at });
    this.schedule();
  }

  /** Resumed session start: judge and stash old results now; nothing swapped (it would rewrite a cached prompt). */
  warm(messages: AgentMessage[]): void {
    if (!this.enabled) return;
    this.apply(messages, () => false);
    this.catchUp();
  }
}
