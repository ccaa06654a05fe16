/**
 * pi's side of "context_search joins when the archive holds something" (engine/our-tools.ts):
 * at each run start (`before_agent_start`, before pi snapshots the run's tools) the tool is made
 * active with `pi.setActiveTools` once it joined, and kept off before. It has no prompt snippet,
 * so pi's rebuilt system prompt is the same text: only the tool list changes.
 */
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { ARCHIVE_FILE, archiveDir, statArchive } from "../archive/store.js";
import { SEARCH_TOOL_NAME } from "../archive/search-tool.js";
import type { ContextManagerEngine } from "../engine/context-manager-engine.js";
import { decideSearchJoin, ourToolsState } from "../engine/our-tools.js";

/** The run start: decide, then set pi's active tools when they differ. The caller guards. */
export async function applyRunTools(pi: ExtensionAPI, engine: ContextManagerEngine, ctx: ExtensionContext): Promise<void> {
  const state = ourToolsState(engine.runtime.stateDir, engine.sessionKey, engine.identity.sessionId);
  // with smart trim on, a trim can come inside any run and its marker line names the tool: there from the start
  if (!state.searchJoined) decideSearchJoin(state, engine.runtime.config.smartTrim || ctx.sessionManager.getBranch().some((e) => e.type === "compaction") || (await archiveHasRecords(engine)));
  const active = pi.getActiveTools();
  const has = active.includes(SEARCH_TOOL_NAME);
  if (has === state.searchJoined) return;
  pi.setActiveTools(state.searchJoined ? [...active, SEARCH_TOOL_NAME] : active.filter((n) => n !== SEARCH_TOOL_NAME));
}

/** The key's archive has records (a compaction or a smart trim archived a span, this session or an earlier one). */
async function archiveHasRecords(engine: ContextManagerEngine): Promise<boolean> {
  const st = await statArchive(join(archiveDir(engine.runtime.stateDir, engine.sessionKey), ARCHIVE_FILE));
  return (st?.size ?? 0) > 0;
}
