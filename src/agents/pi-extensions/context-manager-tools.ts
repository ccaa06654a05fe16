/** pi's side of "context_search joins once the archive holds something" (engine/session.ts OurToolsState). */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { buildSessionContext, type ExtensionAPI, type ExtensionContext } from "@mariozechner/pi-coding-agent";
import { SEARCH_TOOL_NAME } from "../archive/search-tool.js";
import type { SessionApi } from "../engine/session-api.js";
import type { HostModel } from "../cache/cache-rules.js";
import { estimateContextTokens } from "../gauge/context-gauge.js";
import { livedTime } from "../../infra/lived-clock.js";

/** The run start: decide, then set pi's active tools when they differ. The caller guards. */
export async function applyRunTools(pi: ExtensionAPI, session: SessionApi, ctx: ExtensionContext, prompt = "", model?: HostModel): Promise<void> {
  const compacted = () => ctx.sessionManager.getBranch().some((e) => e.type === "compaction");
  const joined = await session.searchJoined(() => runStartView(ctx, prompt, model), compacted);
  const active = pi.getActiveTools();
  const has = active.includes(SEARCH_TOOL_NAME);
  if (has === joined) return;
  pi.setActiveTools(joined ? [...active, SEARCH_TOOL_NAME] : active.filter((n) => n !== SEARCH_TOOL_NAME));
}

/** The run's first request as the run start sees it: its history, pi's reading plus the prompt, and now. */
function runStartView(ctx: ExtensionContext, prompt: string, model: HostModel | undefined) {
  const messages = buildSessionContext(ctx.sessionManager.getBranch()).messages;
  const promptTokens = estimateContextTokens([{ role: "user", content: prompt, timestamp: 0 } as AgentMessage]);
  const usage = ctx.getContextUsage()?.tokens;
  const tokens = (typeof usage === "number" ? usage : estimateContextTokens(messages)) + promptTokens;
  return { messages, tokens, at: livedTime(Date.now()), ...(model ? { model } : {}) };
}
