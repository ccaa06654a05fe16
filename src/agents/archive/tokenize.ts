/**
 * Tokenizer of the archive's index (documents and queries alike), so code and CJK match the way
 * people name them: words lower-cased plus their snake_case, camelCase and letter/digit parts;
 * a path's file name with its extension, and each pair of adjacent directory names (people name a
 * folder by its last segments; a pair ending in the file name is left out); CJK runs as bigrams
 * plus single characters. No stop words, no stemming: language-specific, and idf weighs them down.
 */

/** Longest token kept (longer runs are hashes or blobs, not words anyone searches). */
const MAX_TOKEN = 64;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
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
  if (PLAIN_LOWER.test(word)) {
    out.push(word);
    return;
  }
  const lower = word.toLowerCase();
  out.push(lower);
  if (PLAIN_CAPITALIZED.test(word)) return;
  if (!/[_\p{Lu}\p{N}]/u.test(word.slice(1)) && !word.includes("_")) return;
  for (const piece of word.split("_")) {
    if (!piece) continue;
    const parts = piece.match(PARTS);
    if (!parts) continue;
    if (parts.length === 1 && piece.toLowerCase() === lower) continue;
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
    let run = m[0].replace(/[./\\-]+$/, "");
    if (!run) continue;
    if (MAYBE_CJK.test(run) && CJK.test(run)) {
      let last = 0;
      for (const c of run.matchAll(CJK_RUN)) {
        if (c.index! > last) tokenizeRun(out, run.slice(last, c.index));
        pushCjk(out, c[0]);
        last = c.index! + c[0].length;
      }
      if (last < run.length) tokenizeRun(out, run.slice(last));
      continue;
    }
    tokenizeRun(out, run);
  }
  return out;
}

/** a path segment that names something (not `.`, `..` or empty) */
const NAMED_SEGMENT = /[\p{L}\p{N}]/u;

/** `a/b/c/file.ts` -> a/b, b/c (lower-cased; `\\` read as `/`; not c/file.ts, see above) */
function pushDirectoryPairs(out: string[], run: string): void {
  const segs = run.toLowerCase().split(/[/\\]+/);
  for (let i = 0; i + 1 < segs.length; i++) {
    const a = segs[i]!;
    const b = segs[i + 1]!;
    if (a.length + b.length >= MAX_TOKEN || !NAMED_SEGMENT.test(a) || !NAMED_SEGMENT.test(b) || FILE_NAME.test(b)) continue;
    out.push(`${a}/${b}`);
  }
}

function tokenizeRun(out: string[], run: string): void {
  if (PLAIN_LOWER.test(run)) {
    if (run.length <= MAX_TOKEN) out.push(run);
    return;
  }
  if (/[./\\]/.test(run)) {
    const file = run.match(FILE_NAME);
    if (file && file[0].length <= MAX_TOKEN && /\p{L}/u.test(file[0])) out.push(file[0].toLowerCase());
  }
  if (/[/\\]/.test(run)) pushDirectoryPairs(out, run);
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
