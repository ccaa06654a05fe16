/**
 * Tokenizer of the archive's index, documents and queries alike (docs/archive.md#search): code and CJK match the
 * way people name them; no stop words, no stemming (language-specific, and idf weighs them down). Then a query's
 * terms for bm25.ts: its code identifiers (from all of it) and plain terms (from its start), most specific first.
 */

/** Longest token kept (longer runs are hashes or blobs, not words anyone searches). */
const MAX_TOKEN = 64;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** splits a run around its CJK runs (the odd pieces) */
const CJK_SPLIT = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+)/u;
/** A run of word and path characters: words, identifiers, paths, dotted names. */
const RUN = /[\p{L}\p{N}_][\p{L}\p{N}_./\\-]*/gu;
const WORD = /[\p{L}\p{N}_]+/gu;
/** camelCase humps, ACRONYMWords, digits: "parseHTTPResponse2x" -> parse HTTP Response 2 x */
const PARTS = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|\p{L}+/gu;
/** file name with an extension at the end of a run: "redact.ts", "foo.test.ts" */
const FILE_NAME = /[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)*\.\p{L}[\p{L}\p{N}]{0,7}$/u;

const PLAIN_LOWER = /^[a-z][a-z]*$/;
const PLAIN_CAPITALIZED = /^[A-Z]?[a-z]*$/;
/** any char at or above U+2E80 (CJK radicals and up): only then the script regex runs */
const MAYBE_CJK = /[\u2e80-\uffff]/;

function pushWord(out: string[], word: string): void {
  if (word.length > MAX_TOKEN) return;
  // fast path: most words are plain lower-case or capitalized ASCII
  const plain = PLAIN_LOWER.test(word);
  const lower = plain ? word : word.toLowerCase();
  out.push(lower);
  if (plain || PLAIN_CAPITALIZED.test(word)) return;
  if (!/[_\p{Lu}\p{N}]/u.test(word.slice(1)) && !word.includes("_")) return;
  for (const piece of word.split("_")) {
    const parts = piece ? piece.match(PARTS) : null;
    if (!parts || (parts.length === 1 && piece.toLowerCase() === lower)) continue;
    for (const p of parts) {
      const l = p.toLowerCase();
      if (l !== lower) out.push(l);
    }
  }
}

function pushCjk(out: string[], run: string): void {
  const chars = Array.from(run);
  for (let i = 0; i < chars.length; i++) {
    out.push(chars[i]!);
    if (i + 1 < chars.length) out.push(chars[i]! + chars[i + 1]!);
  }
}

/** Tokens of `text`, in order, with repeats (term frequency matters to BM25). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  if (typeof text !== "string" || text.length === 0) return out;
  for (const m of text.matchAll(RUN)) {
    // never empty: a run starts with a word character
    const run = m[0].replace(/[./\\-]+$/, "");
    if (!MAYBE_CJK.test(run) || !CJK.test(run)) {
      tokenizeRun(out, run);
      continue;
    }
    const pieces = run.split(CJK_SPLIT);
    for (let i = 0; i < pieces.length; i++) {
      if (i % 2 === 1) pushCjk(out, pieces[i]!);
      else if (pieces[i]) tokenizeRun(out, pieces[i]!);
    }
  }
  return out;
}

/** a path segment that names something (not `.`, `..` or empty) */
const NAMED_SEGMENT = /[\p{L}\p{N}]/u;

function tokenizeRun(out: string[], run: string): void {
  if (PLAIN_LOWER.test(run)) {
    if (run.length <= MAX_TOKEN) out.push(run);
    return;
  }
  const file = /[./\\]/.test(run) ? run.match(FILE_NAME) : null;
  if (file && file[0].length <= MAX_TOKEN && /\p{L}/u.test(file[0])) out.push(file[0].toLowerCase());
  // `a/b/c/file.ts` -> a/b, b/c (lower-cased; `\\` read as `/`; not c/file.ts: the file name is its own term)
  const segs = /[/\\]/.test(run) ? run.toLowerCase().split(/[/\\]+/) : null;
  for (let i = 0; segs && i + 1 < segs.length; i++) {
    const a = segs[i]!;
    const b = segs[i + 1]!;
    const named = NAMED_SEGMENT.test(a) && NAMED_SEGMENT.test(b);
    if (named && a.length + b.length < MAX_TOKEN && !FILE_NAME.test(b)) out.push(`${a}/${b}`);
  }
  for (const w of run.matchAll(WORD)) pushWord(out, w[0]);
}

/** Distinct query terms, capped (a pasted page as a query must not cost a page of lookups). */
export function queryTerms(text: string, max = 48): string[] {
  const seen = new Set<string>();
  for (const t of tokenize(text)) {
    if (seen.size >= max) break;
    seen.add(t);
  }
  return [...seen];
}

const MAX_QUERY_TERMS = 48;
/** Distinct plain terms a query reads from its start (identifiers are read from all of it). */
export const MAX_QUERY_READ = 1024;
/** Posting-list entries a query may walk: this share of the segments, at least MIN_POSTINGS_BUDGET. */
const POSTINGS_SHARE = 0.25;
const MIN_POSTINGS_BUDGET = 2000;

/** a hex digest (a commit or object id): digits and a-f only, 7+ chars, with a digit */
const HEX_DIGEST = /^(?=[a-f]*[0-9])[0-9a-f]{7,}$/;
const CODE_TOKEN = /[\p{L}\p{N}_][\p{L}\p{N}_./-]*[\p{L}\p{N}_]/gu;

/** Terms of the query's code-like tokens (`_`, `/`, an extension, an inner capital, letters and digits): the whole
 * lower-cased form, the file name and the terms it ends with (`queueMessage` -> queuemessage, message). */
export function identifierTerms(query: string): Set<string> {
  const out = new Set<string>();
  for (const m of query.matchAll(CODE_TOKEN)) {
    const t = m[0];
    if (t.length < 3) continue;
    const codeLike = /[_/]/.test(t) || /\.\p{L}[\p{L}\p{N}]{0,7}$/u.test(t) || /\p{Ll}\p{Lu}/u.test(t) || (/\p{N}/u.test(t) && /\p{L}/u.test(t));
    if (!codeLike) continue;
    const whole = t.toLowerCase();
    // the word it ends with names something unless it is a number or a hex digest (a line
    // number, a hash: their fragments match unrelated numbers and hashes)
    const last = whole.match(/[\p{L}\p{N}]+$/u)?.[0] ?? "";
    const namedEnd = /\p{L}/u.test(last) && !HEX_DIGEST.test(last);
    for (const term of tokenize(t)) {
      if (term.length >= 3 && (term.includes(".") || term.includes("_") || term === whole || (namedEnd && whole.endsWith(term) && /\p{L}/u.test(term)))) out.add(term);
    }
  }
  return out;
}

/**
 * The query's most specific terms known to the index: at most MAX_QUERY_TERMS, while their postings fit the budget
 * (the first always), identifiers first (a pasted trace has more rare fragments than the cap holds, and the name it
 * was pasted for must not be cut), then rarest first: a pasted page costs bounded work, common words cannot flood.
 */
export function pickSpecificTerms(readTerms: readonly string[], identifiers: ReadonlySet<string>, df: ReadonlyMap<string, number>, size: number): string[] {
  const budget = Math.max(MIN_POSTINGS_BUDGET, POSTINGS_SHARE * size);
  const read = new Set(readTerms);
  for (const id of identifiers) read.add(id);
  const known = [...read]
    .map((term) => ({ term, df: df.get(term) ?? 0, id: identifiers.has(term) }))
    .filter((x) => x.df > 0)
    .sort((a, b) => Number(b.id) - Number(a.id) || a.df - b.df);
  const out: string[] = [];
  let postings = 0;
  for (const x of known) {
    if (out.length >= MAX_QUERY_TERMS || (out.length > 0 && postings + x.df > budget)) break;
    out.push(x.term);
    postings += x.df;
  }
  return out;
}

/** A line's first MAX_QUERY_READ distinct terms and its code identifiers' terms, in order. */
type LineTerms = { read: readonly string[]; ids: readonly string[] };

/** Chars of lines per generation: the memo keeps the current one and the one before (~5 full queries' worth at most). */
const GENERATION_CHARS = 16_384;
/** Heap per remembered char (the line and its terms), for the caller's weight. */
export const BYTES_PER_MEMO_CHAR = 8;

/** A query's terms read line by line, each line remembered: smart trim's next query shares all but its newest request
 * (reading a 2,165-char query was ~85% of a search over 2,000 messages); exact, no term spans a line break. */
export class QueryTermsMemo {
  /** lines read lately, and the generation before (a line read again moves back to the current one) */
  private current = new Map<string, LineTerms>();
  private previous = new Map<string, LineTerms>();
  private currentChars = 0;
  private previousChars = 0;

  get chars(): number {
    return this.currentChars + this.previousChars;
  }

  /** Reads `text`'s lines now (off the request path), so a query holding them reads them from here. */
  remember(text: string): void {
    for (const line of text.split("\n")) this.line(line);
  }

  /** identifierTerms(query) and queryTerms(query, MAX_QUERY_READ). */
  of(query: string): { ids: Set<string>; read: string[] } {
    const ids = new Set<string>();
    const read = new Set<string>();
    for (const line of query.split("\n")) {
      const t = this.line(line);
      for (const id of t.ids) ids.add(id);
      for (const term of t.read) {
        if (read.size >= MAX_QUERY_READ) break;
        read.add(term);
      }
    }
    return { ids, read: [...read] };
  }

  private line(line: string): LineTerms {
    const known = this.current.get(line);
    if (known) return known;
    const t = this.previous.get(line) ?? { read: queryTerms(line, MAX_QUERY_READ), ids: [...identifierTerms(line)] };
    if (this.currentChars + line.length > GENERATION_CHARS) {
      this.previous = this.current;
      this.previousChars = this.currentChars;
      this.current = new Map();
      this.currentChars = 0;
    }
    this.current.set(line, t);
    this.currentChars += line.length;
    return t;
  }
}
