/**
 * The first `assemble` of a session the process has not seen (a restarted gateway) on the
 * OpenClaw plugin route, where the aged-offload memory is warmed on that request
 * (docs/artifacts.md "One memory per session key, across runs"): its time and the prompt it
 * sends, with no artifact on disk yet and with them on disk (the restart case), then the next
 * assemble. The history is a whole real transcript as one context.
 *
 * `npx tsx bench/aged-warm.ts` (writes bench/aged-warm-results.json).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { registerContextManagerPlugin } from "../src/openclaw-plugin/index.js";
import type { ContextEngineShape, PluginApiShape } from "../src/openclaw-plugin/engine-types.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const TRANSCRIPTS = TRANSCRIPTS_DIR;
const NAMES = ["badlogic__pi-mono__before-compaction", "badlogic__pi-mono__large-session"];
const chars = (ms: readonly AgentMessage[]) => JSON.stringify(ms).length;
const round = (v: number) => Math.round(v * 10) / 10;

const rows: Array<Record<string, unknown>> = [];
const load = [loadavg()[0]];
for (const name of NAMES) {
  const messages = JSON.parse(readFileSync(join(TRANSCRIPTS, `${name}.json`), "utf8")) as AgentMessage[];
  const stateDir = mkdtempSync(join(tmpdir(), "cm-bench-warm-"));
  let engine: ContextEngineShape | null = null;
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir, offload: true },
    registerContextEngine: (_id, factory) => {
      engine = factory({}) as ContextEngineShape;
    },
    registerTool: () => undefined,
  };
  registerContextManagerPlugin(api, async () => ({ ok: true, compacted: false }));
  try {
    // each key is a session this process has not seen; k1 finds no artifact on disk, k2 and k3 find them
    for (const [disk, key] of [["none on disk", "k1"], ["on disk (restart)", "k2"], ["on disk (restart)", "k3"]] as const) {
      const params = { sessionId: key, sessionKey: `agent:main:bench:${key}`, messages, tokenBudget: 200_000 };
      const t0 = performance.now();
      const first = await engine!.assemble(params);
      const t1 = performance.now();
      const next = await engine!.assemble(params);
      const t2 = performance.now();
      rows.push({ transcript: name, artifacts: disk, firstAssembleMs: round(t1 - t0), nextAssembleMs: round(t2 - t1), historyChars: chars(messages), firstPromptChars: chars(first.messages), nextPromptChars: chars(next.messages) });
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}
load.push(loadavg()[0]);
const out = { date: new Date().toISOString(), node: process.version, loadAverage1m: { start: load[0], end: load[1] }, rows };
writeFileSync(resolve(import.meta.dirname, "aged-warm-results.json"), `${JSON.stringify(out, null, 1)}\n`);
console.table(rows);
