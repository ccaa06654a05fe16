/** pi's side of "context_search joins once the archive holds something" (engine/session.ts OurToolsState). */
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { buildSessionContext, type ExtensionAPI, type ExtensionContext } from "@mariozechner/pi-coding-agent";
import { ARCHIVE_FILE, archiveDir, statArchive } from "../archive/store.js";
import { SEARCH_TOOL_NAME } from "../archive/search-tool.js";
import type { ContextManagerEngine } from "../engine/context-manager-engine.js";
import { decideSearchJoin } from "../engine/session.js";
import { sessionAt } from "../engine/cache-budget.js";
import { coldTrimAhead, smartTrimAhead } from "../engine/trim-hooks.js";
import type { HostModel } from "../cache/cache-rules.js";
import { estimateContextTokens } from "../gauge/context-gauge.js";
import { livedTime } from "../../infra/lived-clock.js";

/** The run start: decide, then set pi's active tools when they differ. The caller guards. */
export async function applyRunTools(pi: ExtensionAPI, engine: ContextManagerEngine, ctx: ExtensionContext, prompt = "", model?: HostModel): Promise<void> {
  const state = sessionAt(engine.runtime.stateDir, engine.sessionKey).ourTools(engine.identity.sessionId);
  // a run whose first request is trimmed (its cache cold) needs the tool the trim's marker names
  const view = state.searchJoined ? null : runStartView(ctx, prompt, model);
  if (view && coldTrimAhead(engine, view)) decideSearchJoin(state, true);
  // with smart trim on, a warm batch may come within this run: its marker line names the tool
  if (view && !state.searchJoined && smartTrimAhead(engine, view)) decideSearchJoin(state, true);
  if (!state.searchJoined) decideSearchJoin(state, ctx.sessionManager.getBranch().some((e) => e.type === "compaction") || (await archiveHasRecords(engine)));
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

/** The run's first request as the run start sees it: its history, pi's reading plus the prompt, and now. */
function runStartView(ctx: ExtensionContext, prompt: string, model: HostModel | undefined) {
  const messages = buildSessionContext(ctx.sessionManager.getBranch()).messages;
  const promptTokens = estimateContextTokens([{ role: "user", content: prompt, timestamp: 0 } as AgentMessage]);
  const usage = ctx.getContextUsage()?.tokens;
  const tokens = (typeof usage === "number" ? usage : estimateContextTokens(messages)) + promptTokens;
  return { messages, tokens, at: livedTime(Date.now()), ...(model ? { model } : {}) };
}
