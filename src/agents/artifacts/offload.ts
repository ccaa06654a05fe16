/**
 * The tool_result patch (seed 004 §6.1): a large text result is stashed, the model gets handle +
 * preview. Never stashed: errors (the whole failure is needed), images, fetch and recall results,
 * replacements (no self-ingest loop).
 */
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { sniffContentType, stashArtifact } from "./store.js";
import { FETCH_TOOL_NAME, replacementText, STASHED_MARKER } from "./preview.js";
import { RECALL_TOOLS } from "../messages/custom-types.js";
import { lineCount } from "../messages/tool-outcome.js";
import { cutHead, safeGist } from "../text/gist.js";
import { fmt } from "./select.js";

export interface OffloadSettings {
  enabled: boolean;
  /** stash a result longer than this many chars … */
  minChars: number;
  /** … or with more lines than this … */
  minLines: number;
  /** … or structured (JSON / HTML) and longer than this */
  structuredMinChars: number;
  /** ≤ 800 (seed 004) */
  previewChars: number;
  /** aged offload (aged-offload.ts): results followed by this many assistant turns (0: off) … */
  ageTurns: number;
  /** … longer than this … */
  agedMinChars: number;
  /** … keep this preview */
  agedPreviewChars: number;
  /** aged call arguments (below): same age and size */
  ageToolArgs: boolean;
}

/** The fresh-stash rule (seed 004: over 8k chars or 200 lines, structured over 4k; preview ≤ 800). */
export const FRESH_STASH = { minChars: 8_000, minLines: 200, structuredMinChars: 4_000, previewChars: 600 } as const;

type OffloadConfigKeys = Pick<ContextManagerConfig, "offload" | "offloadAgeTurns" | "offloadAgedMinChars" | "offloadAgedPreviewChars" | "offloadAgeToolArgs">;

export const offloadSettings = (c: OffloadConfigKeys): OffloadSettings => ({
  enabled: c.offload,
  ...FRESH_STASH,
  ageTurns: c.offloadAgeTurns,
  agedMinChars: c.offloadAgedMinChars,
  agedPreviewChars: c.offloadAgedPreviewChars,
  ageToolArgs: c.offloadAgeToolArgs,
});

/** For aged results: one size threshold, the aged preview. */
export const agedRule = (s: OffloadSettings): OffloadSettings => ({
  ...s,
  enabled: s.enabled && s.ageTurns > 0,
  minChars: s.agedMinChars,
  minLines: Number.MAX_SAFE_INTEGER,
  structuredMinChars: s.agedMinChars,
  previewChars: s.agedPreviewChars,
});

export interface ToolResultLike {
  toolName: string;
  toolCallId?: string;
  content: unknown;
  isError: boolean;
}

/** Below this a replacement would not be much smaller. */
const FLOOR_CHARS = 1_200;

/** The text to stash, or null when this result stays as it is. */
export function offloadCandidate(event: ToolResultLike, s: OffloadSettings): string | null {
  if (!s.enabled || event.isError || event.toolName === FETCH_TOOL_NAME || RECALL_TOOLS.has(event.toolName)) return null;
  if (!Array.isArray(event.content) || event.content.length === 0) return null;
  const parts: string[] = [];
  for (const block of event.content as Array<{ type?: unknown; text?: unknown }>) {
    if (!block || block.type !== "text" || typeof block.text !== "string") return null; // images etc.
    parts.push(block.text);
  }
  const text = parts.join("\n");
  if (text.length < Math.max(FLOOR_CHARS, s.previewChars + 400) || text.startsWith(STASHED_MARKER)) return null;
  if (text.length > s.minChars || lineCount(text) > s.minLines) return text;
  return text.length > s.structuredMinChars && sniffContentType(text) !== "text" ? text : null;
}

/** Null when the result stays; throws on I/O errors (the caller keeps the original). `savedChars`: chars unseen. */
export function offloadToolResult(
  event: ToolResultLike,
  where: { stateDir: string; sessionKey: string },
  s: OffloadSettings,
) {
  const candidate = offloadCandidate(event, s);
  if (candidate === null) return null;
  const { toolName: tool, toolCallId } = event;
  const stash = { text: candidate, kind: "tool_output", tool, sessionKey: where.sessionKey, toolCallId };
  const { receipt, stored, meta } = stashArtifact(where.stateDir, stash);
  const text = replacementText({ handle: receipt.handle, text: stored, lines: meta.lines, tool, previewChars: s.previewChars });
  return { patch: { content: [{ type: "text" as const, text }] }, receipt, savedChars: candidate.length - text.length };
}

// --- aged call arguments (docs/artifacts.md#aged-tool-call-arguments): a succeeded call's long strings
// (31–35% of the long transcripts' text) become one marker line each; the swap: aged-offload.ts

/** A string argument shorter than this stays in place (a path, a flag, a short command). */
const ARG_FIELD_MIN_CHARS = 200;
/** Marks an aged argument (and keeps it from being stashed again). */
export const AGED_ARG_MARKER = "[argument stored off the prompt:";
const MAX_DEPTH = 8;
const HINT_CHARS = 60;

/** `path`: `content`, `edits[0].oldText` */
type LongArg = { path: string; text: string };

export function longArgs(input: unknown): LongArg[] {
  const out: LongArg[] = [];
  replace(input, "", 0, (text, path) => {
    if (isLongArg(text)) out.push({ path, text });
    return text;
  });
  return out;
}

const isLongArg = (text: string): boolean => text.length >= ARG_FIELD_MIN_CHARS && !text.startsWith(AGED_ARG_MARKER);

/** One field as it is (so line ranges match the file), several under a header each. */
export function stashTextOf(args: readonly LongArg[]): string {
  if (args.length === 1) return args[0]!.text;
  return args.map((a) => `[argument ${a.path}]\n${a.text}`).join("\n");
}

export function agedArgMarker(text: string, handle: string): string {
  // cut between tokens before the redaction in safeGist (a plain slice could leave a token's head)
  const first = cutHead(text, 4096).split("\n").find((l) => l.trim() !== "") ?? "";
  const lines = text.split("\n").length;
  return `${AGED_ARG_MARKER} ${fmt(text.length)} chars, ${fmt(lines)} lines, first line ${JSON.stringify(safeGist(first, HINT_CHARS))}; the call succeeded; full text: artifact_fetch ${handle}]`;
}

/** A copy of `input` with each long argument replaced by its marker (only containers copied). */
export function withAgedArgs(input: unknown, handle: string): unknown {
  return replace(input, "", 0, (text) => (isLongArg(text) ? agedArgMarker(text, handle) : text));
}

/** `value` with `f` applied to each string in it, given its path. */
function replace(value: unknown, path: string, depth: number, f: (s: string, path: string) => string): unknown {
  if (depth > MAX_DEPTH) return value;
  if (typeof value === "string") return f(value, path);
  if (Array.isArray(value)) return value.map((v, i) => replace(v, `${path}[${i}]`, depth + 1, f));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = replace(v, path ? `${path}.${k}` : k, depth + 1, f);
    return out;
  }
  return value;
}
