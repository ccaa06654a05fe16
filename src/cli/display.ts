/**
 * What the CLI prints of checkpoint content goes through the restore block's sanitising
 * (src/agents/inject/quote.ts, quoteUntrusted): secrets redacted before and after
 * invisible text is removed. A checkpoint file edited on disk to hold a token or tag characters is
 * shown redacted and visible, never echoed raw. `show` keeps line breaks of free text (YAML and
 * JSON escape them); one-line fields (keys, error lines) are collapsed to one line.
 */
import type { Checkpoint } from "../agents/checkpoint/schema.js";
import { redactSecrets } from "../agents/text/redact.js";
import { visibleText } from "../agents/text/visible.js";

export function displayText(s: string): string {
  return redactSecrets(visibleText(redactSecrets(s)));
}

/** displayText on one line: line and paragraph separators become spaces. */
export function displayLine(s: string): string {
  return displayText(s.replace(/[\r\n\u0085\u2028\u2029]+/g, " "));
}

/**
 * Fields whose value the schema validator already restricts to a fixed format (ids, ISO times,
 * enums, hashes, commit ids, artifact handles): nothing to redact, and redacting a 40-hex commit
 * id or a sha256 handle would break the format `show` re-validates.
 */
const FORMAT_FIELDS: ReadonlySet<string> = new Set([
  "schema",
  "checkpoint_id",
  "previous_checkpoint",
  "created_at",
  "trigger",
  "when",
  "last",
  "state_updated_at",
  "status",
  "role",
  "state",
  "hash",
  "hash_scope",
  "head",
  "handle",
]);

/** A copy of `cp` with every captured string passed through displayText. */
export function displayCheckpoint(cp: Checkpoint): Checkpoint {
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === "string") return key !== null && FORMAT_FIELDS.has(key) ? v : displayText(v);
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(cp, null) as Checkpoint;
}
