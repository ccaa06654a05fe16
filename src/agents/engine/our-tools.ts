/**
 * When `context_search` joins the prompt (docs/design.md#context_search-joins-when-the-archive-holds-something):
 * a tool that joins rewrites the whole cached prompt, so it joins at a run start once the archive
 * holds something (or a trim is ahead: trim-hooks.ts smartTrimAhead, coldTrimAhead) and stays.
 */
import { sessionAt } from "./cache-budget.js";
import type { OurToolsState } from "./session.js";

export type { OurToolsState };

/** Session ids remembered per key at most (oldest forgotten first). */
const MAX_SESSION_IDS = 16;

/** One state per state dir, key and session id, for the process (`lasting`: a joined tool stays joined). */
export function ourToolsState(stateDir: string, sessionKey: string, sessionId: string): OurToolsState {
  const map = sessionAt(stateDir, sessionKey).lasting.ourTools;
  let s = map.get(sessionId);
  if (!s) {
    s = { searchJoined: false, toolsChanged: false };
    if (map.size >= MAX_SESSION_IDS) map.delete(map.keys().next().value as string);
    map.set(sessionId, s);
  }
  return s;
}

/** The run start's decision: whether context_search joins now (sticky: never taken off again). */
export function decideSearchJoin(s: OurToolsState, archiveHolds: boolean): boolean {
  if (s.searchJoined || !archiveHolds) return false;
  s.searchJoined = true;
  s.toolsChanged = true;
  return true;
}

/** Whether this request's tool list changed since the previous one (taken once). */
export function takeToolsChanged(s: OurToolsState): boolean {
  const changed = s.toolsChanged;
  s.toolsChanged = false;
  return changed;
}
