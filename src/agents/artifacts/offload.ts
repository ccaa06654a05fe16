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
  /** aged-call-args.ts: same age and size */
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

/**
 * Null when the result stays. Throws on I/O errors (the caller keeps the original).
 * `savedChars`: the chars the model no longer sees.
 */
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
