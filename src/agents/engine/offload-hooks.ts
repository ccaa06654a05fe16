/**
 * Offload as the engine uses it: the tool_result patch, each request's aged swap, a resumed
 * session's warm start. A failure keeps the original and is logged once (engine.log).
 */
import type { EngineCore } from "./engine-core.js";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AgingGate } from "../artifacts/aged-offload.js";
import { offloadSettings, offloadToolResult, type ToolResultLike } from "../artifacts/offload.js";
import { addStash } from "../artifacts/session-stashes.js";
import { applyCacheBudget, reweighSession, sessionAt } from "./cache-budget.js";
import type { AgedMemory } from "./session.js";

/** The key's aged-offload memory (its Session): one per engine would flip-flop the prompt and break the cache. */
function agedFor(engine: EngineCore): AgedMemory {
  const { stateDir } = engine.runtime;
  applyCacheBudget(engine.runtime.config);
  const m = sessionAt(stateDir, engine.sessionKey).agedOffload(offloadSettings(engine.runtime.config));
  reweighSession(`${stateDir}\u0000${engine.sessionKey}`); // weighed again: it grows with the session
  // the log, not the engine: a memory kept past its engine must not keep the engine alive
  const log = engine.log;
  m.offload.onError = (e) => log.fail("artifact stash", e);
  return m;
}

/**
 * Aged tool results swapped for handle + preview (docs/artifacts.md#aged-offload); a memory that never
 * saw the history is warmed first. `gate`, `ageTurns`: the prompt-cache policy's (cache/swap-policy.ts).
 */
export function agedMessages(messages: AgentMessage[], engine: EngineCore, gate?: AgingGate, ageTurns?: number): AgentMessage[] {
  if (!engine.runtime.config.offload) return messages;
  try {
    const aged = agedFor(engine);
    if (!aged.warmed) {
      aged.warmed = true;
      aged.offload.warm(messages);
    }
    return aged.offload.apply(messages, gate, ageTurns);
  } catch (e) {
    engine.log.fail("aged offload", e);
    return messages;
  }
}

/** A resumed session's start: the old results judged off the request path, so its first request goes out aged. */
export function warmAgedOffload(engine: EngineCore, entries: readonly unknown[]): void {
  if (!engine.runtime.config.offload || entries.length === 0) return;
  try {
    const aged = agedFor(engine);
    aged.warmed = true;
    aged.offload.warm(messagesInContext(entries));
  } catch (e) {
    engine.log.fail("aged offload", e);
  }
}

/** The messages of a session branch the model still sees: those from the latest compaction's first kept entry on. */
function messagesInContext(entries: readonly unknown[]): AgentMessage[] {
  type Entry = { type?: string; id?: string; firstKeptEntryId?: string; message?: AgentMessage };
  const list = entries as Entry[];
  const last = list.findLastIndex((e) => e?.type === "compaction");
  const kept = last < 0 ? 0 : list.findIndex((e) => e?.id === list[last]!.firstKeptEntryId);
  const start = last < 0 ? 0 : kept >= 0 ? kept : last + 1;
  return list.slice(start).flatMap((e) => (e?.type === "message" && e.message ? [e.message] : []));
}

/** The patch for pi's tool_result event, or undefined to leave the result as it is. */
export function offloadPatch(
  event: ToolResultLike & { input?: unknown },
  engine: EngineCore,
): { content: Array<{ type: "text"; text: string }> } | undefined {
  if (!engine.runtime.config.offload) return undefined;
  try {
    // the call's own long arguments (a write's content) age too, whatever happens to its result
    agedFor(engine).offload.registerCall(event);
    const out = offloadToolResult(event, { stateDir: engine.runtime.stateDir, sessionKey: engine.sessionKey }, offloadSettings(engine.runtime.config));
    // not stashed now: a mid-size result is stashed for aging (the context event only swaps it in later)
    const stored = out ? out.receipt : agedFor(engine).offload.register(event);
    // checkpoints may name it (a read of a file the ledger holds), so a restore block can point at it
    const stashes = sessionAt(engine.runtime.stateDir, engine.sessionKey).lasting.stashes;
    const { toolName: tool, input } = event;
    if (stored) addStash(stashes, { handle: stored.handle, tool, input, bytes: stored.bytes });
    engine.log.clear("artifact stash");
    return out?.patch;
  } catch (e) {
    engine.log.fail("artifact stash", e);
    return undefined;
  }
}
