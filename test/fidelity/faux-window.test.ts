/**
 * The faux model with enforceWindow rejects a chat request over the window with an error
 * that pi-ai's own isContextOverflow classifies as a context overflow (so pi's overflow
 * compaction runs), and accepts the same request under a larger window.
 */
import { complete, isContextOverflow, type Context } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { fauxPromptTokens, registerFauxModel, type FauxModelHandle } from "../../src/faux/faux-model.js";

let handle: FauxModelHandle | null = null;
afterEach(() => {
  handle?.unregister();
  handle = null;
});

const context = (chars: number): Context => ({
  systemPrompt: "You are a test.",
  messages: [{ role: "user", content: "x".repeat(chars), timestamp: Date.now() }],
});

describe("faux model window enforcement", () => {
  it("rejects an over-window request with a provider overflow error", async () => {
    handle = registerFauxModel({ provider: `fw-${Date.now()}`, contextWindow: 1000, enforceWindow: true });
    handle.setResponder(() => {
      throw new Error("responder must not run for a rejected request");
    });
    const ctx = context(8000);
    expect(fauxPromptTokens(ctx)).toBeGreaterThan(1000);
    const reply = await complete(handle.model, ctx);
    expect(reply.stopReason).toBe("error");
    expect(reply.errorMessage).toMatch(/^prompt is too long: \d+ tokens > 1000 maximum$/);
    expect(isContextOverflow(reply, 1000)).toBe(true);
    expect(handle.overflowRejections).toBe(1);
  });

  it("counts prompt tokens like the provider's usage", async () => {
    handle = registerFauxModel({ provider: `fw2-${Date.now()}`, contextWindow: 100_000, enforceWindow: true });
    const { fauxAssistantMessage } = await import("@mariozechner/pi-ai");
    handle.setResponder(() => fauxAssistantMessage("ok"));
    const ctx = context(3000);
    const reply = await complete(handle.model, ctx);
    expect(reply.stopReason).toBe("stop");
    expect(reply.usage.input + reply.usage.cacheRead).toBe(fauxPromptTokens(ctx));
    expect(handle.overflowRejections).toBe(0);
  });
});
