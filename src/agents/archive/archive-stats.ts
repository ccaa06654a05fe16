/** What an archive holds, counted over its live records (`openclaw-context archive`, bench). */
import type { SegmentRole } from "./segments.js";
import type { ArchiveRecord } from "./store.js";

export interface ArchiveStats {
  segments: number;
  bytes: number;
  badLines: number;
  sessions: number;
  compactions: number;
  oldest: number | null;
  newest: number | null;
  byRole: Record<SegmentRole, number>;
}

/** The counts of `records`; `bytes` and `badLines` are the file's, as the archive last read it. */
export function archiveStats(records: Iterable<ArchiveRecord>, bytes: number, badLines: number): ArchiveStats {
  const byRole: Record<SegmentRole, number> = { user: 0, host: 0, assistant: 0, tool_call: 0, tool_result: 0, bash: 0 };
  const sessions = new Set<string>();
  const compactions = new Set<string>();
  let oldest: number | null = null;
  let newest: number | null = null;
  let segments = 0;
  for (const r of records) {
    segments++;
    byRole[r.role]++;
    sessions.add(r.session);
    compactions.add(`${r.session}\0${r.compaction}`);
    const t = r.t || r.at;
    if (oldest === null || t < oldest) oldest = t;
    if (newest === null || t > newest) newest = t;
  }
  return { segments, bytes, badLines, sessions: sessions.size, compactions: compactions.size, oldest, newest, byRole };
}
