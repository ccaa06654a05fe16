/**
 * A query's terms for smart trim's BM25 (bm25-postings.ts), read line by line with each line's
 * terms remembered: the query is the latest user requests joined by lines (recall-query.ts),
 * so a new query shares all but its newest request with the last one, and a request's text is
 * read when its message is indexed (off the request path). A query never searched then costs
 * the tokenizing of its lines not seen before (the newest request), not of all of it (~85%
 * of a search over 2,000 messages was reading its 2,165-char query).
 *
 * Exact: no token or code identifier spans a line break (tokenize.ts's runs and
 * search-index.ts's CODE_TOKEN exclude it), so the lines' terms in line order are the query's,
 * in the same order: `identifierTerms(query)` and `queryTerms(query, MAX_QUERY_READ)` as
 * they are (test/trim/query-terms-memo.test.ts).
 */
import { identifierTerms, MAX_QUERY_READ } from "../archive/search-index.js";
import { queryTerms } from "../archive/tokenize.js";

interface LineTerms {
  /** the line's first MAX_QUERY_READ distinct terms, in order */
  read: readonly string[];
  /** its code identifiers' terms, in order */
  ids: readonly string[];
}

/** Chars of lines per generation: the memo keeps the current one and the one before (~5 full queries' worth at most). */
const GENERATION_CHARS = 16_384;
/** Heap per remembered char (the line and its terms), for the caller's weight. */
export const BYTES_PER_MEMO_CHAR = 8;

export class QueryTermsMemo {
  /** lines read lately, and those of the generation before (a line read again moves back to the current one) */
  private current = new Map<string, LineTerms>();
  private previous = new Map<string, LineTerms>();
  private currentChars = 0;
  private previousChars = 0;

  /** chars of the lines remembered */
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
