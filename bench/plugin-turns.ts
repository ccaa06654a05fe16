/**
 * The OpenClaw plugin as OpenClaw 2026.9 drives it (measured on a real gateway,
 * docs/openclaw-integration.md "Durable turns"): for every turn of a real transcript a NEW engine
 * instance (the factory runs per logical turn), `assemble` with the history before the turn and
 * the turn's prompt apart (what the model waits on), then `commitTurn` with the turn (after the
 * reply; the host waits on it before the next turn). Two modes: all turns in one process (the
 * gateway: the plugin's slots outlive the instances) and every turn in a process of its own
 * (the CLI's `--local`: the key's state and latest checkpoint are read from disk each turn).
 *
 * `npx tsx bench/plugin-turns.ts` (writes bench/plugin-turns-results.json).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { userText } from "../src/agents/messages/read.js";
import { latencyStats } from "../src/replay/stats.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";
import { pluginEngine } from "./plugin-harness.js";

const TRANSCRIPTS = TRANSCRIPTS_DIR;
const NAMES = ["badlogic__pi-mono__before-compaction", "badlogic__pi-mono__large-session", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04"];
const round = (v: number) => Math.round(v * 100) / 100;

/** Turns: each starts at a user message with text (what OpenClaw admits as the turn's prompt). */
function turnsOf(messages: readonly AgentMessage[]): Array<{ start: number; end: number }> {
  const starts = messages.flatMap((m, i) => (m.role === "user" && userText(m) ? [i] : []));
  return starts.map((start, k) => ({ start, end: k + 1 < starts.length ? starts[k + 1]! : messages.length }));
}

/** A new process's view: the context manager's process-wide singletons forgotten. */
function forgetProcessState(): void {
  const g = globalThis as unknown as Record<symbol, unknown>;
  for (const sym of Object.getOwnPropertySymbols(g)) if (sym.description?.startsWith("openclaw.contextManager.")) delete g[sym];
}

const rows: Array<Record<string, unknown>> = [];
const load = [loadavg()[0]];
for (const [mode, perProcess] of [["gateway (one process)", false], ["process per turn (openclaw agent --local)", true]] as const)
for (const name of NAMES) {
  let messages: AgentMessage[];
  try {
    messages = JSON.parse(readFileSync(join(TRANSCRIPTS, `${name}.json`), "utf8")) as AgentMessage[];
  } catch {
    console.log(`${name}: not found, skipped`);
    continue;
  }
  const stateDir = mkdtempSync(join(tmpdir(), "cm-bench-turns-"));
  const key = `agent:main:bench:${name.slice(0, 20)}`;
  const assemble: number[] = [];
  const commit: number[] = [];
  const turns = turnsOf(messages);
  try {
    for (const [k, t] of turns.entries()) {
      if (perProcess) forgetProcessState();
      const engine = pluginEngine(stateDir);
      const before = messages.slice(0, t.start);
      const prompt = userText(messages[t.start]!);
      let t0 = performance.now();
      await engine.assemble({ sessionId: "s1", sessionKey: key, messages: before, tokenBudget: 150_000, prompt });
      assemble.push(performance.now() - t0);
      t0 = performance.now();
      await engine.commitTurn({
        advancementKey: `turn-${k}`,
        sessionId: "s1",
        sessionKey: key,
        messages: messages.slice(t.start, t.end),
        runtimeContext: { modelContextWindow: 200_000, tokenBudget: 200_000 },
      });
      commit.push(performance.now() - t0);
      await engine.dispose();
    }
    const a = latencyStats(assemble);
    const c = latencyStats(commit);
    const row = {
      mode,
      transcript: name,
      messages: messages.length,
      turns: turns.length,
      assembleMs: { median: round(a.median), p99: round(a.p99), max: round(a.max) },
      commitTurnMs: { median: round(c.median), p99: round(c.p99), max: round(c.max) },
      lastTurnAssembleMs: round(assemble.at(-1) ?? 0),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}
load.push(loadavg()[0]);
writeFileSync(
  resolve(import.meta.dirname, "plugin-turns-results.json"),
  `${JSON.stringify({ at: new Date().toISOString(), node: process.version, loadavg: load.map((l) => round(l ?? 0)), rows }, null, 2)}\n`,
);
