/**
 * OpenClaw's runner builds a new AgentSession (hence a new context-manager engine) for every
 * inbound message. Aged offload must survive that: the FIRST request of the next run carries
 * the same aged text as the last request of the previous one (no flip-flop back to the whole
 * output, which broke provider caches and inflated the usage the gauge and pi's compaction read).
 * Host stand-in (AgentRunner), faux provider, real read tool on a temp workspace.
 */
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { makeHost, reply, requestTexts, type Host } from "../helpers/host.js";

const MARKER = "[tool output stored off the prompt:";
const KEY = "agent:main:test:direct:1";
const doc = (n: number) => `${Array.from({ length: 60 }, (_, i) => `doc ${n} line ${i}: the parser keeps its state in plain objects`).join("\n")}\n`;
const toolTexts = (c: Context) => requestTexts({ ...c, messages: c.messages.filter((m) => m.role === "toolResult") });

describe("aged offload across runs of one session key", () => {
  let host: Host;
  afterEach(() => host?.cleanup());

  it("the first request of a new run already shows what the last run aged, byte-identical", async () => {
    host = await makeHost({ contextWindow: 200_000, contextManager: { offload: true, offloadAgeTurns: 2 } });
    for (let n = 1; n <= 4; n++) host.write(`doc${n}.md`, doc(n));
    const seen: Context[] = [];
    host.agent.onChat((c) => seen.push(structuredClone({ messages: c.messages }) as Context));
    for (let n = 1; n <= 4; n++) {
      host.agent.queue(reply.tools(["read", { path: `doc${n}.md` }]), reply.text(`doc ${n} read`));
      await host.runner.handleInbound(KEY, `read doc${n}.md`);
    }
    const lastOfRun = toolTexts(seen.at(-1)!);
    expect(lastOfRun[0]!.startsWith(MARKER)).toBe(true);
    host.agent.queue(reply.text("ok"));
    await host.runner.handleInbound(KEY, "and now?");
    const firstOfNext = toolTexts(seen.at(-1)!);
    expect(firstOfNext[0]).toBe(lastOfRun[0]);
    expect(firstOfNext[1]).toBe(lastOfRun[1]);
  });
});
