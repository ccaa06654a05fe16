/**
 * The context handler's aged swap judges only what is new or newly old (the history grows by
 * appends between compactions); it must send exactly what a full pass sends, after any sequence
 * of rounds, compactions (the history rebuilt shorter) and catch-ups. Two AgedOffload instances
 * get the same events; one is forced to the full pass on every call.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { AgedOffload } from "../../src/agents/artifacts/aged-offload.js";
import { offloadSettings } from "../../src/agents/artifacts/offload.js";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";

const text = (n: number, size: number) => `${Array.from({ length: Math.ceil(size / 40) }, (_, i) => `r${n} line ${i} ${"x".repeat(24)}`).join("\n")}`;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

describe("aged swap: incremental equals full pass", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  // a prompt-cache gate (a pure function of what would age, so both instances decide alike):
  // first agings held back by it are judged again on the next call
  const gate = (f: { earliest: number; count: number }) => (f.earliest + f.count) % 3 !== 0;
  for (const [seed, gated] of [[1, false], [2, false], [3, false], [4, false], [5, false], [6, false], [7, true], [8, true], [9, true], [10, true]] as const) {
    it(`seed ${seed}: 60 steps of rounds, compactions and catch-ups${gated ? ", gated" : ""}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "cm-aged-inc-"));
      dirs.push(dir);
      const settings = offloadSettings(resolveContextManagerConfig({ offload: true, offloadAgeTurns: 2 }));
      const inc = new AgedOffload(settings, { stateDir: dir, sessionKey: "k" });
      const full = new AgedOffload(settings, { stateDir: dir, sessionKey: "k" });
      const r = rng(seed);
      let history: AgentMessage[] = [{ role: "user", content: "go", timestamp: 1 } as AgentMessage];
      let n = 0;
      for (let step = 0; step < 60; step++) {
        const roll = r();
        if (roll < 0.08 && history.length > 8) {
          // a compaction: the history is rebuilt from a summary and a kept tail
          history = [{ role: "user", content: "summary", timestamp: 1000 + step } as AgentMessage, ...history.slice(-5)];
        } else {
          const id = `c${++n}`;
          const isError = r() < 0.15;
          const write = r() < 0.4;
          const args = write ? { path: `f${n}.ts`, content: text(n, 1500 + Math.floor(r() * 3000)) } : { command: `cat ${n}.log` };
          const result = write ? "ok" : text(n, 500 + Math.floor(r() * 4000));
          history = [
            ...history,
            { role: "assistant", content: [{ type: "toolCall", id, name: write ? "write" : "bash", arguments: args }], timestamp: 10 * n } as unknown as AgentMessage,
            { role: "toolResult", toolCallId: id, toolName: write ? "write" : "bash", content: [{ type: "text", text: result }], isError, timestamp: 10 * n + 1 } as AgentMessage,
          ];
          // most results are seen at tool_result time; some only later (the catch-up path)
          if (r() < 0.8) {
            for (const a of [inc, full]) {
              const ev = { toolName: write ? "write" : "bash", toolCallId: id, content: [{ type: "text", text: result }], isError, input: args };
              a.registerCall(ev);
              a.register(ev);
            }
          }
        }
        (full as unknown as { last: unknown }).last = null; // no last pass: the full pass
        const view = structuredClone(history);
        expect(JSON.stringify(inc.apply(structuredClone(history), gated ? gate : undefined))).toBe(JSON.stringify(full.apply(view, gated ? gate : undefined)));
        if (r() < 0.3) await new Promise((res) => setImmediate(res)); // let catch-ups run
      }
      expect(inc.stats.aged + inc.stats.argsAged).toBeGreaterThan(0);
    });
  }
});
