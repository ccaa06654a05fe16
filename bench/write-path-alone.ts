/**
 * The write path of `npm run bench` alone: its `checkpointBench` loop (build + write of the same
 * realistic checkpoint, 300 timed writes after 30), the durable-write floor, then both in turns;
 * the process CPU per write and per floor publish. `ROOT=<checkout>` runs another checkout's code
 * (its src/ and bench/) with this driver, to alternate two versions under the same load.
 *
 * `npx tsx bench/write-path-alone.ts` (N=<writes>, default 300) prints one JSON line.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
const ROOT = process.env.ROOT ?? join(import.meta.dirname, "..");
const M = (p: string) => import(join(ROOT, p));
const { buildCheckpointDraft } = await M("src/agents/state/checkpoint-build.ts");
const { CheckpointWriter } = await M("src/store.ts");
const { resolveContextManagerConfig } = await M("src/agents/config/context-manager-config.ts");
const { ContextState } = await M("src/agents/state/context-state.ts");
const { loadSourceMessages, MessageFactory } = await M("bench/messages.ts");
const { durableFloor } = await M("bench/write-path.ts");
const { latencyStats } = await M("src/replay/stats.ts");
const config = resolveContextManagerConfig({});
const logger = { warn: () => undefined };
const stateDir = mkdtempSync(join(tmpdir(), "cm-wp-"));
const { messages: source } = loadSourceMessages(ROOT);
const state = await ContextState.load({ stateDir, sessionKey: "agent:main:bench:cp", sessionId: "bench-cp", config, logger });
const calls = new Map();
const cwd = "/work/project";
for (const m of source) {
  if (m.role === "assistant") for (const b of m.content) if (b.type === "toolCall") calls.set(b.id, b);
  if (m.role === "toolResult") {
    const call = calls.get(m.toolCallId);
    state.captureToolResult({ toolName: m.toolName, toolCallId: m.toolCallId, input: call?.arguments ?? {}, content: m.content, isError: m.isError }, cwd);
  }
}
state.captureMessages(new MessageFactory(source).take(source.length));
const snapshot = state.snapshot();
const writer = new CheckpointWriter({ stateDir, retention: config.retention }, "agent:main:bench:cp");
const runtime = { sessionKey: "agent:main:bench:cp", sessionId: "bench-cp", sessionFile: null, agentId: "main", channel: "bench" };
const reading = { tokens: 160_000, contextWindow: 200_000, utilization: 0.8, source: "sdk" };
let previous: unknown = null;
let lastPath = "";
const build: number[] = [];
const total: number[] = [];
const N = Number(process.env.N ?? 300);
const load0 = loadavg()[0];
let cpu0 = process.cpuUsage();
for (let i = 0; i < 30 + N; i++) {
  if (i === 30) cpu0 = process.cpuUsage();
  const a = performance.now();
  const draft: unknown = buildCheckpointDraft({ state: snapshot, previous, trigger: "compaction", reading, identity: runtime, compactionCount: i + 1, config, cwd });
  const b = performance.now();
  const result: { checkpoint: unknown; path: string } = await writer.write(draft);
  const c = performance.now();
  previous = result.checkpoint;
  lastPath = result.path;
  if (i >= 30) {
    build.push(b - a);
    total.push(c - a);
  }
}
const cpu = process.cpuUsage(cpu0);
const cpuPerWrite = Math.round((cpu.user + cpu.system) / N) / 1000;
const yaml = readFileSync(lastPath, "utf8");
const c1 = process.cpuUsage();
const floor = await durableFloor(stateDir, yaml);
const cf = process.cpuUsage(c1);
const cpuPerFloor = Math.round((cf.user + cf.system) / 330) / 1000;
// in turns: one write, one floor publish, at the same moment's load
const { open, rename } = await import("node:fs/promises");
const iw: number[] = [];
const ifl: number[] = [];
for (let i = 0; i < 30 + N; i++) {
  const a = performance.now();
  const draft: unknown = buildCheckpointDraft({ state: snapshot, previous, trigger: "compaction", reading, identity: runtime, compactionCount: 1000 + i, config, cwd });
  const result: { checkpoint: unknown; path: string } = await writer.write(draft);
  previous = result.checkpoint;
  const b = performance.now();
  const tmp = join(stateDir, `.fp.${i}.tmp`);
  const fh = await open(tmp, "w", 0o600);
  await fh.writeFile(yaml);
  await fh.sync();
  await fh.close();
  await rename(tmp, join(stateDir, "fp.yaml"));
  const d = await open(stateDir, "r");
  await d.sync();
  await d.close();
  const c = performance.now();
  if (i >= 30) {
    iw.push(b - a);
    ifl.push(c - b);
  }
}
const iws = latencyStats(iw);
const ifs = latencyStats(ifl);
const w = latencyStats(total);
const bo = latencyStats(build);
console.log(JSON.stringify({ root: ROOT, chars: yaml.length, write: w.median, build: bo.median, floor: floor.median, ratio: Math.round(w.median / floor.median * 100) / 100, cpuMsPerWrite: cpuPerWrite, cpuMsPerFloor: cpuPerFloor, interleaved: { write: iws.median, floor: ifs.median, ratio: Math.round(iws.median / ifs.median * 100) / 100 }, load: [load0, loadavg()[0]].map((x) => Math.round((x ?? 0) * 100) / 100) }));
rmSync(stateDir, { recursive: true, force: true });
