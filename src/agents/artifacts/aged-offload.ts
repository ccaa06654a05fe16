/**
 * Aged offload (docs/artifacts.md#aged-offload): a consumed tool result, or a succeeded call's long arguments,
 * shown as a stash once `ageTurns` old; blobs are written at tool_result time (or off the request path), so
 * a request only swaps. Sticky, so the prompt prefix stays byte-stable for provider caches.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { agedRule, longArgs, offloadToolResult, type OffloadSettings } from "./offload.js";
import { stashTextOf, type ToolResultLike, withAgedArgs } from "./offload.js";
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

/** What a request would age for the first time, for the prompt-cache policy to judge (`earliest`: its first index). */
export type FreshAging = { earliest: number; savedChars: number; count: number };

/** true: swap the fresh agings in now; false: hold them (they are judged again next request). */
export type AgingGate = (fresh: FreshAging, messages: readonly AgentMessage[]) => boolean;

/** Chars of a message content's text blocks (a string content counts whole). */
function textChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  let n = 0;
  for (const b of Array.isArray(content) ? (content as Array<{ type?: unknown; text?: unknown }>) : []) {
    if (b && b.type === "text" && typeof b.text === "string") n += b.text.length;
  }
  return n;
}

type CallBlock = { type: "toolCall"; id: string; name?: unknown; arguments?: unknown };

type Swap = { index: number; id: string; message: AgentMessage };
type LastPass = { length: number; boundary: number; swaps: Swap[]; tailRole: unknown; tailTime: unknown };

/** What identifies a swapped message: a result's toolCallId, a reply's first call id. */
function idAt(message: AgentMessage | undefined): string | undefined {
  const m = message as { role?: unknown; toolCallId?: unknown } | undefined;
  if (m?.role === "toolResult") return typeof m.toolCallId === "string" ? m.toolCallId : undefined;
  return message ? callIdsOf(message)[0] : undefined;
}

/** One kind of stash by toolCallId: stashed, not old enough (`pending`), shown from now on (`aged`). */
class Track<P, A> {
  readonly pending = new Map<string, P>();
  readonly aged = new Map<string, A>();
  readonly checked = new Set<string>();

  constructor(private readonly make: (pending: P, args: unknown) => A) {}

  /** Marks `id` judged; false when it was, or the bound is reached. */
  claim(id: string): boolean {
    if (this.checked.has(id) || this.checked.size >= MAX_TRACKED) return false;
    this.checked.add(id);
    return true;
  }

  /** The aged form of `id`, made from its pending one on first use (an id is stashed once, so never both). */
  age(id: string, args?: unknown): A | undefined {
    const pending = this.pending.get(id);
    if (pending === undefined) return this.aged.get(id);
    this.pending.delete(id);
    const aged = this.make(pending, args);
    this.aged.set(id, aged);
    return aged;
  }
}

export class AgedOffload {
  /** results: the replacement content; calls: the handle, then the aged arguments */
  private readonly results = new Track<TextContent, TextContent>((content) => content);
  private readonly calls = new Track<string, unknown>((handle, args) => withAgedArgs(args, handle));
  private last: LastPass | null = null;
  /** earliest index a catch-up stashed at since the last pass: the next pass judges from there (O(new)) */
  private rejudgeFrom = Infinity;
  /** results and calls never seen at tool_result time, judged off the request path (calls first) */
  private readonly queue = { results: [] as QueuedResult[], calls: [] as QueuedCall[], scheduled: false };

  constructor(
    private readonly settings: OffloadSettings,
    private readonly where: { stateDir: string; sessionKey: string },
    /** where catch-up failures go (the host shell points it at the current run's log) */
    public onError: (e: unknown) => void = () => {},
  ) {}

  get stats(): { aged: number; argsAged: number } {
    return { aged: this.results.aged.size, argsAged: this.calls.aged.size };
  }

  get enabled(): boolean {
    return this.settings.enabled && this.settings.ageTurns > 0;
  }

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
          const r = c ? undefined : q.results.shift()!;
          const stashed = c ? this.stashArgs(c.toolName, c.toolCallId, c.input) : this.stash(r!, r!.toolCallId) !== null;
          if (stashed) this.rejudgeFrom = Math.min(this.rejudgeFrom, (c ?? r)!.at);
        } catch (e) {
          this.onError(e);
        }
      }
    }, (e) => this.onError(e));
  }

  /** tool_result time: stash a result now, so aging it later is a swap. Throws on I/O errors. */
  register(event: ToolResultLike): { handle: string; bytes: number } | null {
    const id = event.toolCallId;
    return this.enabled && id && this.results.claim(id) ? this.stash(event, id) : null;
  }

  /** tool_result time: a succeeded call's long arguments are stashed for aging. Throws on I/O errors. */
  registerCall(event: ToolResultLike & { input?: unknown }): void {
    const id = event.toolCallId;
    if (!this.enabled || !this.settings.ageToolArgs || !id || event.isError || !this.calls.claim(id)) return;
    this.stashArgs(event.toolName, id, event.input);
  }

  /** One artifact for all of a call's long arguments (false: too short); the marker is built when the call ages. */
  private stashArgs(toolName: string, id: string, input: unknown): boolean {
    const args = longArgs(input);
    if (args.reduce((n, a) => n + a.text.length, 0) < this.settings.agedMinChars) return false;
    const { stateDir, sessionKey } = this.where;
    const stash = { text: stashTextOf(args), kind: "tool_input", tool: toolName, sessionKey, toolCallId: id };
    this.calls.pending.set(id, stashArtifact(stateDir, stash).receipt.handle);
    return true;
  }

  private stash(event: ToolResultLike, id: string): { handle: string; bytes: number } | null {
    const out = offloadToolResult(event, this.where, agedRule(this.settings));
    if (!out || out.savedChars <= 0) return null;
    this.results.pending.set(id, out.patch.content);
    return { handle: out.receipt.handle, bytes: out.receipt.bytes };
  }

  /** Rough bytes held, for the process cache's budget. */
  approxBytes(): number {
    const [r, c] = [this.results, this.calls];
    const held = r.pending.size + r.aged.size + c.pending.size + c.aged.size;
    return 4_096 + held * 800 + (r.checked.size + c.checked.size) * 64 + (this.last?.swaps.length ?? 0) * 64;
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

  /**
   * Judges messages[from..] into `out`. First-time agings (fresh: a pending result, a reply with a
   * pending call) go in as one batch at the end, if `gate` allows.
   */
  private pass(messages: AgentMessage[], from: number, boundary: number, out: AgentMessage[] | null, swaps: Swap[], gate?: AgingGate): AgentMessage[] {
    // old calls never judged (a resumed session, the plugin route): judged once their result shows success
    let unjudged = null as Map<string, QueuedCall> | null;
    const swap = (index: number, id: string, content: unknown) => {
      out ??= messages.slice();
      out[index] = { ...(messages[index] as object), content } as AgentMessage;
      swaps.push({ index, id, message: out[index] });
    };
    const swapCalls = (index: number, ageNew: boolean) => {
      const blocks = this.agedCallBlocks((messages[index] as { content: unknown[] }).content, ageNew);
      if (blocks) swap(index, idAt(messages[index])!, blocks);
    };
    /** id null: a reply's calls */
    const fresh: Array<{ index: number; id: string | null }> = [];
    let savedChars = 0;
    for (let i = from; i < messages.length; i++) {
      const m = messages[i] as { role?: string; toolCallId?: unknown; toolName?: unknown; isError?: unknown; content?: unknown };
      if (m.role === "assistant" && i < boundary && this.settings.ageToolArgs && Array.isArray(m.content)) {
        let pending = 0;
        for (const b of m.content as CallBlock[]) {
          if (b?.type !== "toolCall" || typeof b.id !== "string" || this.calls.aged.has(b.id)) continue;
          if (this.calls.pending.has(b.id)) {
            pending++;
            if (gate) for (const a of longArgs(b.arguments)) savedChars += a.text.length;
          } else if (!this.calls.checked.has(b.id)) {
            const toolName = typeof b.name === "string" ? b.name : "";
            (unjudged ??= new Map()).set(b.id, { toolName, toolCallId: b.id, input: b.arguments, at: i });
          }
        }
        if (pending > 0) fresh.push({ index: i, id: null });
        else swapCalls(i, false);
        continue;
      }
      if (m.role !== "toolResult" || typeof m.toolCallId !== "string") continue;
      const id = m.toolCallId;
      const call = unjudged?.get(id);
      if (call && this.calls.claim(id) && m.isError !== true) {
        this.queue.calls.push(call);
        this.schedule();
      }
      const aged = this.results.aged.get(id);
      const pending = aged || i >= boundary ? undefined : this.results.pending.get(id);
      if (aged) swap(i, id, aged);
      else if (pending) {
        fresh.push({ index: i, id });
        if (gate) savedChars += Math.max(0, textChars(m.content) - textChars(pending));
      } else if (i < boundary && this.results.claim(id)) {
        this.queue.results.push({ toolName: m.toolName as string, toolCallId: id, content: m.content, isError: m.isError === true, at: i });
        this.schedule();
      }
    }
    let judgedUpTo = boundary;
    if (fresh.length > 0) {
      const earliest = fresh[0]!.index;
      const allow = !gate || gate({ earliest, savedChars, count: fresh.length }, messages);
      if (!allow) judgedUpTo = Math.min(boundary, earliest); // held back: judged again from there
      for (const f of fresh) {
        if (f.id === null) swapCalls(f.index, allow);
        else if (allow) swap(f.index, f.id, this.results.age(f.id));
      }
    }
    const tail = messages[messages.length - 1] as { role?: unknown; timestamp?: unknown } | undefined;
    this.last = { length: messages.length, boundary: judgedUpTo, swaps, tailRole: tail?.role, tailTime: tail?.timestamp };
    return out ?? messages;
  }

  /** The blocks with aged arguments (null: none); `ageNew`: stashed arguments age now. */
  private agedCallBlocks(content: unknown[], ageNew: boolean): unknown[] | null {
    let blocks: unknown[] | null = null;
    for (let j = 0; j < content.length; j++) {
      const b = content[j] as CallBlock | undefined;
      if (b?.type !== "toolCall" || typeof b.id !== "string") continue;
      const args = ageNew ? this.calls.age(b.id, b.arguments) : this.calls.aged.get(b.id);
      if (args === undefined) continue;
      blocks ??= content.slice();
      blocks[j] = { ...b, arguments: args };
    }
    return blocks;
  }

  /** Resumed session start: judge and stash old results now; nothing swapped (it would rewrite a cached prompt). */
  warm(messages: AgentMessage[]): void {
    if (!this.enabled) return;
    this.apply(messages, () => false);
    this.catchUp();
  }
}
