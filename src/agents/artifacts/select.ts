/**
 * Bounded, deterministic retrieval from a stashed payload (seed 004 §5.3): every reply fits
 * `maxChars` INCLUDING its header, and the header says what was left out.
 */
import { RE2JS } from "re2js";

/** The pattern comes from the model: RE2 is linear (a backtracking `(a+)+$` ran for seconds). */
const compileGrepPattern = (pattern: string, ignoreCase: boolean) => RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);

export const FETCH_DEFAULT_MAX_CHARS = 8_000;
export const FETCH_HARD_MAX_CHARS = 20_000;
const FETCH_MIN_MAX_CHARS = 500;
export const FETCH_MODES = ["headtail", "range", "grep", "json"] as const;
export type FetchMode = (typeof FETCH_MODES)[number];

export interface FetchSelector {
  mode?: FetchMode;
  maxChars?: number;
  /** range: first line (1-based), default 1; `endLine`: last (inclusive), default as many as fit */
  startLine?: number;
  endLine?: number;
  /** grep: regex (RE2 syntax); `context`: lines before and after each match (default 2, max 20) */
  pattern?: string;
  ignoreCase?: boolean;
  context?: number;
  path?: string;
}

type ResolvedSelector = Omit<FetchSelector, "mode" | "maxChars"> & { mode: FetchMode; maxChars: number };

export interface Selection {
  selector: ResolvedSelector;
  /** header + body, never longer than selector.maxChars */
  text: string;
  totalChars: number;
  totalLines: number;
  /** true when anything of the payload (or of the selection) was left out */
  truncated: boolean;
}

export class FetchSelectorError extends Error {
  override readonly name = "FetchSelectorError";
}

const MAX_PATTERN = 300;
/** grep matches per line only against this many chars (a minified line can be megabytes) */
const GREP_LINE_SCAN = 10_000;

function positiveInt(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new FetchSelectorError(`${name} must be a whole number >= 0, got ${JSON.stringify(v)}`);
  return v;
}

function resolveSelector(sel: FetchSelector = {}): ResolvedSelector {
  const mode = sel.mode ?? (sel.pattern !== undefined ? "grep" : sel.path !== undefined ? "json" : sel.startLine !== undefined || sel.endLine !== undefined ? "range" : "headtail");
  if (!(FETCH_MODES as readonly string[]).includes(mode)) throw new FetchSelectorError(`mode must be one of ${FETCH_MODES.join(", ")}, got ${JSON.stringify(mode)}`);
  const requested = positiveInt(sel.maxChars, "maxChars") ?? FETCH_DEFAULT_MAX_CHARS;
  // a request above the hard max is clamped (and says so in the header), not refused
  const maxChars = Math.max(FETCH_MIN_MAX_CHARS, Math.min(FETCH_HARD_MAX_CHARS, requested));
  if (mode === "range") {
    const start = positiveInt(sel.startLine, "startLine") ?? 1;
    const end = positiveInt(sel.endLine, "endLine");
    if (start < 1) throw new FetchSelectorError("startLine is 1-based");
    if (end !== undefined && end < start) throw new FetchSelectorError(`endLine (${end}) is before startLine (${start})`);
    return { mode, maxChars, startLine: start, ...(end !== undefined ? { endLine: end } : {}) };
  }
  if (mode === "grep") {
    const { pattern } = sel;
    if (typeof pattern !== "string" || pattern.length === 0) throw new FetchSelectorError("grep needs a non-empty pattern");
    if (pattern.length > MAX_PATTERN) throw new FetchSelectorError(`pattern too long (${pattern.length} > ${MAX_PATTERN} chars)`);
    try {
      compileGrepPattern(pattern, sel.ignoreCase === true);
    } catch (e) {
      throw new FetchSelectorError(`invalid regex (RE2 syntax: no lookaround or backreferences): ${(e as Error).message}`);
    }
    const context = Math.min(20, positiveInt(sel.context, "context") ?? 2);
    return { mode, maxChars, pattern, ignoreCase: sel.ignoreCase === true, context };
  }
  if (mode !== "json") return { mode, maxChars };
  if (typeof sel.path !== "string") throw new FetchSelectorError("json needs a path (e.g. items[0].name, or $ for the root)");
  parseJsonPath(sel.path);
  return { mode, maxChars, path: sel.path };
}

export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** At most n chars of `s` (its end when `fromEnd`) without splitting a surrogate pair. */
export function cutChars(s: string, n: number, fromEnd = false): string {
  if (s.length <= n) return s;
  const k = Math.max(0, n);
  const c = s.charCodeAt(fromEnd ? s.length - k : k - 1);
  if (!fromEnd) return s.slice(0, c >= 0xd800 && c <= 0xdbff ? k - 1 : k);
  return s.slice(s.length - k + (c >= 0xdc00 && c <= 0xdfff ? 1 : 0));
}

export const fmt = (n: number): string => n.toLocaleString("en-US");

export function selectFromArtifact(handle: string, text: string, input: FetchSelector = {}): Selection {
  const selector = resolveSelector(input);
  const lines = splitLines(text);
  const clamped = input.maxChars !== undefined && input.maxChars > FETCH_HARD_MAX_CHARS ? ` (maxChars clamped to ${FETCH_HARD_MAX_CHARS})` : "";
  const head = (what: string) => `[${handle} · ${fmt(text.length)} chars, ${fmt(lines.length)} lines · ${what}${clamped}]`;
  const [out, truncated] = select(selector, text, lines, head);
  // the bound is a guarantee, not a best effort: a long header cannot push a reply over it
  const over = out.length > selector.maxChars;
  const bounded = over ? cutChars(out, selector.maxChars) : out;
  return { selector, totalChars: text.length, totalLines: lines.length, text: bounded, truncated: over || truncated };
}

/** The reply and whether anything was left out. */
function select(sel: ResolvedSelector, text: string, lines: string[], head: (w: string) => string): [string, boolean] {
  const { maxChars } = sel;
  const assembled = (what: string, body: string, truncated = false): [string, boolean] => {
    const header = head(what);
    const room = maxChars - header.length - 1;
    if (body.length <= room) return [`${header}\n${body}`, truncated];
    const note = "\n[… cut at maxChars]";
    return [`${header}\n${cutChars(body, Math.max(0, room - note.length))}${note}`, true];
  };
  switch (sel.mode) {
    case "headtail": {
      // header size is bounded (~200 chars); size the halves after it
      const probe = head(`headtail: lines 1-${fmt(lines.length)} of ${fmt(lines.length)}, nothing omitted`);
      const room = maxChars - probe.length - 80;
      if (text.length <= room) return [`${probe}\n${text}`, false];
      const top = takeLinesOrCut(lines, Math.ceil(room / 2), false);
      const end = takeLinesOrCut(lines, room - top.chars, true, top.count);
      const omittedChars = Math.max(0, text.length - top.chars - end.chars);
      const omittedLines = lines.length - top.count - end.count;
      const gap = `[… ${fmt(omittedLines)} lines (${fmt(omittedChars)} chars) omitted; use mode range or grep for them …]`;
      const tails = `tail lines ${fmt(lines.length - end.count + 1)}-${fmt(lines.length)}`;
      const what = `headtail: head lines 1-${fmt(top.count)}, ${tails}; omitted ${fmt(omittedChars)} chars`;
      return assembled(what, `${top.text}\n${gap}\n${end.text}`, true);
    }
    case "range": {
      const start = sel.startLine!;
      if (start > lines.length) return [head(`range: startLine ${fmt(start)} is past the last line (${fmt(lines.length)})`), false];
      const last = Math.min(sel.endLine ?? lines.length, lines.length);
      const numbered = function* () {
        for (let i = start - 1; i < last; i++) yield `${i + 1}: ${lines[i]}`;
      };
      const { taken, over } = takeLines(numbered(), maxChars - 200);
      if (taken.length === 0 && over !== undefined) taken.push(cutChars(over, maxChars - 200));
      const shownTo = start - 1 + taken.length;
      const lineCut = taken.length === 1 && taken[0]!.length < `${shownTo}: ${lines[shownTo - 1]}`.length;
      const rest = last - shownTo;
      const unasked = last < lines.length || start > 1;
      const what =
        `range: lines ${fmt(start)}-${fmt(shownTo)}` +
        (rest > 0 ? `; ${fmt(rest)} requested lines not shown (maxChars), continue with startLine ${fmt(shownTo + 1)}` : "") +
        (lineCut ? `; line ${fmt(shownTo)} cut` : "") +
        (unasked ? `; lines outside ${fmt(start)}-${fmt(last)} not requested` : "");
      return assembled(what, taken.join("\n"), rest > 0 || lineCut || unasked);
    }
    case "grep": {
      const re = compileGrepPattern(sel.pattern!, sel.ignoreCase === true);
      const ctx = sel.context!;
      const matches: number[] = [];
      for (let i = 0; i < lines.length; i++) if (re.test(lines[i]!.length > GREP_LINE_SCAN ? lines[i]!.slice(0, GREP_LINE_SCAN) : lines[i]!)) matches.push(i);
      if (matches.length === 0) return [head(`grep /${sel.pattern}/: no match`), false];
      let lastPrinted = -1;
      // a block is built once the one before it is shown (lazily), so context lines are not repeated
      const blocks = function* () {
        for (const m of matches) {
          const from = Math.max(m - ctx, lastPrinted + 1);
          const to = Math.min(lines.length - 1, m + ctx);
          const block: string[] = lastPrinted >= 0 && from > lastPrinted + 1 ? ["--"] : [];
          for (let i = from; i <= to; i++) {
            const line = lines[i]!.length > 500 ? `${cutChars(lines[i]!, 500)}…` : lines[i]!;
            block.push(`${i + 1}${i === m ? ":" : "-"} ${line}`);
          }
          yield block.join("\n");
          lastPrinted = Math.max(lastPrinted, to);
        }
      };
      const out = takeLines(blocks(), maxChars - 240).taken;
      const notShown = matches.length - out.length;
      const what =
        `grep /${cutChars(sel.pattern!, 60)}/${sel.ignoreCase ? "i" : ""} ±${ctx}: ${fmt(matches.length)} matching lines` +
        (notShown > 0 ? `, ${fmt(notShown)} not shown (maxChars; next match at line ${fmt(matches[out.length]! + 1)})` : ", all shown") +
        "; long lines cut at 500 chars";
      return out.length === 0 ? [head(what), true] : assembled(what, out.join("\n"), notShown > 0);
    }
    case "json": {
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        throw new FetchSelectorError("this artifact is not valid JSON: use headtail, range or grep");
      }
      const value = getJsonPath(doc, parseJsonPath(sel.path!));
      if (value === undefined) return [head(`json ${sel.path}: no such path`), false];
      const rendered = JSON.stringify(value, null, 1) ?? "null";
      const shape = Array.isArray(value)
        ? `array of ${fmt(value.length)}`
        : value !== null && typeof value === "object"
          ? `object with keys ${cutChars(Object.keys(value).join(", "), 200)}`
          : typeof value;
      return assembled(`json ${cutChars(sel.path!, 80)}: ${shape}, ${fmt(rendered.length)} chars`, rendered);
    }
  }
}

/** The leading `parts` (each with its newline) that fit `budget`; `over`: the first that did not. */
function takeLines(parts: Iterable<string>, budget: number): { taken: string[]; chars: number; over?: string } {
  const taken: string[] = [];
  let chars = 0;
  for (const part of parts) {
    if (chars + part.length + 1 > budget) return { taken, chars, over: part };
    taken.push(part);
    chars += part.length + 1;
  }
  return { taken, chars };
}

/** Whole lines from the start, or (in their order) from the end down to `notBefore`. */
export function takeLinesOf(lines: readonly string[], budget: number, fromEnd = false, notBefore = 0): ReturnType<typeof takeLines> {
  if (!fromEnd) return takeLines(lines, budget);
  const backwards = function* () {
    for (let i = lines.length - 1; i >= notBefore; i--) yield lines[i]!;
  };
  const r = takeLines(backwards(), budget);
  r.taken.reverse();
  return r;
}

/** takeLines, with one cut line when not even one fits. */
function takeLinesOrCut(lines: readonly string[], budget: number, fromEnd: boolean, notBefore = 0) {
  const r = takeLinesOf(lines, budget, fromEnd, notBefore);
  const whole = { text: r.taken.join("\n"), count: r.taken.length, chars: r.chars };
  if (r.taken.length > 0 || r.over === undefined || (fromEnd && budget <= 20)) return whole;
  const cut = cutChars(r.over, Math.max(0, budget - 2), fromEnd);
  return { text: fromEnd ? `…${cut}` : `${cut}…`, count: 1, chars: cut.length };
}

/** One step: `.name`, `[N]`, `["odd key"]`, or a bare name first. */
const JSON_PATH_STEP = /\.([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|([^.[\]]+)/y;

/** `$`, `$.a.b[0]`, `a.b[0]["odd key"]` → steps. Throws FetchSelectorError on bad syntax. */
export function parseJsonPath(p: string): Array<string | number> {
  if (p.length > 500) throw new FetchSelectorError("json path too long");
  const s = p.trim().replace(/^\$/, "");
  const steps: Array<string | number> = [];
  for (let i = 0; i < s.length; i = JSON_PATH_STEP.lastIndex) {
    JSON_PATH_STEP.lastIndex = i;
    const m = JSON_PATH_STEP.exec(s);
    const bad = `bad json path at ${JSON.stringify(s.slice(i, i + 10))}: use .name, [N] or ["key"]`;
    if (!m || (m[4] !== undefined && i > 0)) throw new FetchSelectorError(bad); // a bare name only first
    const [, name, index, quoted, first] = m;
    if (quoted !== undefined) steps.push(JSON.parse(quoted) as string);
    else steps.push(index !== undefined ? Number(index) : (name ?? first)!);
  }
  return steps;
}

function getJsonPath(doc: unknown, steps: ReadonlyArray<string | number>): unknown {
  let cur: unknown = doc;
  for (const step of steps) {
    // an index only into an array, a name only into an object that has it as its own key
    if (cur === null || typeof cur !== "object" || Array.isArray(cur) !== (typeof step === "number")) return undefined;
    if (typeof step === "string" && !Object.prototype.hasOwnProperty.call(cur, step)) return undefined;
    cur = (cur as Record<string | number, unknown>)[step];
  }
  return cur;
}
