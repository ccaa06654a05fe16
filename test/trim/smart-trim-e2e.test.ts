/**
 * Smart trim through the real host (AgentRunner + compaction-safeguard + context manager on
 * pi's `context` event) on the faux model: a session that compacts with smart trim off does
 * not with it on; every request the provider gets keeps tool calls and results paired; the
 * session file keeps everything; a trimmed file read is found by context_search afterwards.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { Context } from "@mariozechner/pi-ai";
import { type Host, makeHost, reply } from "../helpers/host.js";
import { orphansOf } from "../../src/replay/orphans.js";
import { TRIM_MARKER_TEXT } from "../../src/agents/trim/smart-trim.js";
import type { AgentMessage } from "@mariozechner/pi-agent-core";

const KEY = "agent:main:telegram:dm:trim";

function fileBody(name: string, marker: string): string {
  const lines = [`export function ${marker}() { return "${name}"; }`];
  for (let i = 0; lines.join("\n").length < 7_000; i++) lines.push(`export const ${name.replace(/\W/g, "_")}_${i} = ${i}; // filler line of the module`);
  return lines.join("\n");
}

/** 10 turns, each reading a 7,000-char file: ~18k tokens of history against a 16k window. */
async function longSession(host: Host): Promise<Array<{ compactions: unknown[]; sessionFile?: string }>> {
  const reports = [];
  for (let i = 0; i < 10; i++) {
    const name = `module${i}.ts`;
    host.write(name, fileBody(name, i === 0 ? "reconcileLedgerDrift" : `helper${i}Thing`));
    host.agent.queue(reply.tools(["read", { path: name }]), reply.text(`Read ${name}.`));
    reports.push(await host.runner.handleInbound(KEY, `Please read ${name} and summarize it`));
  }
  return reports;
}

const textOf = (c: Context) => JSON.stringify(c.messages);

describe("smart trim (real host, faux model)", () => {
  let host: Host;
  afterEach(() => host?.cleanup());

  it("off: the long session compacts", async () => {
    host = await makeHost({ contextManager: { smartTrim: false, offload: false } });
    const reports = await longSession(host);
    expect(reports.reduce((n, r) => n + r.compactions.length, 0)).toBeGreaterThan(0);
  });

  it("on: no compaction, no orphaned tool call, the session file keeps everything, context_search finds what was trimmed", async () => {
    host = await makeHost({ contextManager: { smartTrim: true, smartTrimReserveTokens: 2_000, offload: false } });
    const reports = await longSession(host);
    expect(reports.reduce((n, r) => n + r.compactions.length, 0)).toBe(0);
    const requests = host.agent.chatRequests;
    // trimmed: the first read left the requests at some point, a marker line took its place
    const trimmedAt = requests.findIndex((c) => !textOf(c).includes("reconcileLedgerDrift") && textOf(c).includes(TRIM_MARKER_TEXT));
    expect(trimmedAt).toBeGreaterThan(0);
    // and never came back (sticky)
    for (const c of requests.slice(trimmedAt)) expect(textOf(c)).not.toContain("return \\\"module0.ts\\\"");
    for (const c of requests) expect(orphansOf(c.messages as unknown as AgentMessage[])).toBe(0);
    // in batches: a trim goes down to the low mark, so the requests after it only append (a
    // file body that left a request is a trim; each one rewrites the cached prompt)
    const bodies = requests.map((c) => new Set([...textOf(c).matchAll(/return \\"(module\d+\.ts)\\"/g)].map((m) => m[1])));
    let trims = 0;
    for (let i = 1; i < bodies.length; i++) if ([...bodies[i - 1]!].some((b) => !bodies[i]!.has(b))) trims++;
    expect(trims).toBeGreaterThan(0);
    expect(trims).toBeLessThanOrEqual(2);
    // the first trim took the request from over the limit to under half of it (the low mark is 40% of it)
    const size = (c: Context) => JSON.stringify(c.messages).length;
    const first = bodies.findIndex((b, i) => i > 0 && [...bodies[i - 1]!].some((x) => !b.has(x)));
    expect(size(requests[first]!)).toBeLessThan(0.55 * size(requests[first - 1]!));
    // the session file is untouched by trimming
    const file = reports.at(-1)!.sessionFile!;
    expect(readFileSync(file, "utf8")).toContain("reconcileLedgerDrift");
    // archived off the request path: the next turn's context_search finds it
    host.agent.queue(reply.tools(["context_search", { query: "reconcileLedgerDrift", limit: 3 }]), reply.text("Found it."));
    await host.runner.handleInbound(KEY, "Where was reconcileLedgerDrift defined?");
    const last = host.agent.chatRequests.at(-1)!;
    const result = last.messages.filter((m) => m.role === "toolResult").at(-1) as { content: Array<{ text: string }> };
    const text = result.content.map((c) => c.text).join("");
    expect(text).toContain('read "module0.ts"');
    expect(text).toContain("reconcileLedgerDrift");
  });
});
