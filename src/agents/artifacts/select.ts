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
  /** range: first line (1-based), default 1 */
  startLine?: number;
  /** range: last line (inclusive), default: as many as fit */
  endLine?: number;
  /** grep: regex (RE2 syntax) */
  pattern?: string;
  ignoreCase?: boolean;
  /** grep: lines of context before and after each match (default 2, max 20) */
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
  const out: ResolvedSelector = { mode, maxChars };
  if (mode === "range") {
    const start = positiveInt(sel.startLine, "startLine") ?? 1;
    const end = positiveInt(sel.endLine, "endLine");
    if (start < 1) throw new FetchSelectorError("startLine is 1-based");
    if (end !== undefined && end < start) throw new FetchSelectorError(`endLine (${end}) is before startLine (${start})`);
    out.startLine = start;
    if (end !== undefined) out.endLine = end;
  } else if (mode === "grep") {
    if (typeof sel.pattern !== "string" || sel.pattern.length === 0) throw new FetchSelectorError("grep needs a non-empty pattern");
    if (sel.pattern.length > MAX_PATTERN) throw new FetchSelectorError(`pattern too long (${sel.pattern.length} > ${MAX_PATTERN} chars)`);
    try {
      compileGrepPattern(sel.pattern, sel.ignoreCase === true);
    } catch (e) {
      throw new FetchSelectorError(`invalid regex (RE2 syntax: no lookaround or backreferences): ${(e as Error).message}`);
    }
    out.pattern = sel.pattern;
    out.ignoreCase = sel.ignoreCase === true;
    out.context = Math.min(20, positiveInt(sel.context, "context") ?? 2);
  } else if (mode === "json") {
    if (typeof sel.path !== "string") throw new FetchSelectorError("json needs a path (e.g. items[0].name, or $ for the root)");
    parseJsonPath(sel.path);
    out.path = sel.path;
  }
  return out;
}

export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Cuts `s` to at most n chars without splitting a surrogate pair. */
export function cutChars(s: string, n: number): string {
  if (s.length <= n) return s;
  let end = Math.max(0, n);
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end);
}

function cutCharsFromEnd(s: string, n: number): string {
  if (s.length <= n) return s;
  let start = s.length - Math.max(0, n);
  const c = s.charCodeAt(start);
  if (c >= 0xdc00 && c <= 0xdfff) start++;
  return s.slice(start);
}

export const fmt = (n: number): string => n.toLocaleString("en-US");

function assemble(header: string, body: string, maxChars: number): { text: string; cut: boolean } {
  const room = maxChars - header.length - 1;
  if (body.length <= room) return { text: `${header}\n${body}`, cut: false };
  const note = "\n[… cut at maxChars]";
  return { text: `${header}\n${cutChars(body, Math.max(0, room - note.length))}${note}`, cut: true };
}

export function selectFromArtifact(handle: string, text: string, input: FetchSelector = {}): Selection {
  const s = select(handle, text, input);
  // the bound is a guarantee, not a best effort: a long header cannot push a reply over it
  if (s.text.length > s.selector.maxChars) return { ...s, text: cutChars(s.text, s.selector.maxChars), truncated: true };
  return s;
}

function select(handle: string, text: string, input: FetchSelector): Selection {
  const selector = resolveSelector(input);
  const lines = splitLines(text);
  const base = { selector, totalChars: text.length, totalLines: lines.length };
  const clamped = input.maxChars !== undefined && input.maxChars > FETCH_HARD_MAX_CHARS ? ` (maxChars clamped to ${FETCH_HARD_MAX_CHARS})` : "";
  const head = (what: string) => `[${handle} · ${fmt(text.length)} chars, ${fmt(lines.length)} lines · ${what}${clamped}]`;

  switch (selector.mode) {
    case "headtail": {
      // header size is bounded (~200 chars); size the halves after it
      const probe = head(`headtail: lines 1-${fmt(lines.length)} of ${fmt(lines.length)}, nothing omitted`);
      const room = selector.maxChars - probe.length - 80;
      if (text.length <= room) return { ...base, text: `${probe}\n${text}`, truncated: false };
      const headPart = takeLinesOrCut(lines, Math.ceil(room / 2), false);
      const tailPart = takeLinesOrCut(lines, room - headPart.chars, true, headPart.count);
      const omittedLines = lines.length - headPart.count - tailPart.count;
      const omittedChars = Math.max(0, text.length - headPart.chars - tailPart.chars);
      const gap = `[… ${fmt(omittedLines)} lines (${fmt(omittedChars)} chars) omitted; use mode range or grep for them …]`;
      const h = head(
        `headtail: head lines 1-${fmt(headPart.count)}, tail lines ${fmt(lines.length - tailPart.count + 1)}-${fmt(lines.length)}; omitted ${fmt(omittedChars)} chars`,
      );
      const { text: out } = assemble(h, `${headPart.text}\n${gap}\n${tailPart.text}`, selector.maxChars);
      return { ...base, text: out, truncated: true };
    }
    case "range": {
      const start = selector.startLine!;
      if (start > lines.length) return { ...base, text: head(`range: startLine ${fmt(start)} is past the last line (${fmt(lines.length)})`), truncated: false };
      const last = Math.min(selector.endLine ?? lines.length, lines.length);
      const budget = selector.maxChars - 200;
      const numbered = function* () {
        for (let i = start - 1; i < last; i++) yield `${i + 1}: ${lines[i]}`;
      };
      const { taken: bodyLines, over } = takeLines(numbered(), budget);
      if (bodyLines.length === 0 && over !== undefined) bodyLines.push(cutChars(over, budget));
      const shownTo = start - 1 + bodyLines.length;
      const lineCut = bodyLines.length === 1 && bodyLines[0]!.length < `${shownTo}: ${lines[shownTo - 1]}`.length;
      const rest = last - shownTo;
      const what =
        `range: lines ${fmt(start)}-${fmt(shownTo)}` +
        (rest > 0 ? `; ${fmt(rest)} requested lines not shown (maxChars), continue with startLine ${fmt(shownTo + 1)}` : "") +
        (lineCut ? `; line ${fmt(shownTo)} cut` : "") +
        (last < lines.length || start > 1 ? `; lines outside ${fmt(start)}-${fmt(last)} not requested` : "");
      const { text: out, cut } = assemble(head(what), bodyLines.join("\n"), selector.maxChars);
      return { ...base, text: out, truncated: rest > 0 || lineCut || cut || start > 1 || last < lines.length };
    }
    case "grep": {
      const re = compileGrepPattern(selector.pattern!, selector.ignoreCase === true);
      const ctx = selector.context!;
      const matches: number[] = [];
      for (let i = 0; i < lines.length; i++) if (re.test(lines[i]!.length > GREP_LINE_SCAN ? lines[i]!.slice(0, GREP_LINE_SCAN) : lines[i]!)) matches.push(i);
      if (matches.length === 0) return { ...base, text: head(`grep /${selector.pattern}/: no match`), truncated: false };
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
      const out = takeLines(blocks(), selector.maxChars - 240).taken;
      const notShown = matches.length - out.length;
      const what =
        `grep /${cutChars(selector.pattern!, 60)}/${selector.ignoreCase ? "i" : ""} ±${ctx}: ${fmt(matches.length)} matching lines` +
        (notShown > 0 ? `, ${fmt(notShown)} not shown (maxChars; next match at line ${fmt(matches[out.length]! + 1)})` : ", all shown") +
        "; long lines cut at 500 chars";
      if (out.length === 0) return { ...base, text: head(what), truncated: true };
      const { text: body, cut } = assemble(head(what), out.join("\n"), selector.maxChars);
      return { ...base, text: body, truncated: cut || notShown > 0 };
    }
    case "json": {
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        throw new FetchSelectorError("this artifact is not valid JSON: use headtail, range or grep");
      }
      const value = getJsonPath(doc, parseJsonPath(selector.path!));
      if (value === undefined) return { ...base, text: head(`json ${selector.path}: no such path`), truncated: false };
      const rendered = JSON.stringify(value, null, 1) ?? "null";
      const shape = Array.isArray(value)
        ? `array of ${fmt(value.length)}`
        : value !== null && typeof value === "object"
          ? `object with keys ${cutChars(Object.keys(value).join(", "), 200)}`
          : typeof value;
      const what = `json ${cutChars(selector.path!, 80)}: ${shape}, ${fmt(rendered.length)} chars`;
      const { text: out, cut } = assemble(head(what), rendered, selector.maxChars);
      return { ...base, text: out, truncated: cut };
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
  const cut = fromEnd ? cutCharsFromEnd(r.over, budget - 2) : cutChars(r.over, Math.max(0, budget - 2));
  return { text: fromEnd ? `…${cut}` : `${cut}…`, count: 1, chars: cut.length };
}

export type JsonPathStep = string | number;

/** One step: `.name`, `[N]`, `["odd key"]`, or a bare name first. */
const JSON_PATH_STEP = /\.([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|([^.[\]]+)/y;

/** `$`, `$.a.b[0]`, `a.b[0]["odd key"]` → steps. Throws FetchSelectorError on bad syntax. */
export function parseJsonPath(p: string): JsonPathStep[] {
  if (p.length > 500) throw new FetchSelectorError("json path too long");
  const s = p.trim().replace(/^\$/, "");
  const steps: JsonPathStep[] = [];
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

function getJsonPath(doc: unknown, steps: readonly JsonPathStep[]): unknown {
  let cur: unknown = doc;
  for (const step of steps) {
    // an index only into an array, a name only into an object that has it as its own key
    if (cur === null || typeof cur !== "object" || Array.isArray(cur) !== (typeof step === "number")) return undefined;
    if (typeof step === "string" && !Object.prototype.hasOwnProperty.call(cur, step)) return undefined;
    cur = (cur as Record<string | number, unknown>)[step];
  }
  return cur;
}
