/**
 * Offload through a real pi AgentSession (standalone extension, faux provider, real
 * bash tool on a temp workspace): a large tool output reaches the model as a handle +
 * bounded preview, artifact_fetch returns bounded excerpts by handle, its own results
 * are never stashed again, errors pass through, and no planted secret reaches an
 * artifact or a request.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { reply, requestTexts } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { resolve } from "node:path";
import { gcArtifacts } from "../../src/agents/artifacts/gc.js";

const SECRET = "ghp_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8";
/** pi's built-ins plus the extension's tool (pi filters every tool by this list when one is given) */
const TOOLS = ["read", "write", "edit", "bash", "artifact_fetch"];
const HANDLE_RE = /ocm_artifact:v1:sha256:[0-9a-f]{64}/;

function bigLog(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 1500; i++) lines.push(`${String(i).padStart(5, "0")} step ${i} ok`);
  lines[749] = "00750 NEEDLE: the checksum mismatch was in module frobnicator";
  lines[900] = `00901 export GITHUB_TOKEN=${SECRET}`;
  return `${lines.join("\n")}\n`;
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

const lastToolText = (c: Context) => {
  const m = [...c.messages].reverse().find((x) => x.role === "toolResult");
  return m ? requestTexts({ ...c, messages: [m] })[0]! : "";
};

describe("offload in a real AgentSession", () => {
  let s: Standalone;
  afterEach(() => s?.cleanup());

  it("stashes a large bash output, the model sees a bounded preview, artifact_fetch greps it", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { offload: true }, tools: TOOLS });
    const log = bigLog();
    writeFileSync(join(s.cwd, "build.log"), log);
    const seen: Context[] = [];
    let handle = "";
    s.agent.onChat((c) => {
      seen.push(structuredClone({ systemPrompt: c.systemPrompt, messages: c.messages, tools: c.tools?.map((t) => ({ name: t.name })) }) as Context);
      const m = HANDLE_RE.exec(lastToolText(c));
      if (seen.length === 2 && m) {
        handle = m[0];
        s.agent.queue(
          reply.tools(["artifact_fetch", { handle, mode: "grep", pattern: "NEEDLE", context: 1 }]),
          reply.tools(["artifact_fetch", { handle, maxChars: 20_000 }]),
          reply.tools(["artifact_fetch", { handle: handle.toUpperCase() }]),
          reply.tools(["bash", { command: "cat missing-file.log" }]),
          reply.text("Found it."),
        );
      }
    });
    s.agent.queue(reply.tools(["bash", { command: "cat build.log" }]));
    const session = await s.open();
    await s.prompt(session, "Why did the build fail?");

    expect(s.errors).toEqual([]);
    expect(seen[0]!.tools!.map((t) => t.name)).toContain("artifact_fetch");
    // request 2: the bash result is the replacement, not the 30 KB log
    const replaced = lastToolText(seen[1]!);
    expect(handle).not.toBe("");
    expect(replaced).toContain("[tool output stored off the prompt:");
    expect(replaced.length).toBeLessThan(1200);
    expect(replaced).toContain("00001 step 1 ok");
    expect(replaced).not.toContain("NEEDLE");
    // request 3: the grep fetch found the line in the stashed part, with context
    const grep = lastToolText(seen[2]!);
    expect(grep).toContain("750: 00750 NEEDLE");
    expect(grep).toContain("749- 00749 step 749 ok");
    // request 4: a 20k fetch is bounded and is NOT stashed again (no self-ingest)
    const wide = lastToolText(seen[3]!);
    expect(wide.length).toBeGreaterThan(8000);
    expect(wide.length).toBeLessThanOrEqual(20_000 + "artifact_fetch\n".length);
    expect(wide).not.toContain("[tool output stored off the prompt:");
    // request 5: an uppercase handle is a clear tool error
    expect(lastToolText(seen[4]!)).toMatch(/lowercase/);
    // request 6: an error result passes through untouched
    expect(lastToolText(seen[5]!)).toMatch(/No such file/);

    // nothing of the secret anywhere: artifacts on disk, or any request
    const artifacts = files(join(s.stateDir, "context", "artifacts"));
    expect(artifacts.some((f) => f.endsWith(".txt"))).toBe(true);
    for (const f of artifacts) {
      expect(readFileSync(f, "utf8")).not.toContain(SECRET);
      expect(statSync(f).mode & 0o777).toBe(0o600);
    }
    for (const c of seen) for (const t of requestTexts(c)) expect(t).not.toContain(SECRET);
    // the session persists the replacement, not the payload
    const persisted = session.sessionManager.getEntries().filter((e) => e.type === "message" && e.message.role === "toolResult");
    expect(JSON.stringify(persisted[0])).toContain(handle);
    expect(JSON.stringify(persisted[0])).not.toContain("00750 NEEDLE");
  });

  it("offload: false leaves results whole and registers no fetch tool", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { offload: false }, tools: TOOLS });
    writeFileSync(join(s.cwd, "build.log"), bigLog());
    const seen: Context[] = [];
    s.agent.onChat((c) => seen.push(structuredClone({ messages: c.messages, tools: c.tools?.map((t) => ({ name: t.name })) }) as Context));
    s.agent.queue(reply.tools(["bash", { command: "cat build.log" }]), reply.text("ok"));
    const session = await s.open();
    await s.prompt(session, "show me");
    expect(seen[0]!.tools!.map((t) => t.name)).not.toContain("artifact_fetch");
    expect(lastToolText(seen[1]!)).toContain("00750 NEEDLE");
  });

  it("the compaction checkpoint records the handle of a stashed read of an edited file; the restore block points at it; gc keeps it", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { offload: true }, tools: TOOLS });
    const big = Array.from({ length: 600 }, (_, i) => `export const v${i} = ${i};`).join("\n");
    writeFileSync(join(s.cwd, "table.ts"), big);
    const seen: Context[] = [];
    s.agent.onChat((c) => seen.push(structuredClone({ messages: c.messages }) as Context));
    s.agent.queue(
      reply.tools(["read", { path: "table.ts" }]),
      reply.tools(["edit", { path: "table.ts", oldText: "export const v0 = 0;", newText: "export const v0 = 42;" }]),
      reply.text("Edited."),
    );
    const session = await s.open();
    await s.prompt(session, "set v0 to 42");
    const handle = HANDLE_RE.exec(lastToolText(seen[1]!))?.[0];
    expect(handle).toBeDefined();
    await session.compact();
    const cp = readCheckpointsOnDisk(s.stateDir, `pi:${resolve(s.cwd)}`).at(-1)!;
    expect(cp.meta.trigger).toBe("compaction");
    expect(cp.artifacts).toEqual([{ handle, tool: "read", target: "table.ts", bytes: big.length }]);
    s.agent.queue(reply.text("ok"));
    await s.prompt(session, "continue");
    const restore = requestTexts(seen.at(-1)!).find((t) => t.includes("Stored outputs (read with artifact_fetch):"));
    expect(restore).toBeDefined();
    expect(restore).toContain(`- "read table.ts (`);
    expect(restore).toContain(handle!);
    const gc = await gcArtifacts(s.stateDir, { minAgeSeconds: 0 });
    expect(gc.removed).toEqual([]);
    expect(gc.keptBecause.checkpoint).toBe(1);
  });

  it("two partial reads of one file: the checkpoint and the restore block name each one's lines", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { offload: true }, tools: TOOLS });
    const big = Array.from({ length: 1200 }, (_, i) => `export const value${i} = computeTheValueOfEntry(${i}, "padding text");`).join("\n");
    writeFileSync(join(s.cwd, "table.ts"), big);
    const seen: Context[] = [];
    s.agent.onChat((c) => seen.push(structuredClone({ messages: c.messages }) as Context));
    s.agent.queue(
      reply.tools(["read", { path: "table.ts", offset: 1, limit: 400 }]),
      reply.tools(["read", { path: "table.ts", offset: 401, limit: 400 }]),
      reply.tools(["edit", { path: "table.ts", oldText: "export const value0 =", newText: "export const valueZero =" }]),
      reply.text("Edited."),
    );
    const session = await s.open();
    await s.prompt(session, "rename value0");
    await session.compact();
    const cp = readCheckpointsOnDisk(s.stateDir, `pi:${resolve(s.cwd)}`).at(-1)!;
    expect(cp.artifacts?.map((a) => [a.target, a.lines])).toEqual([
      ["table.ts", "401-800"],
      ["table.ts", "1-400"],
    ]);
    s.agent.queue(reply.text("ok"));
    await s.prompt(session, "continue");
    const restore = requestTexts(seen.at(-1)!).find((t) => t.includes("Stored outputs (read with artifact_fetch):"));
    expect(restore).toContain(`- "read table.ts lines 401-800 (`);
    expect(restore).toContain(`- "read table.ts lines 1-400 (`);
  });
});
