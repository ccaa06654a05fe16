/**
 * `artifact_fetch`'s definition as pi sends it to the provider (real AgentSession, faux
 * provider): it is in every request while offload is on, so its size is held to a budget,
 * and what it leaves out (which field each mode reads) is said by the enum and by the line
 * under every preview, which the model sees next to each handle.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { reply, requestTexts } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";

const TOOLS = ["read", "write", "edit", "bash", "artifact_fetch"];
type SentTool = { name: string; description: string; parameters: { properties: Record<string, { type: string; enum?: string[] }>; required?: string[] } };

describe("artifact_fetch as the provider receives it", () => {
  let s: Standalone;
  afterEach(() => s?.cleanup());

  it("fits 136 tokens (chars/4), keeps every field, and the preview names each mode's fields", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { offload: true }, tools: TOOLS });
    writeFileSync(join(s.cwd, "big.log"), Array.from({ length: 2_000 }, (_, i) => `line ${i} ok`).join("\n"));
    const seen: Context[] = [];
    s.agent.onChat((c) => seen.push(JSON.parse(JSON.stringify({ systemPrompt: c.systemPrompt, messages: c.messages, tools: c.tools })) as Context));
    s.agent.queue(reply.tools(["bash", { command: "cat big.log" }]), reply.text("done"));
    const session = await s.open();
    await s.prompt(session, "Look at the log.");
    expect(s.errors).toEqual([]);

    const tool = seen[0]!.tools!.find((t) => t.name === "artifact_fetch") as unknown as SentTool;
    const sent = JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters });
    // 147 before the description left the mode list to the enum and the preview line
    expect(Math.ceil(sent.length / 4)).toBeLessThanOrEqual(136);
    expect(Object.keys(tool.parameters.properties).sort()).toEqual(["context", "endLine", "handle", "maxChars", "mode", "path", "pattern", "startLine"]);
    expect(tool.parameters.required).toEqual(["handle"]);
    expect(tool.parameters.properties.mode!.enum).toEqual(["headtail", "range", "grep", "json"]);
    // what neither the enum nor the preview says
    for (const said of ["ocm_artifact", "RE2", "items[0].id", "8000", "20000"]) expect(tool.description).toContain(said);

    const preview = requestTexts({ ...seen[1]!, messages: seen[1]!.messages.filter((m) => m.role === "toolResult") }).join("\n");
    expect(preview).toContain("[more: artifact_fetch with this handle and mode headtail | range (startLine, endLine) | grep (pattern) | json (path)]");
  });
});
