/**
 * What the model sees instead of a stashed output: handle, size, a bounded head/tail preview
 * (seed 004: 300–800 chars) and how to fetch more. Cut from the REDACTED payload.
 */
import { cutChars, fmt, splitLines, takeLinesOf } from "./select.js";

const PREVIEW_MAX_CHARS = 800;
export const FETCH_TOOL_NAME = "artifact_fetch";
/** Marks a replacement (and keeps it from being stashed again). */
export const STASHED_MARKER = "[tool output stored off the prompt:";

/** Head two thirds of the budget, tail the rest; whole lines where they fit. */
export function previewParts(text: string, previewChars: number) {
  const budget = Math.max(0, Math.min(PREVIEW_MAX_CHARS, previewChars));
  const lines = splitLines(text);
  const headBudget = Math.ceil((budget * 2) / 3);
  const head = takeLinesOf(lines, headBudget);
  if (head.taken.length === 0 && head.over !== undefined && headBudget > 0) {
    head.taken.push(`${cutChars(head.over, headBudget - 1)}…`);
    head.chars = headBudget;
  }
  const tailBudget = budget - head.chars;
  const tail = takeLinesOf(lines, tailBudget, true, head.taken.length);
  if (tail.taken.length === 0 && tail.over !== undefined && tailBudget > 40) {
    tail.taken.push(`…${tail.over.slice(tail.over.length - (tailBudget - 2))}`);
    tail.chars = tailBudget;
  }
  return {
    head: head.taken.join("\n"),
    tail: tail.taken.join("\n"),
    headLines: head.taken.length,
    tailLines: tail.taken.length,
    omittedChars: Math.max(0, text.length - head.chars - tail.chars),
    omittedLines: Math.max(0, lines.length - head.taken.length - tail.taken.length),
  };
}

type ReplacementInput = { handle: string; text: string; lines: number; tool?: string; previewChars: number };

export function replacementText(r: ReplacementInput): string {
  const p = previewParts(r.text, r.previewChars);
  const out = [
    `${STASHED_MARKER} ${fmt(r.text.length)} chars, ${fmt(r.lines)} lines${r.tool ? ` from ${r.tool}` : ""}]`,
    `handle: ${r.handle}`,
  ];
  if (p.head) out.push(p.head);
  if (p.omittedLines > 0 || p.omittedChars > 0) out.push(`[… ${fmt(p.omittedLines)} lines (${fmt(p.omittedChars)} chars) not shown …]`);
  if (p.tail) out.push(p.tail);
  out.push(`[more: ${FETCH_TOOL_NAME} with this handle and mode headtail | range (startLine, endLine) | grep (pattern) | json (path)]`);
  return out.join("\n");
}
