/**
 * Aged tool-call arguments (docs/artifacts.md#aged-tool-call-arguments): a succeeded call's long
 * strings (31–35% of the long transcripts' text) become one marker line each; the swap: aged-offload.ts.
 */
import { cutHead, safeGist } from "../text/gist.js";
import { fmt } from "./select.js";

/** A string argument shorter than this stays in place (a path, a flag, a short command). */
export const ARG_FIELD_MIN_CHARS = 200;
/** Marks an aged argument (and keeps it from being stashed again). */
export const AGED_ARG_MARKER = "[argument stored off the prompt:";
const MAX_DEPTH = 8;
const HINT_CHARS = 60;

export interface LongArg {
  /** `content`, `edits[0].oldText` */
  path: string;
  text: string;
}

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
