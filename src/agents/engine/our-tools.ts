/**
 * When our `context_search` tool joins the prompt (issue 37, docs/design.md#context_search-joins-when-the-archive-holds-something).
 * Tool definitions come first in a prompt: one that joins mid-session rewrites the whole cached
 * prompt, and once there it is sent with every request. context_search can return nothing
 * before the archive holds what the context does not (a compaction or a smart trim archived a
 * span, or an earlier session of the key left one), so it joins then, at a run start (pi fixes a
 * run's tools when the run starts), and stays for the session: a toggle would rewrite the
 * prompt again. With smart trim on it is there from the start (a trim can come inside any run,
 * and its marker line names the tool). A session whose shell does not manage the tool set keeps
 * it from the start.
 */
import { globalSingleton } from "../../infra/global-singleton.js";

export interface OurToolsState {
  searchJoined: boolean;
  /** the tool list changed at this run start: its first request rewrites the prompt */
  toolsChanged: boolean;
}

const MAX_SESSIONS = 4_096;

const states = (): Map<string, OurToolsState> => globalSingleton("openclaw.contextManager.ourTools", () => new Map());

/** One state per state dir, key and session id, for the process (a host may open a new engine per run). */
export function ourToolsState(stateDir: string, sessionKey: string, sessionId: string): OurToolsState {
  const map = states();
  const key = `${stateDir}\u0000${sessionKey}\u0000${sessionId}`;
  let s = map.get(key);
  if (!s) {
    s = { searchJoined: false, toolsChanged: false };
    if (map.size >= MAX_SESSIONS) map.delete(map.keys().next().value as string);
    map.set(key, s);
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
