/** The outputs stashed in a live session (newest last, bounded), for checkpoints and restore blocks. */
import { redactSecrets } from "../text/redact.js";

export interface SessionStash {
  handle: string;
  tool: string;
  /** path / command the tool was aimed at ("" when unknown), redacted and cut */
  target: string;
  /** the line range of a partial read ("120-219", "120-"), when the call named one */
  lines?: string;
  bytes: number;
}

/** enough to cover pi's keep-recent tail after a compaction */
export const MAX_STASHES_PER_SESSION = 30;

/** Line range of a partial read: pi's and OpenClaw's `read` take `offset` (1-based) and `limit`. */
export function linesOf(input: unknown): string | undefined {
  if (!input || typeof input !== "object") return undefined;
  const o = input as Record<string, unknown>;
  const whole = (v: unknown): number | null => (typeof v === "number" && Number.isSafeInteger(v) && v > 0 && v < 1e9 ? v : null);
  const offset = whole(o.offset);
  const limit = whole(o.limit);
  if (offset === null && limit === null) return undefined;
  const from = offset ?? 1;
  return limit === null ? `${from}-` : `${from}-${from + limit - 1}`;
}

/** Newest last; a handle stashed again moves to the end. */
export function addStash(list: SessionStash[], s: { handle: string; tool: string; input: unknown; bytes: number }): void {
  const i = list.findIndex((x) => x.handle === s.handle);
  if (i !== -1) list.splice(i, 1);
  const lines = linesOf(s.input);
  const o = s.input && typeof s.input === "object" ? (s.input as Record<string, unknown>) : {};
  const v = o.path ?? o.file_path ?? o.command ?? o.pattern ?? o.url;
  const target = typeof v === "string" ? redactSecrets(v).replace(/\s+/g, " ").slice(0, 160) : "";
  list.push({ handle: s.handle, tool: s.tool, target, ...(lines ? { lines } : {}), bytes: s.bytes });
  if (list.length > MAX_STASHES_PER_SESSION) list.splice(0, list.length - MAX_STASHES_PER_SESSION);
}
