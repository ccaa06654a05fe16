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
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
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
}

export class AgedOffload {
  /** toolCallId -> replacement, stashed but not old enough yet */
  private readonly pending = new Map<string, TextContent>();
  /** toolCallId -> replacement, shown aged from now on (sticky) */
  private readonly aged = new Map<string, TextContent>();
  /** ids whose content was already judged (candidate or not) */
  private readonly checked = new Set<string>();
  private catchUp: Array<ToolResultLike & { toolCallId: string }> = [];
  private catchUpScheduled = false;
  readonly stats: AgedStats = { registered: 0, aged: 0 };

  constructor(
    private readonly settings: OffloadSettings,
    private readonly where: { stateDir: string; sessionKey: string },
    private readonly onError: (e: unknown) => void = () => {},
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
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i] as { role?: string; toolCallId?: unknown };
      if (m.role !== "toolResult" || typeof m.toolCallId !== "string") continue;
      const id = m.toolCallId;
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

  /** A result never seen at tool_result time: judge and stash it once, after this request is on its way. */
  private queueCatchUp(m: ToolResultLike & { toolCallId: string }): void {
    if (this.checked.size >= MAX_TRACKED) return;
    this.checked.add(m.toolCallId);
    this.catchUp.push({ toolName: m.toolName, toolCallId: m.toolCallId, content: m.content, isError: m.isError === true });
    if (this.catchUpScheduled) return;
    this.catchUpScheduled = true;
    setImmediate(() => {
      const batch = this.catchUp;
      this.catchUp = [];
      this.catchUpScheduled = false;
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
    });
  }
}
