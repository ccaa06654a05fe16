/**
 * Offload figures for the replay (`--offload on|off`, docs/artifacts.md):
 * - promptTokens: chars/4 of a chat request as a provider receives it (system prompt,
 *   messages, tool schemas), the same serialization pi-ai's faux provider bills;
 * - OffloadCounter: what the patched tool results cost in the requests;
 * - estimateFetchNeed: from the TRANSCRIPT alone, how often the recorded agent later
 *   used content that only the stashed part held: an assistant message (text, or a
 *   tool call's arguments) quotes a line (trimmed, >= 16 chars) that was omitted from a
 *   stashed result's preview and was not visible anywhere else in the conversation
 *   by then. Each such stash is a fetch a real agent would have had to make. Aged
 *   results (offloadAgeTurns) count the same way, from the request they are aged on, and
 *   so do a succeeded call's aged long arguments (offloadAgeToolArgs).
 */
import type { Context } from "@mariozechner/pi-ai";
import { AGED_ARG_MARKER, longArgs } from "../agents/artifacts/offload.js";
import { agedRule, offloadCandidate, type OffloadSettings } from "../agents/artifacts/offload.js";
import { previewParts, STASHED_MARKER } from "../agents/artifacts/preview.js";
import { redactSecrets } from "../agents/text/redact.js";
import { estimateTextTokens } from "../agents/text/token-estimate.js";
import type { RecordedMessage } from "./transcript.js";

type Block = { type?: string; text?: string; thinking?: string; name?: string; arguments?: unknown; mimeType?: string; data?: string };

function blocksText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Block[])
    .map((b) => (b.type === "text" ? (b.text ?? "") : b.type === "image" ? `[image:${b.mimeType}:${b.data?.length ?? 0}]` : ""))
    .join("\n");
}

function assistantText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return (content as Block[])
    .map((b) => (b.type === "text" ? (b.text ?? "") : b.type === "thinking" ? (b.thinking ?? "") : b.type === "toolCall" ? `${b.name}:${JSON.stringify(b.arguments)}` : ""))
    .join("\n");
}

/** chars/4 of the request as pi-ai's faux provider serializes it (what a real provider would bill as input). */
export function promptTokens(context: Context): number {
  let chars = context.systemPrompt ? `system:${context.systemPrompt}`.length : 0;
  for (const m of context.messages as Array<{ role: string; content: unknown; toolName?: string }>) {
    const body = m.role === "assistant" ? assistantText(m.content) : m.role === "toolResult" ? `${m.toolName}\n${blocksText(m.content)}` : blocksText(m.content);
    chars += m.role.length + 1 + body.length + 2;
  }
  if (context.tools?.length) chars += `tools:${JSON.stringify(context.tools)}`.length;
  return Math.ceil(chars / 4);
}

function hasAgedArg(value: unknown, depth = 0): boolean {
  if (depth > 8) return false;
  if (typeof value === "string") return value.startsWith(AGED_ARG_MARKER);
  if (Array.isArray(value)) return value.some((v) => hasAgedArg(v, depth + 1));
  if (value && typeof value === "object") return Object.values(value).some((v) => hasAgedArg(v, depth + 1));
  return false;
}

const firstText = (content: unknown): string =>
  Array.isArray(content) && (content[0] as Block | undefined)?.type === "text" ? ((content[0] as Block).text ?? "") : typeof content === "string" ? content : "";

/** Counts the stashed results the model saw (each once, by toolCallId): fresh stashes and aged ones. */
export class OffloadCounter {
  /** ids the model saw whole at least once */
  private readonly whole = new Set<string>();
  private readonly counted = new Set<string>();
  stashed = 0;
  /** of those, results shown whole first and replaced later (aged offload) */
  aged = 0;
  /** bytes of the original (recorded) outputs that were stashed */
  bytes = 0;
  previewTokens = 0;
  /** tokens the original outputs would have cost */
  originalTokens = 0;
  /** calls the model saw with aged arguments (offloadAgeToolArgs), their tokens then and before */
  agedCalls = 0;
  agedCallTokens = 0;
  agedCallOriginalTokens = 0;
  private readonly countedCalls = new Set<string>();

  observe(context: Context, originalOf: (toolCallId: string) => string | undefined, originalArgsOf: (toolCallId: string) => unknown = () => undefined): void {
    // aged results may be anywhere: one O(1) look per message (first block's prefix)
    for (const msg of context.messages) {
      const m = msg as { role: string; toolCallId?: string; content: unknown };
      if (m.role === "assistant" && Array.isArray(m.content)) {
        for (const b of m.content as Block[] & Array<{ id?: string }>) {
          if (b.type !== "toolCall" || !b.id || this.countedCalls.has(b.id) || !hasAgedArg(b.arguments)) continue;
          this.countedCalls.add(b.id);
          this.agedCalls++;
          this.agedCallTokens += estimateTextTokens(JSON.stringify(b.arguments));
          this.agedCallOriginalTokens += estimateTextTokens(JSON.stringify(originalArgsOf(b.id) ?? null));
        }
        continue;
      }
      if (m.role !== "toolResult" || !m.toolCallId || this.counted.has(m.toolCallId)) continue;
      if (!firstText(m.content).startsWith(STASHED_MARKER)) {
        this.whole.add(m.toolCallId);
        continue;
      }
      this.counted.add(m.toolCallId);
      const original = originalOf(m.toolCallId) ?? "";
      this.stashed++;
      if (this.whole.has(m.toolCallId)) this.aged++;
      this.bytes += Buffer.byteLength(original, "utf8");
      this.previewTokens += estimateTextTokens(blocksText(m.content));
      this.originalTokens += estimateTextTokens(original);
    }
  }
}

export interface FetchNeedPart {
  stashed: number;
  needed: number;
  rate: number;
}

export interface FetchNeed {
  /** results the offload rules stash in this transcript (fresh + aged) */
  stashed: number;
  /** of those, how many the recorded agent later quoted from the omitted part */
  needed: number;
  /** needed / stashed */
  rate: number;
  /** quoted omitted lines in total */
  quotedLines: number;
  /** split: stashed at tool_result time (fresh) and aged after offloadAgeTurns turns */
  fresh: FetchNeedPart;
  aged: FetchNeedPart;
  /** succeeded calls whose long arguments age (offloadAgeToolArgs); counted in neither total above */
  agedArgs: FetchNeedPart;
  definition: string;
}

const MIN_LINE = 16;

function linesOf(text: string, into: (line: string) => void): void {
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.length >= MIN_LINE) into(line);
  }
}

function stringsIn(value: unknown, out: string[], depth = 0): void {
  if (depth > 20) return;
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out, depth + 1);
  else if (value && typeof value === "object") for (const v of Object.values(value)) stringsIn(v, out, depth + 1);
}

const rate = (n: number, d: number) => (d ? Math.round((n / d) * 1000) / 1000 : 0);

export function estimateFetchNeed(messages: readonly RecordedMessage[], settings: OffloadSettings): FetchNeed {
  const visible = new Set<string>();
  /** omitted line -> index of the stash that holds it */
  const hidden = new Map<string, number>();
  /** lines of results still shown whole (not aged yet), with how many such results hold each */
  const freshLines = new Map<string, number>();
  const waiting: Array<{ id: number; lines: string[]; shown: Set<string>; ageAt: number }> = [];
  const needed = new Set<number>();
  const agedIds = new Set<number>();
  const argIds = new Set<number>();
  let argCalls = 0;
  // a call's arguments age only when it succeeded: its result's isError, looked up by id
  const failedCalls = new Set<string>();
  for (const m of messages) {
    const r = m as unknown as { role: string; toolCallId?: string; isError?: boolean };
    if (r.role === "toolResult" && r.toolCallId && r.isError === true) failedCalls.add(r.toolCallId);
  }
  const aging = agedRule(settings);
  let stashed = 0;
  let quotedLines = 0;
  let assistants = 0;
  const previewLines = (text: string, previewChars: number) => {
    const p = previewParts(redactSecrets(text), previewChars);
    const shown = new Set<string>();
    linesOf(`${p.head}\n${p.tail}`, (l) => shown.add(l));
    return shown;
  };
  for (const m of messages) {
    if (m.role === "toolResult") {
      const r = m as unknown as { toolName: string; content: unknown; isError?: boolean };
      const event = { toolName: r.toolName, content: r.content, isError: r.isError === true };
      const candidate = offloadCandidate(event, settings);
      if (candidate) {
        const id = stashed++;
        const shown = previewLines(candidate, settings.previewChars);
        for (const l of shown) visible.add(l);
        linesOf(candidate, (l) => {
          if (!shown.has(l) && !visible.has(l)) hidden.set(l, id);
        });
        continue;
      }
      const agedCandidate = aging.enabled ? offloadCandidate(event, aging) : null;
      if (agedCandidate) {
        const id = stashed++;
        agedIds.add(id);
        const lines: string[] = [];
        linesOf(agedCandidate, (l) => {
          lines.push(l);
          freshLines.set(l, (freshLines.get(l) ?? 0) + 1);
        });
        waiting.push({ id, lines, shown: previewLines(agedCandidate, aging.previewChars), ageAt: assistants + settings.ageTurns });
        continue;
      }
      linesOf(blocksText(r.content), (l) => visible.add(l));
    } else if (m.role === "assistant") {
      const texts: string[] = [];
      /** lines of this message's calls whose arguments will age: not visible for good, fresh until aged */
      const agingArgs: Array<{ id: number; lines: string[] }> = [];
      for (const b of (Array.isArray(m.content) ? m.content : []) as Array<Block & { id?: string }>) {
        if (b.type === "text" && b.text) texts.push(b.text);
        else if (b.type === "toolCall") {
          const long = settings.ageToolArgs && aging.enabled && b.id && !failedCalls.has(b.id) ? longArgs(b.arguments) : [];
          if (long.reduce((n, a) => n + a.text.length, 0) >= settings.agedMinChars) {
            const id = -1 - argCalls++; // own id space: results count from 0
            argIds.add(id);
            const lines: string[] = [];
            for (const a of long) linesOf(a.text, (l) => lines.push(l));
            agingArgs.push({ id, lines });
            const rest: string[] = [];
            stringsIn(b.arguments, rest);
            for (const t of rest) if (!long.some((a) => a.text === t)) texts.push(t);
          } else stringsIn(b.arguments, texts);
        }
      }
      const lines: string[] = [];
      for (const t of texts) linesOf(t, (l) => lines.push(l));
      for (const l of lines) {
        const id = hidden.get(l);
        if (id !== undefined && !visible.has(l) && !freshLines.has(l)) {
          needed.add(id);
          quotedLines++;
        }
      }
      for (const l of lines) visible.add(l);
      // results followed by ageTurns assistant messages are aged from the next request on
      assistants++;
      for (const a of agingArgs) {
        for (const l of a.lines) freshLines.set(l, (freshLines.get(l) ?? 0) + 1);
        // the marker shows no line of the text (its first-line hint is cut to 60 chars)
        waiting.push({ id: a.id, lines: a.lines, shown: new Set(), ageAt: assistants + settings.ageTurns });
      }
      while (waiting.length && waiting[0]!.ageAt <= assistants) {
        const w = waiting.shift()!;
        for (const l of w.lines) {
          const n = (freshLines.get(l) ?? 1) - 1;
          if (n > 0) freshLines.set(l, n);
          else freshLines.delete(l);
          if (w.shown.has(l)) visible.add(l);
          else if (!visible.has(l)) hidden.set(l, w.id);
        }
      }
    } else {
      linesOf(blocksText(m.content), (l) => visible.add(l));
    }
  }
  let agedNeeded = 0;
  let argsNeeded = 0;
  for (const id of needed) if (agedIds.has(id)) agedNeeded++;
  else if (argIds.has(id)) argsNeeded++;
  const freshStashed = stashed - agedIds.size;
  const resultsNeeded = needed.size - argsNeeded;
  return {
    stashed,
    needed: resultsNeeded,
    rate: rate(resultsNeeded, stashed),
    quotedLines,
    fresh: { stashed: freshStashed, needed: resultsNeeded - agedNeeded, rate: rate(resultsNeeded - agedNeeded, freshStashed) },
    aged: { stashed: agedIds.size, needed: agedNeeded, rate: rate(agedNeeded, agedIds.size) },
    agedArgs: { stashed: argIds.size, needed: argsNeeded, rate: rate(argsNeeded, argIds.size) },
    definition: `a stashed or aged result counts as needing a fetch when a later assistant message (text or tool-call arguments) contains, as a whole trimmed line of >= ${MIN_LINE} chars, a line that was only in the result's omitted part (not in its preview, not visible anywhere else before), at a time the model no longer saw it whole (fresh stash: from the start; aged: after offloadAgeTurns assistant turns); agedArgs: the same for a succeeded call's long string arguments (>= 200 chars each, >= offloadAgedMinChars together), hidden from the request they are aged on`,
  };
}

export interface OffloadReport {
  enabled: boolean;
  /** results the model saw as handle + preview (fresh stashes + aged) */
  stashed: number;
  /** of those, aged ones (seen whole first) */
  aged: number;
  bytes: number;
  previewTokens: number;
  /** tokens the stashed outputs would have cost where they first appeared */
  originalTokens: number;
  /** chars/4 of the artifact_fetch schema, sent with every chat request when on */
  fetchToolTokensPerRequest: number;
  fetchToolTokensTotal: number;
  /** calls the model saw with aged long arguments, and their tokens as sent / as recorded */
  agedCalls: number;
  agedCallTokens: number;
  agedCallOriginalTokens: number;
  fetchNeed: FetchNeed;
}

/** The replay's hook: call onChatRequest for every chat request, then report(). */
export function offloadProbe(
  results: ReadonlyMap<string, ReadonlyArray<{ content: unknown }>>,
  messages: readonly RecordedMessage[],
  settings: OffloadSettings,
  fetchToolTokens: number,
) {
  const counter = new OffloadCounter();
  let inputTokensTotal = 0;
  let requests = 0;
  const originalOf = (id: string) => {
    const r = results.get(id)?.[0];
    return r ? blocksText(r.content) : undefined;
  };
  const recordedArgs = new Map<string, unknown>();
  for (const m of messages)
    if (m.role === "assistant" && Array.isArray(m.content))
      for (const b of m.content as Array<{ type?: string; id?: string; arguments?: unknown }>) if (b.type === "toolCall" && b.id) recordedArgs.set(b.id, b.arguments);
  return {
    onChatRequest(context: Context): void {
      requests++;
      inputTokensTotal += promptTokens(context);
      counter.observe(context, originalOf, (id) => recordedArgs.get(id));
    },
    get inputTokensTotal() {
      return inputTokensTotal;
    },
    report(): OffloadReport {
      const perRequest = settings.enabled ? fetchToolTokens : 0;
      return {
        enabled: settings.enabled,
        stashed: counter.stashed,
        aged: counter.aged,
        bytes: counter.bytes,
        previewTokens: counter.previewTokens,
        originalTokens: counter.originalTokens,
        fetchToolTokensPerRequest: perRequest,
        fetchToolTokensTotal: perRequest * requests,
        agedCalls: counter.agedCalls,
        agedCallTokens: counter.agedCallTokens,
        agedCallOriginalTokens: counter.agedCallOriginalTokens,
        fetchNeed: estimateFetchNeed(messages, { ...settings, enabled: true }),
      };
    },
  };
}
