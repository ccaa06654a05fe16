/**
 * A snippet of an archived fragment around its best match (the window with the most distinct
 * matched terms), the terms marked «like this». Redacted BEFORE it is cut, so a secret is never
 * cut in half past the redactor; the caller quotes the result.
 */
import { redactSecrets } from "../text/redact.js";

export const SNIPPET_CHARS = 240;
const MAX_OCCURRENCES = 64;
const OPEN = "«";
const CLOSE = "»";

interface Hit {
  at: number;
  term: number;
  len: number;
}

function occurrences(lower: string, terms: readonly string[]): Hit[] {
  const out: Hit[] = [];
  terms.forEach((t, term) => {
    if (!t) return;
    for (let i = lower.indexOf(t), n = 0; i !== -1 && n < MAX_OCCURRENCES; i = lower.indexOf(t, i + t.length), n++) out.push({ at: i, term, len: t.length });
  });
  return out.sort((a, b) => a.at - b.at);
}

/** The snippet: `…` where text was left out on either side; the whole text when it is short. */
export function snippetOf(raw: string, terms: readonly string[], maxChars = SNIPPET_CHARS): string {
  const text = redactSecrets(raw);
  const wanted = [...new Set(terms.map((t) => t.toLowerCase()).filter((t) => t.length > 0))].sort((a, b) => b.length - a.length);
  const lower = text.toLowerCase();
  const hits = occurrences(lower, wanted);
  let start = 0;
  if (text.length > maxChars && hits.length > 0) {
    let best = -1;
    for (const h of hits) {
      const from = Math.max(0, h.at - Math.floor(maxChars / 3));
      const seen = new Set<number>();
      for (const o of hits) if (o.at >= from && o.at + o.len <= from + maxChars) seen.add(o.term);
      if (seen.size > best) {
        best = seen.size;
        start = from;
      }
    }
  }
  const end = Math.min(text.length, start + maxChars);
  if (start > 0 && end - start < maxChars) start = Math.max(0, end - maxChars);
  let out = "";
  let pos = start;
  for (const h of hits) {
    if (h.at < pos || h.at + h.len > end) continue;
    out += `${text.slice(pos, h.at)}${OPEN}${text.slice(h.at, h.at + h.len)}${CLOSE}`;
    pos = h.at + h.len;
  }
  out += text.slice(pos, end);
  return `${start > 0 ? "…" : ""}${out}${end < text.length ? "…" : ""}`;
}
