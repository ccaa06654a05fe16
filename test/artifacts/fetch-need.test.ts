/** The replay's fetch-need estimate, on hand-made transcripts whose answer is known by construction. */
import { describe, expect, it } from "vitest";
import { offloadSettings } from "../../src/agents/artifacts/offload.js";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";
import { estimateFetchNeed, promptTokens } from "../../src/replay/offload-metrics.js";

const settings = offloadSettings(resolveContextManagerConfig({ offload: true }));
const file = Array.from({ length: 400 }, (_, i) => `export const constant_number_${i} = ${i};`).join("\n");
const read = (id: string) => ({ role: "toolResult", toolCallId: id, toolName: "read", isError: false, content: [{ type: "text", text: file }] });
const edit = (oldText: string) => ({ role: "assistant", content: [{ type: "toolCall", id: "e", name: "edit", arguments: { path: "a.ts", oldText, newText: "x" } }] });

describe("estimateFetchNeed", () => {
  it("counts a later quote of a line only the stashed part held", () => {
    const r = estimateFetchNeed([{ role: "user", content: "go" }, read("1"), edit("export const constant_number_200 = 200;")], settings);
    expect(r).toMatchObject({ stashed: 1, needed: 1, quotedLines: 1 });
  });

  it("does not count a line the preview showed, or one visible again after a re-read", () => {
    const shown = estimateFetchNeed([read("1"), edit("export const constant_number_0 = 0;")], settings);
    expect(shown).toMatchObject({ stashed: 1, needed: 0 });
    const small = { role: "toolResult", toolName: "read", isError: false, content: [{ type: "text", text: "export const constant_number_200 = 200;" }] };
    expect(estimateFetchNeed([read("1"), small, edit("export const constant_number_200 = 200;")], settings)).toMatchObject({ stashed: 1, needed: 0 });
  });

  it("never counts errors or small results as stashed", () => {
    const err = { ...read("1"), isError: true };
    expect(estimateFetchNeed([err, edit("export const constant_number_200 = 200;")], settings)).toMatchObject({ stashed: 0, needed: 0 });
  });

  it("promptTokens counts system prompt, messages and tool schemas", () => {
    const base = promptTokens({ systemPrompt: "s", messages: [{ role: "user", content: "hello", timestamp: 0 }] });
    const withTool = promptTokens({ systemPrompt: "s", messages: [{ role: "user", content: "hello", timestamp: 0 }], tools: [{ name: "t", description: "d".repeat(400), parameters: {} as never }] });
    expect(withTool - base).toBeGreaterThanOrEqual(100);
  });
});
