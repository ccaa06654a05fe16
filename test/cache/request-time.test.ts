/**
 * The TTL is judged on the messages' clock: a request's time is its newest message's timestamp,
 * so a session idle past the TTL (live, replayed or resumed) is a cold cache, where aging may
 * rewrite history for free, and one within it is warm.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { cacheRulesFor, FIVE_MINUTES_MS } from "../../src/agents/cache/cache-rules.js";
import { CacheSession } from "../../src/agents/cache/cache-session.js";
import { coldReason, rememberRequest } from "../../src/agents/cache/swap-policy.js";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";
import { requestTime } from "../../src/agents/engine/request.js";

const user = (text: string, timestamp: number) => ({ role: "user", content: text, timestamp }) as AgentMessage;
const T0 = Date.UTC(2025, 10, 3, 9, 0, 0);

describe("prompt cache: the request's time", () => {
  it("is the newest message's timestamp, else the clock", () => {
    expect(requestTime([user("a", T0), user("b", T0 + 42)], 7)).toBe(T0 + 42);
    expect(requestTime([], 7)).toBe(7);
    expect(requestTime([{ role: "user", content: "x" } as AgentMessage], 7)).toBe(7);
    expect(requestTime([user("x", Number.NaN)], 7)).toBe(7);
  });

  it("a gap past the TTL on the messages' clock is a cold cache, one within it is warm", () => {
    const rules = cacheRulesFor(resolveContextManagerConfig({ promptCache: "anthropic" }), undefined);
    const session = new CacheSession();
    const first = [user("a", T0)];
    expect(coldReason(session, rules, first, requestTime(first, 0), false)).toBe("first request");
    rememberRequest(session, first.length, 1000, requestTime(first, 0), "first request", null);
    const soon = [...first, user("b", T0 + FIVE_MINUTES_MS - 1000)];
    expect(coldReason(session, rules, soon, requestTime(soon, 0), false)).toBeNull();
    rememberRequest(session, soon.length, 1100, requestTime(soon, 0), null, null);
    const late = [...soon, user("c", T0 + 2 * FIVE_MINUTES_MS + 1000)];
    expect(coldReason(session, rules, late, requestTime(late, 0), false)).toBe("ttl");
  });
});
