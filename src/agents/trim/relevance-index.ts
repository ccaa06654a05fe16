/**
 * Smart trim's Layer 2 scores: the archive's BM25 over the live history, one document per message
 * key, indexed off the request path in batches (not indexed yet: no score). In memory only (no
 * text reaches disk), so no redaction.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage } from "@mariozechner/pi-ai";
import type { ArchiveRecord } from "../archive/store.js";
import { toolTarget } from "../archive/segments.js";
import { requestTextOf } from "../archive/recall-query.js";
import { assistantText, contentText, toolCallsOf, userText } from "../messages/read.js";
import { Bm25 } from "../archive/bm25.js";
import { BYTES_PER_MEMO_CHAR, QueryTermsMemo } from "../archive/tokenize.js";

/** Chars of a message indexed (a relevance score needs the gist, not a 60 KB read). */
const TEXT_MAX = 12_000;
/** Messages indexed per event-loop turn. */
const BATCH = 32;
/** Heap per indexed char (bm25.ts: postings and per-document terms): measured 9.0 on the bench's 2,000 messages. */
const BYTES_PER_CHAR = 9;

/** The document a message is indexed as (exported for the tests). */
export function recordOf(key: string, m: AgentMessage, seq: number): ArchiveRecord | null {
  let text = "";
  let tool = "";
  let target = "";
  switch (m?.role) {
    case "user":
      text = userText(m);
      break;
    case "assistant": {
      const a = m as AssistantMessage;
      const calls = toolCallsOf(a);
      text = [assistantText(a), ...calls.map((c) => JSON.stringify(c.arguments ?? {}).slice(0, 2000))].join("\n");
      tool = calls.map((c) => c.name).join(" ");
      target = calls.map((c) => toolTarget(c.arguments)).join(" ");
      break;
    }
    case "toolResult":
      text = contentText((m as { content?: unknown }).content, TEXT_MAX);
      tool = String((m as { toolName?: unknown }).toolName ?? "");
      break;
    case "bashExecution": {
      const b = m as { command?: unknown; output?: unknown };
      target = String(b.command ?? "");
      text = String(b.output ?? "");
      break;
    }
    default:
      return null; // summaries and custom messages are protected: never scored
  }
  const t = (m as { timestamp?: unknown }).timestamp;
  return {
    v: 1,
    id: key,
    seq,
    role: "user",
    t: typeof t === "number" && t > 0 ? t : 0,
    at: 0,
    session: "",
    compaction: 0,
    text: text.slice(0, TEXT_MAX),
    ...(tool ? { tool: tool.slice(0, 200) } : {}),
    ...(target ? { target: target.slice(0, 600) } : {}),
  };
}

export class RelevanceIndex {
  private readonly queries = new QueryTermsMemo();
  readonly index = new Bm25(this.queries);
  private queue: Array<[string, AgentMessage]> = [];
  private scheduled = false;
  private seq = 0;
  private cached: { query: string; size: number; byKey: Map<string, number> } | null = null;
  private warming: string | null = null;

  /** @param alsoOffPath run on each message as it is indexed (more per-message work kept off the request path) */
  constructor(private readonly alsoOffPath?: (key: string, m: AgentMessage) => void) {}

  /** Queues a message first seen by a request; indexed later, off the request path. */
  enqueue(key: string, m: AgentMessage): void {
    this.queue.push([key, m]);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    const batch = this.queue.splice(0, BATCH);
    for (const [key, m] of batch) {
      try {
        this.alsoOffPath?.(key, m);
        // a request's terms, read now for the queries that will hold it (tokenize.ts)
        if (m?.role === "user") {
          const q = requestTextOf(m);
          if (q) this.queries.remember(q);
        }
        const r = recordOf(key, m, ++this.seq);
        if (r && !this.index.has(key)) this.index.add(r);
      } catch {
        // a message that cannot be read is not scored (Layer 3 may still drop it)
      }
    }
    if (this.queue.length > 0) setImmediate(() => this.drain());
    else this.scheduled = false;
  }

  /** Indexes everything queued now (tests, the bench's warm-up). */
  flush(): void {
    while (this.queue.length > 0) this.drain();
    this.scheduled = false;
  }

  /** About what the index holds, in bytes (its weight in the process cache). */
  approxBytes(): number {
    return this.index.chars * BYTES_PER_CHAR + this.queue.length * 64 + this.queries.chars * BYTES_PER_MEMO_CHAR;
  }

  /** Score per message key: the best 100 matches, other indexed ones 0, not indexed yet null (cached per query). */
  scorer(query: string): (key: string) => number | null {
    if (this.cached?.query !== query) this.score(query);
    const byKey = this.cached!.byKey;
    return (key) => byKey.get(key) ?? (this.index.has(key) ? 0 : null);
  }

  private score(query: string): void {
    const byKey = new Map<string, number>();
    if (this.index.size > 0) for (const hit of this.index.search(query, 100)) byKey.set(hit.id, hit.score);
    this.cached = { query, size: this.index.size, byKey };
  }

  /** Refreshes the cached search for `query` on later turns of the event loop, once the queued messages are indexed. */
  warm(query: string): void {
    const running = this.warming !== null;
    this.warming = query;
    if (running) return;
    const run = (): void => {
      if (this.queue.length > 0) {
        setImmediate(run); // the indexer's own turns come first
        return;
      }
      const q = this.warming!;
      this.warming = null;
      try {
        if (this.cached?.query !== q || this.cached.size !== this.index.size) this.score(q);
      } catch {
        // searched at the decision instead
      }
    };
    setImmediate(run);
  }
}
