/**
 * Aged tool-call arguments through a real pi AgentSession (standalone extension, faux
 * provider, real write/edit/bash tools on a temp workspace): a succeeded call's long
 * string argument reaches the model as one marker line (size, first line, handle) once
 * `offloadAgeTurns` assistant turns follow it, byte-identical afterwards; short arguments
 * (the path) stay; a failed call and the newest rounds stay whole; the session file keeps
 * the original; the handle reads the original back, redacted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { readArtifact } from "../../src/agents/artifacts/store.js";
import { AGED_ARG_MARKER } from "../../src/agents/artifacts/offload.js";

const SECRET = "ghp_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2";
const TOOLS = ["read", "write", "edit", "bash", "artifact_fetch"];
const HANDLE_RE = /ocm_artifact:v1:sha256:[0-9a-f]{64}/;

/** ~4 KB of source: over offloadAgedMinChars (2,000), under the fresh-stash sizes */
function source(tag: string): string {
  const lines = [`// ${tag} generated module`];
  for (let i = 1; i <= 100; i++) lines.push(`export const ${tag.toLowerCase()}${i} = ${i}; // filler line`);
  lines[50] = `export const NEEDLE_${tag} = "parser state 0x4f2a";`;
  lines[99] = `const token = "${SECRET}";`;
  return `${lines.join("\n")}\n`;
}

type Call = { type: string; id: string; name: string; arguments: Record<string, unknown> };
const callsOf = (c: Context): Call[] =>
  c.messages.flatMap((m) => (m.role === "assistant" ? (m.content as Call[]).filter((b) => b.type === "toolCall") : []));

describe("aged tool-call arguments in a real AgentSession", () => {
  let s: Standalone;
  afterEach(() => s?.cleanup());

  it("shows an old succeeded write's content as a marker with its handle; the failed edit and the newest calls stay whole", async () => {
    s = await makeStandalone({
      contextWindow: 200_000,
      contextManager: { offload: true, offloadAgeTurns: 2, offloadAgedMinChars: 2_000 },
      tools: TOOLS,
    });
    const content = source("AAA");
    const seen: Context[] = [];
    s.agent.onChat((c) => seen.push(structuredClone({ messages: c.messages }) as Context));
    s.agent.queue(
      reply.tools(["write", { path: "gen.ts", content }]),
      // fails: the file does not exist (an error: its arguments are never aged)
      reply.tools(["edit", { path: "missing.ts", oldText: source("BBB"), newText: source("CCC") }]),
      reply.tools(["bash", { command: "echo one" }]),
      reply.tools(["write", { path: "late.ts", content: source("DDD") }]),
      reply.text("done"),
    );
    const session = await s.open();
    await s.prompt(session, "generate the module");
    expect(s.errors).toEqual([]);
    expect(seen).toHaveLength(5);
    expect(readFileSync(join(s.cwd, "gen.ts"), "utf8")).toBe(content);

    // requests 2 and 3: the write is in the newest two rounds, whole
    expect(callsOf(seen[1]!)[0]!.arguments.content).toBe(content);
    expect(callsOf(seen[2]!)[0]!.arguments.content).toBe(content);
    // request 4: two assistant turns follow it: the content is a marker, the path stays
    const aged = callsOf(seen[3]!)[0]!;
    expect(aged.name).toBe("write");
    expect(aged.arguments.path).toBe("gen.ts");
    const marker = aged.arguments.content as string;
    expect(marker.startsWith(AGED_ARG_MARKER)).toBe(true);
    expect(marker).toMatch(HANDLE_RE);
    expect(marker).toContain("// AAA generated module");
    expect(marker).not.toContain("NEEDLE");
    expect(marker.length).toBeLessThan(300);
    // sticky and byte-identical afterwards (stable prompt prefix)
    expect(callsOf(seen[4]!)[0]!.arguments).toEqual(aged.arguments);

    // the failed edit is old too, but stays whole
    const edit = callsOf(seen[4]!)[1]!;
    expect(edit.name).toBe("edit");
    expect(edit.arguments.oldText).toBe(source("BBB"));
    // the newest write is whole
    expect(callsOf(seen[4]!)[3]!.arguments.content).toBe(source("DDD"));

    // the handle reads the original back, redacted
    const back = readArtifact(s.stateDir, HANDLE_RE.exec(marker)![0]);
    expect(back).toContain('export const NEEDLE_AAA = "parser state 0x4f2a";');
    expect(back).not.toContain(SECRET);
    // no request carried the secret through a marker
    for (const c of seen.slice(3)) expect(JSON.stringify(callsOf(c)[0]!.arguments)).not.toContain(SECRET);

    // non-destructive: the session keeps the original call
    const persisted = session.sessionManager.getEntries().filter((e) => e.type === "message" && e.message.role === "assistant");
    expect(JSON.stringify(persisted[0])).toContain("NEEDLE_AAA");
  });

  it("offloadAgeToolArgs: false keeps every call whole", async () => {
    s = await makeStandalone({
      contextWindow: 200_000,
      contextManager: { offload: true, offloadAgeTurns: 1, offloadAgeToolArgs: false },
      tools: TOOLS,
    });
    const content = source("AAA");
    const seen: Context[] = [];
    s.agent.onChat((c) => seen.push(structuredClone({ messages: c.messages }) as Context));
    s.agent.queue(
      reply.tools(["write", { path: "gen.ts", content }]),
      reply.tools(["bash", { command: "echo 1" }]),
      reply.tools(["bash", { command: "echo 2" }]),
      reply.text("done"),
    );
    const session = await s.open();
    await s.prompt(session, "go");
    expect(callsOf(seen.at(-1)!)[0]!.arguments.content).toBe(content);
  });
});
