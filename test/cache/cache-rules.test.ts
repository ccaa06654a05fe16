/** Which prompt-cache rules a request is prepared under: the host's model, then the config. */
import { describe, expect, it } from "vitest";
import { cacheRulesFor, familyOfModel, FIVE_MINUTES_MS, ONE_HOUR_MS } from "../../src/agents/cache/cache-rules.js";
import { ContextManagerConfigError, resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";

describe("prompt cache rules", () => {
  it("Anthropic's API and Claude anywhere follow the breakpoint rules; others cache a shared prefix", () => {
    expect(familyOfModel({ provider: "anthropic", api: "anthropic-messages", id: "claude-sonnet-4-5" })).toBe("anthropic");
    expect(familyOfModel({ provider: "amazon-bedrock", api: "bedrock-converse-stream", id: "us.anthropic.claude-opus-4" })).toBe("anthropic");
    expect(familyOfModel({ provider: "openrouter", api: "openai-completions", id: "anthropic/claude-3.7-sonnet" })).toBe("anthropic");
    expect(familyOfModel({ provider: "openai", api: "openai-responses", id: "gpt-5" })).toBe("openai");
    expect(familyOfModel({ provider: "google", api: "google-generative-ai", id: "gemini-2.5-pro" })).toBe("openai");
    expect(familyOfModel(undefined)).toBe("openai");
  });

  it("config overrides the model; the TTL follows the host's retention unless set", () => {
    const cfg = resolveContextManagerConfig({});
    expect(cacheRulesFor(cfg, { provider: "anthropic" })).toMatchObject({ family: "anthropic", ttlMs: FIVE_MINUTES_MS, lookbackBlocks: 20, writePrice: 1.25, readPrice: 0.1 });
    expect(cacheRulesFor(cfg, { provider: "anthropic", retention: "long" }).ttlMs).toBe(ONE_HOUR_MS);
    expect(cacheRulesFor(resolveContextManagerConfig({ promptCacheTtl: "5m" }), { provider: "anthropic", retention: "long" }).ttlMs).toBe(FIVE_MINUTES_MS);
    expect(cacheRulesFor(resolveContextManagerConfig({ promptCache: "none" }), { provider: "anthropic" }).family).toBe("none");
    expect(cacheRulesFor(resolveContextManagerConfig({ promptCache: "anthropic" }), { provider: "openai" }).family).toBe("anthropic");
    expect(() => resolveContextManagerConfig({ promptCache: "gemini" })).toThrow(ContextManagerConfigError);
    expect(() => resolveContextManagerConfig({ promptCacheTtl: "2h" })).toThrow(/promptCacheTtl/);
  });
});
