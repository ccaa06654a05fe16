/**
 * The SmartTrims bench/trim.ts and bench/trim-trace.ts time a decision on: one that has seen the
 * history, and one restarted on it. Both with the history indexed and the query searched off the
 * request path, as between a session's requests.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { SmartTrim, type TrimSettings } from "../src/agents/trim/smart-trim.js";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Lets the background indexing and search run, then waits `settleMs` (a diagnostic pause) more. */
async function settle(settleMs: number): Promise<void> {
  for (let k = 0; k < 5; k++) await tick();
  if (settleMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, settleMs));
}

/** A SmartTrim that has seen `base` (indexed, `query` searched off the request path). */
export async function seenTrim(base: AgentMessage[], query: string, requestAt: ReadonlySet<number>, settings: TrimSettings, settleMs = 0): Promise<SmartTrim> {
  const t = new SmartTrim();
  t.apply({ messages: base, tokens: 0, query, requestAt }, settings);
  t.relevance.flush();
  await settle(settleMs);
  return t;
}

/** A restart: a SmartTrim that reads `base` for the first time in slices (catchUp), indexed, `query` searched off the request path. */
export async function restartedTrim(base: AgentMessage[], query: string, settleMs = 0): Promise<SmartTrim> {
  const t = new SmartTrim();
  await t.catchUp(base);
  t.relevance.flush();
  t.relevance.warm(query);
  await settle(settleMs);
  return t;
}
