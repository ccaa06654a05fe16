/**
 * Artifact timings (issue 15, docs/artifacts.md): the tool_result patch for a 50 KB output
 * (redact + sha256 + blob and meta written + refs line + preview: `offloadToolResult`, the
 * whole path the agent waits on) and bounded fetches from a 50 KB artifact (read + verify
 * sha256 + select). Targets: stash + patch <= 2 ms median, fetch <= 5 ms.
 *
 * Part of `npm run bench` (key `artifacts` in bench/results.json); alone:
 * `npx tsx bench/artifacts.ts` (writes bench/artifacts-results.json).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { offloadToolResult } from "../src/agents/artifacts/offload.js";
import { selectFromArtifact } from "../src/agents/artifacts/select.js";
import { readArtifact, stashArtifact } from "../src/agents/artifacts/store.js";
import { resolveContextManagerConfig } from "../src/agents/config/context-manager-config.js";
import { offloadSettings } from "../src/agents/artifacts/offload.js";
import { latencyStats } from "../src/replay/stats.js";
import { timeIt } from "./timer.js";
import { AgedOffload } from "../src/agents/artifacts/aged-offload.js";
import type { AgentMessage } from "@mariozechner/pi-agent-core";

const ITERATIONS = 300;
const WARMUP = 30;
const SIZE = 50 * 1024;

/** ~50 KB of test-runner-like output, unique per i (a fresh artifact every iteration) */
function output(i: number): string {
  const lines: string[] = [`run ${i}`];
  let n = 0;
  while (lines.join("\n").length < SIZE) {
    lines.push(`  ✓ test/suite${n % 40}/case-${n}.test.ts > handles input ${n} (${(n * 7) % 113} ms)`);
    n++;
  }
  return lines.join("\n").slice(0, SIZE);
}

export async function benchArtifacts() {
  const load0 = Math.round(loadavg()[0]! * 10) / 10;
  const dir = mkdtempSync(join(tmpdir(), "cm-bench-art-"));
  try {
    const settings = offloadSettings(resolveContextManagerConfig({ offload: true }));
    const inputs = Array.from({ length: ITERATIONS + WARMUP }, (_, i) => output(i));
    const stash = latencyStats(
      await timeIt(ITERATIONS, WARMUP, (i) => {
        const out = offloadToolResult({ toolName: "bash", toolCallId: `c${i}`, content: [{ type: "text", text: inputs[i]! }], isError: false }, { stateDir: dir, sessionKey: "bench" }, settings);
        if (!out) throw new Error("not stashed");
      }),
    );
    const same = inputs[0]!;
    const restash = latencyStats(
      await timeIt(ITERATIONS, WARMUP, () =>
        offloadToolResult({ toolName: "bash", content: [{ type: "text", text: same }], isError: false }, { stateDir: dir, sessionKey: "bench" }, settings),
      ),
    );
    const { receipt } = stashArtifact(dir, { text: same });
    const json = JSON.stringify({ items: Array.from({ length: 600 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ["a", "b"] })) });
    const jsonReceipt = stashArtifact(dir, { text: json }).receipt;
    const fetch = (sel: Parameters<typeof selectFromArtifact>[2], h = receipt.handle) =>
      timeIt(ITERATIONS, WARMUP, () => selectFromArtifact(h, readArtifact(dir, h), sel));
    return {
      loadAverage1m: [load0, Math.round(loadavg()[0]! * 10) / 10],
      method: `${ITERATIONS} iterations after ${WARMUP} warmups, ${SIZE} bytes of test-runner output; stash = offloadToolResult (redact, sha256, blob + meta + refs written, preview), a new payload every iteration`,
      targets: { stashPatchMedianMs: 2, fetchMedianMs: 5 },
      stashPatch50KB: stash,
      stashPatch50KBAlreadyStored: restash,
      fetchHeadtail50KB: latencyStats(await fetch({})),
      fetchGrep50KB: latencyStats(await fetch({ pattern: "case-7\\d\\d\\.", context: 2 })),
      fetchRange50KB: latencyStats(await fetch({ startLine: 200, endLine: 260 })),
      fetchJsonPath: latencyStats(await fetch({ path: "items[420].name" }, jsonReceipt.handle)),
      jsonBytes: json.length,
      ...(await benchAged(dir)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Aged offload: register (tool_result time: judge + stash + preview of a 4 KB result) and
 * apply (the context handler: swap aged results in a 600-message array, 200 of them aged).
 */
async function benchAged(dir: string) {
  const settings = offloadSettings(resolveContextManagerConfig({ offload: true }));
  const mid = (i: number) => Array.from({ length: 100 }, (_, n) => `src/file${i}-${n}.ts:${n}: const value${n} = compute(${n});`).join("\n");
  const aged = new AgedOffload(settings, { stateDir: dir, sessionKey: "bench-aged" });
  const inputs = Array.from({ length: ITERATIONS + WARMUP }, (_, i) => mid(i));
  const register = latencyStats(
    await timeIt(ITERATIONS, WARMUP, (i) => aged.register({ toolName: "bash", toolCallId: `m${i}`, content: [{ type: "text", text: inputs[i]! }], isError: false })),
  );
  // a succeeded write's ~5 KB content (aged call arguments)
  const registerCall = latencyStats(
    await timeIt(ITERATIONS, WARMUP, (i) =>
      aged.registerCall({ toolName: "write", toolCallId: `w${i}`, input: { path: `src/w${i}.ts`, content: inputs[i]! }, content: [{ type: "text", text: "ok" }], isError: false }),
    ),
  );
  // 200 bash rounds, 200 write rounds, 200 user notes: 1,000 messages
  const messages: AgentMessage[] = [];
  for (let i = 0; i < 200; i++) {
    messages.push({ role: "assistant", content: [{ type: "toolCall", id: `m${i}`, name: "bash", arguments: {} }], timestamp: i } as unknown as AgentMessage);
    messages.push({ role: "toolResult", toolCallId: `m${i}`, toolName: "bash", content: [{ type: "text", text: inputs[i]! }], isError: false, timestamp: i } as AgentMessage);
    messages.push({ role: "assistant", content: [{ type: "toolCall", id: `w${i}`, name: "write", arguments: { path: `src/w${i}.ts`, content: inputs[i]! } }], timestamp: i } as unknown as AgentMessage);
    messages.push({ role: "toolResult", toolCallId: `w${i}`, toolName: "write", content: [{ type: "text", text: "ok" }], isError: false, timestamp: i } as AgentMessage);
    messages.push({ role: "user", content: `note ${i}`, timestamp: i } as AgentMessage);
  }
  aged.apply(messages); // first call ages them (later calls only swap)
  const apply = latencyStats(await timeIt(ITERATIONS, WARMUP, () => aged.apply(messages)));
  return {
    agedRegister4KB: register,
    agedRegisterCall4KB: registerCall,
    agedApply600Messages: apply,
    agedCount: aged.stats.aged,
    agedCalls: aged.stats.argsAged,
    agedMethod:
      "register = AgedOffload.register of a ~5 KB bash result (judge, redact, sha256, blob + meta + refs, preview); registerCall = the same for a write's ~5 KB content; apply = the context handler's swap over 1,000 messages (200 bash rounds with ~196 aged results, 200 write rounds with ~196 aged calls, 200 user notes)",
  };
}

const invoked = process.argv[1] ? resolve(process.argv[1]) : "";
if (invoked === resolve(import.meta.dirname, "artifacts.ts")) {
  benchArtifacts()
    .then((r) => {
      writeFileSync(join(import.meta.dirname, "artifacts-results.json"), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...r }, null, 1)}\n`);
      process.stderr.write(
        `artifacts: stash+patch 50 KB ${r.stashPatch50KB.median} ms (p99 ${r.stashPatch50KB.p99}), already stored ${r.stashPatch50KBAlreadyStored.median} ms; ` +
          `fetch headtail ${r.fetchHeadtail50KB.median} ms, grep ${r.fetchGrep50KB.median} ms, range ${r.fetchRange50KB.median} ms, json ${r.fetchJsonPath.median} ms; aged register ${r.agedRegister4KB.median} ms, call ${r.agedRegisterCall4KB.median} ms, apply (1,000 msgs) ${r.agedApply600Messages.median} ms\n`,
      );
    })
    .catch((e) => {
      process.stderr.write(`bench artifacts failed: ${(e as Error).stack ?? e}\n`);
      process.exitCode = 1;
    });
}
