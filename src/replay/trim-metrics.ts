/**
 * Smart trim on replay (docs/archive.md#smart-trim): observed at each `context` call, from
 * what the context manager was given and what it returned (the request the model gets).
 * - requests: requests that trimmed something new; messages / tokens: distinct messages
 *   trimmed and their tokens (chars/4 when first trimmed);
 * - orphans: tool calls or results the context manager's output holds without their pair,
 *   beyond those its input already had (must be 0);
 * - prefixStable: share of consecutive chat requests, as the provider received them, whose
 *   message sequence (by identity: role, time, tool call id; our gauge line, recall block and
 *   trim marker left out) starts with the whole previous one. A compaction between them
 *   counts as a break. Aged offload's content swaps are not counted (they change bytes, not
 *   which messages are sent);
 * - recallAt5: for each request that trimmed, the user requests of the next NEXT_TURNS turns
 *   that name an identifier (recall.ts identifiersOf) present in what it trimmed and absent
 *   from what it sent; relevant = archive segments holding it; searched over the final
 *   archive with the tool's search; share with a relevant segment in the top 5.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { baseKeyOf, keysOf } from "../agents/messages/message-key.js";
import { TRIM_MARKER_TEXT } from "../agents/trim/smart-trim.js";
import { RECALL_HEADER } from "../agents/archive/segments.js";
import { orphansOf } from "./orphans.js";
import { SearchIndex } from "../agents/archive/archive.js";
import { readArchiveFile } from "../agents/archive/store.js";
import { identifiersOf, messageText, NEXT_TURNS } from "./recall.js";

export interface TrimReport {
  enabled: boolean;
  requests: number;
  messages: number;
  tokens: number;
  orphans: number;
  prefixStable: number | null;
  /** consecutive request pairs compared */
  prefixPairs: number;
  recallAt5: number | null;
  recallQueries: number;
}

interface TrimEvent {
  /** index of the first transcript segment whose request the agent had not seen yet */
  nextSegment: number;
  trimmedText: string;
  sentText: string;
}

/** our blocks as the provider sees them (user messages): the gauge line, the recall block, the trim marker */
const VOLATILE_TEXT = ["[Context: ", RECALL_HEADER, TRIM_MARKER_TEXT];

function firstText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const b = content[0] as { type?: unknown; text?: unknown } | undefined;
  return b?.type === "text" && typeof b.text === "string" ? b.text : "";
}

export class TrimProbe {
  private readonly trimmed = new Set<string>();
  private tokens = 0;
  private requests = 0;
  private orphans = 0;
  private prev: string[] | null = null;
  private compactedSincePrev = false;
  private pairs = 0;
  private stable = 0;
  private readonly events: TrimEvent[] = [];

  constructor(private readonly enabled: boolean) {}

  onCompaction(): void {
    this.compactedSincePrev = true;
  }

  /** The context manager's `context` call: its input and what it returned (only calls that changed something). */
  onContext(input: readonly AgentMessage[], output: readonly AgentMessage[], nextSegment: number): void {
    this.orphans += Math.max(0, orphansOf(output) - orphansOf(input));
    const sent = new Set(keysOf(output));
    const inKeys = keysOf(input);
    const fresh: AgentMessage[] = [];
    for (let i = 0; i < input.length; i++) {
      const k = inKeys[i]!;
      if (sent.has(k) || input[i]!.role === "custom" || this.trimmed.has(k)) continue;
      this.trimmed.add(k);
      this.tokens += estimateTokens(input[i]!);
      fresh.push(input[i]!);
    }
    if (fresh.length === 0) return;
    this.requests++;
    this.events.push({ nextSegment, trimmedText: fresh.map((m) => messageText(m)).join("\n"), sentText: output.map((m) => messageText(m)).join("\n") });
  }

  /** A chat request as the provider received it (custom messages are user messages there). */
  onRequest(messages: ReadonlyArray<{ role: string; content?: unknown; timestamp?: unknown }>): void {
    const seq: string[] = [];
    for (const m of messages) {
      if (m.role === "user" && VOLATILE_TEXT.some((p) => firstText(m.content).startsWith(p))) continue;
      seq.push(baseKeyOf(m as AgentMessage));
    }
    if (this.prev) {
      this.pairs++;
      const prev = this.prev;
      if (!this.compactedSincePrev && prev.length <= seq.length && prev.every((k, i) => seq[i] === k)) this.stable++;
    }
    this.prev = seq;
    this.compactedSincePrev = false;
  }

  async report(archiveFile: string, requests: readonly string[]): Promise<TrimReport> {
    let at5: number | null = null;
    let queries = 0;
    if (this.events.length > 0) {
      let records: Awaited<ReturnType<typeof readArchiveFile>>["records"] = [];
      try {
        records = (await readArchiveFile(archiveFile)).records;
      } catch {
        records = [];
      }
      const index = new SearchIndex();
      index.add(records);
      let found = 0;
      const asked = new Set<number>();
      for (const e of this.events) {
        for (let s = e.nextSegment; s < Math.min(requests.length, e.nextSegment + NEXT_TURNS); s++) {
          if (asked.has(s)) continue;
          const query = requests[s]!;
          const ids = identifiersOf(query).filter((id) => e.trimmedText.includes(id) && !e.sentText.includes(id));
          if (ids.length === 0) continue;
          asked.add(s);
          queries++;
          const hits = index.search(query, { limit: 5 });
          if (hits.some((h) => ids.some((id) => h.record.text.includes(id) || (h.record.target ?? "").includes(id)))) found++;
        }
      }
      at5 = queries > 0 ? Math.round((found / queries) * 1000) / 1000 : null;
    }
    return {
      enabled: this.enabled,
      requests: this.requests,
      messages: this.trimmed.size,
      tokens: this.tokens,
      orphans: this.orphans,
      prefixStable: this.pairs > 0 ? Math.round((this.stable / this.pairs) * 1000) / 1000 : null,
      prefixPairs: this.pairs,
      recallAt5: at5,
      recallQueries: queries,
    };
  }
}
