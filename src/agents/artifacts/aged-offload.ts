/**
 * Aged offload (docs/artifacts.md#aged-offload): a tool result the agent has already
 * consumed — followed by at least `ageTurns` assistant messages — and longer than
 * `agedMinChars` is shown to the model as handle + bounded head/tail preview + the
 * fetch line, the same shape as a fresh stash. Non-destructive: only pi's `context`
 * event copy is changed; the session file keeps the original.
 *
 * Cost model: the blob is written at tool_result time (`register`), so the `context`
 * handler (`apply`) only swaps content it already holds: one pass of O(1) per message
 * (role check + Map lookup by toolCallId), no content read, hashed or cut per call.
 * Results this process never saw at tool_result time (a resumed session) are checked
 * once, off the request path (setImmediate), and age from the next request on.
 *
 * Deterministic and sticky: once a result is aged it stays aged, so the prompt prefix
 * before the newly aged position is byte-stable and provider prompt caches break only
 * there. Never aged: errors, images / non-text blocks, artifact_fetch results, results
 * already replaced by a fresh stash, and anything in the newest `ageTurns` rounds.
 *
 * The calls' long string arguments age the same way (aged-call-args.ts, config
 * `offloadAgeToolArgs`): stashed at tool_result time when the call succeeded, the marker
 * built once from the message's own arguments when the call ages, then swapped like a result.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { longArgs, stashTextOf, withAgedArgs } from "./aged-call-args.js";
import { agedRule, offloadCandidate, type OffloadSettings, type ToolResultLike } from "./offload.js";
import { replacementText } from "./preview.js";
import { stashArtifact } from "./store.js";

type TextContent = Array<{ type: "text"; text: string }>;

/** bound on remembered ids per session (a result beyond it simply stays whole) */
const MAX_TRACKED = 20_000;

export interface AgedStats {
  /** results stashed for aging (at tool_result time or in catch-up) */
  registered: number;
  /** results shown aged from now on */
  aged: number;
  /** calls whose long arguments were stashed / are shown aged from now on */
  argsRegistered: number;
  argsAged: number;
}

type CallLike = { type?: string; id?: unknown; name?: unknown; arguments?: unknown };

export class AgedOffload {
  /** toolCallId -> replacement, stashed but not old enough yet */
  private readonly pending = new Map<string, TextContent>();
  /** toolCallId -> replacement, shown aged from now on (sticky) */
  private readonly aged = new Map<string, TextContent>();
  /** ids whose content was already judged (candidate or not) */
  private readonly checked = new Set<string>();
  /** toolCallId -> handle of the stashed arguments, the call not old enough yet */
  private readonly pendingArgs = new Map<string, string>();
  /** toolCallId -> the arguments the model sees from now on (sticky) */
  private readonly agedArgs = new Map<string, unknown>();
  /** ids whose call arguments were already judged */
  private readonly argsChecked = new Set<string>();
  private catchUp: Array<ToolResultLike & { toolCallId: string }> = [];
  private argsCatchUp: Array<{ toolName: string; toolCallId: string; input: unknown }> = [];
  private catchUpScheduled = false;
  readonly stats: AgedStats = { registered: 0, aged: 0, argsRegistered: 0, argsAged: 0 };

  constructor(
    private readonly settings: OffloadSettings,
    private readonly where: { stateDir: string; sessionKey: string },
    /** where catch-up failures go (the host shell points it at the current run's log) */
    public onError: (e: unknown) => void = () => {},
  ) {}

  get enabled(): boolean {
    return this.settings.enabled && this.settings.ageTurns > 0;
  }

  /** tool_result time: stash a mid-size result now, so aging it later is a swap; its receipt, or null. Throws on I/O errors. */
  register(event: ToolResultLike): { handle: string; bytes: number } | null {
    const id = event.toolCallId;
    if (!this.enabled || !id || this.checked.has(id) || this.checked.size >= MAX_TRACKED) return null;
    this.checked.add(id);
    return this.stash(event, id);
  }

  /** tool_result time, every result (stashed fresh or not): a succeeded call's long arguments are stashed for aging. Throws on I/O errors. */
  registerCall(event: ToolResultLike & { input?: unknown }): void {
    const id = event.toolCallId;
    if (!this.enabled || !this.settings.ageToolArgs || !id || event.isError) return;
    if (this.argsChecked.has(id) || this.argsChecked.size >= MAX_TRACKED) return;
    this.argsChecked.add(id);
    this.stashArgs(event.toolName, id, event.input);
  }

  /** A succeeded call's long string arguments, stashed as one artifact; the marker is built when the call ages. */
  private stashArgs(toolName: string, id: string, input: unknown): void {
    const args = longArgs(input);
    let total = 0;
    for (const a of args) total += a.text.length;
    if (total < this.settings.agedMinChars) return;
    const { receipt } = stashArtifact(this.where.stateDir, {
      text: stashTextOf(args),
      kind: "tool_input",
      tool: toolName,
      sessionKey: this.where.sessionKey,
      toolCallId: id,
    });
    this.pendingArgs.set(id, receipt.handle);
    this.stats.argsRegistered++;
  }

  /** The call's arguments as the model sees them once aged; built once, then reused (sticky). */
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
    const rule = agedRule(this.settings);
    const candidate = offloadCandidate(event, rule);
    if (!candidate) return null;
    const { receipt, stored, meta } = stashArtifact(this.where.stateDir, {
      text: candidate.text,
      kind: "tool_output",
      tool: event.toolName,
      sessionKey: this.where.sessionKey,
      toolCallId: id,
    });
    const text = replacementText({ handle: receipt.handle, text: stored, lines: meta.lines, tool: event.toolName, previewChars: rule.previewChars });
    if (text.length >= candidate.text.length) return null;
    this.pending.set(id, [{ type: "text", text }]);
    this.stats.registered++;
    return { handle: receipt.handle, bytes: receipt.bytes };
  }

  /** `context` event: the messages with aged results swapped, or the same array when nothing changes. */
  apply(messages: AgentMessage[]): AgentMessage[] {
    if (!this.enabled) return messages;
    // index of the ageTurns-th assistant message from the end: results before it are old enough
    let boundary = -1;
    for (let i = messages.length - 1, seen = 0; i >= 0; i--) {
      if ((messages[i] as { role?: string }).role === "assistant" && ++seen === this.settings.ageTurns) {
        boundary = i;
        break;
      }
    }
    let out: AgentMessage[] | null = null;
    /** old calls whose arguments were never judged (a resumed session, the plugin route): judged when their result shows success */
    let unjudged = null as Map<string, CallLike> | null;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i] as { role?: string; toolCallId?: unknown; isError?: unknown; toolName?: unknown; content?: unknown };
      if (m.role === "assistant" && i < boundary && this.settings.ageToolArgs && Array.isArray(m.content)) {
        const content = m.content as CallLike[];
        let blocks: unknown[] | null = null;
        for (let j = 0; j < content.length; j++) {
          const b = content[j];
          if (!b || b.type !== "toolCall" || typeof b.id !== "string") continue;
          const args = this.agedArgsOf(b, b.id);
          if (args === undefined) {
            if (!this.argsChecked.has(b.id)) (unjudged ??= new Map<string, CallLike>()).set(b.id, b);
            continue;
          }
          blocks ??= content.slice();
          blocks[j] = { ...b, arguments: args };
        }
        if (blocks) {
          out ??= messages.slice();
          out[i] = { ...(messages[i] as object), content: blocks } as AgentMessage;
        }
        continue;
      }
      if (m.role !== "toolResult" || typeof m.toolCallId !== "string") continue;
      const id = m.toolCallId;
      const call = unjudged?.get(id);
      if (call) this.queueArgsCatchUp(call, id, m.isError === true);
      let content = this.aged.get(id);
      if (!content && i < boundary) {
        content = this.pending.get(id);
        if (content) {
          this.pending.delete(id);
          this.aged.set(id, content);
          this.stats.aged++;
        } else if (!this.checked.has(id)) this.queueCatchUp(m as unknown as ToolResultLike & { toolCallId: string });
      }
      if (!content) continue;
      out ??= messages.slice();
      out[i] = { ...(messages[i] as object), content } as AgentMessage;
    }
    return out ?? messages;
  }

  /** A call never seen at tool_result time: judged once; its arguments age from the next request on. */
  private queueArgsCatchUp(call: CallLike, id: string, isError: boolean): void {
    if (this.argsChecked.size >= MAX_TRACKED) return;
    this.argsChecked.add(id);
    if (isError) return;
    this.argsCatchUp.push({ toolName: typeof call.name === "string" ? call.name : "", toolCallId: id, input: call.arguments });
    this.scheduleCatchUp();
  }

  /** A result never seen at tool_result time: judge and stash it once, after this request is on its way. */
  private queueCatchUp(m: ToolResultLike & { toolCallId: string }): void {
    if (this.checked.size >= MAX_TRACKED) return;
    this.checked.add(m.toolCallId);
    this.catchUp.push({ toolName: m.toolName, toolCallId: m.toolCallId, content: m.content, isError: m.isError === true });
    this.scheduleCatchUp();
  }

  private scheduleCatchUp(): void {
    if (this.catchUpScheduled) return;
    this.catchUpScheduled = true;
    setImmediate(() => this.runCatchUp());
  }

  /**
   * Session start of a resumed session: judge and stash the old results and calls now (off the
   * request path: no request is waiting yet), so the first request already goes out aged.
   */
  warm(messages: AgentMessage[]): void {
    if (!this.enabled) return;
    this.apply(messages);
    this.runCatchUp();
  }

  private runCatchUp(): void {
    const batch = this.catchUp;
    const calls = this.argsCatchUp;
    this.catchUp = [];
    this.argsCatchUp = [];
    this.catchUpScheduled = false;
    for (const c of calls) {
      try {
        this.stashArgs(c.toolName, c.toolCallId, c.input); // old enough already: ages on the next request
      } catch (e) {
        this.onError(e);
      }
    }
    for (const r of batch) {
      try {
        this.stash(r, r.toolCallId);
        // old enough already: it ages on the next request
        const c = this.pending.get(r.toolCallId);
        if (c) {
          this.pending.delete(r.toolCallId);
          this.aged.set(r.toolCallId, c);
          this.stats.aged++;
        }
      } catch (e) {
        this.onError(e);
      }
    }
  }

}
