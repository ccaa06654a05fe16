/**
 * What the agent sees after each compaction: the text of the first chat request that follows
 * it (the summary AND the messages the compaction kept verbatim). The fidelity measure on the
 * summary alone cannot credit a compactor for what it kept: pi-vcc, for one, keeps everything
 * from the last user request on and summarizes only what came before. Measured on this text,
 * "last 3 requests" and "modified files" say what the agent can still read, whoever wrote it.
 */
import type { Context } from "@mariozechner/pi-ai";

type Block = { type?: string; text?: string; name?: string; arguments?: unknown };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Block[])
    .map((b) => (b.type === "text" ? (b.text ?? "") : b.type === "toolCall" ? `${b.name}:${JSON.stringify(b.arguments)}` : ""))
    .join("\n");
}

export class VisibleAfterCompaction {
  private compactions = 0;
  private waiting = false;
  /** compaction ordinal (0-based, in the order pi ended them) -> the next request's text */
  private readonly texts = new Map<number, string>();

  /** a session event of the replayed runner */
  onSessionEvent(event: { type: string; result?: unknown; aborted?: boolean }): void {
    if (event.type !== "compaction_end" || !event.result || event.aborted) return;
    this.compactions++;
    this.waiting = true;
  }

  /** a chat request (not the summarizer's): the first after a compaction is kept */
  onChatRequest(context: Context): void {
    if (!this.waiting) return;
    this.waiting = false;
    const parts = (context.messages as Array<{ content: unknown }>).map((m) => textOf(m.content));
    this.texts.set(this.compactions - 1, parts.join("\n"));
  }

  /** the text after the n-th compaction (0-based); null when no request followed it before the next */
  take(n: number): string | null {
    const t = this.texts.get(n) ?? null;
    this.texts.delete(n);
    return t;
  }
}
