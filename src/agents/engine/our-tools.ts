/**
 * When our `context_search` tool joins the prompt (issue 37, docs/design.md#context_search-joins-when-the-archive-holds-something).
 * Tool definitions come first in a prompt: one that joins mid-session rewrites the whole cached
 * prompt, and once there it is sent with every request. context_search can return nothing
 * before the archive holds what the context does not (a compaction or a smart trim archived a
 * span, or an earlier session of the key left one), so it joins then, at a run start (pi fixes a
 * run's tools when the run starts), and stays for the session: a toggle would rewrite the
 * prompt again. With smart trim on it joins at the start of a run that begins past the low mark a
 * trim cuts down to (a warm batch may come within it, and its marker line names the tool; a batch
 * due in a run without the tool trims all the same, the tool joining at the next run start: trim-hooks.ts smartTrimAhead). It
 * joins too at the start of a run whose
 * first request is trimmed because the cache is cold (engine/trim-hooks.ts coldTrimAhead): the
 * marker names it for the rest of that run, and the join rewrites nothing still cached. A
 * session whose shell does not manage the tool set keeps
 * it from the start.
 */
import { sessionAt } from "./cache-budget.js";
import type { OurToolsState } from "./session.js";

export type { OurToolsState };

/** Session ids remembered per key at most (oldest forgotten first). */
const MAX_SESSION_IDS = 16;

/**
 * One state per state dir, key and session id, for the process (a host may open a new engine
 * per run): the key's Session's (`lasting.ourTools`; not a cache: a joined tool stays joined).
 */
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
