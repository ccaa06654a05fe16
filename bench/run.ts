/**
 * `npm run bench`: microbenchmarks of the context manager's hot paths, written to
 * bench/results.json with machine info.
 *
 * - `context` handler (ContextManagerEngine.onContext) in the steady state: a history
 *   of N messages, each call adds 1–3 new ones (what runs before every LLM call),
 *   utilization below the thresholds (no checkpoint write). Split into capture
 *   (ContextState.captureMessages) and state persistence (ContextState.flush).
 * - pi's own structuredClone of the same history, for scale.
 * - checkpoint build + write (fsync included, retention pruning included).
 * - YAML parse of a checkpoint, restore block render.
 * - the OpenClaw compaction provider's summarize on 1,000 messages (bench/compaction-provider.ts).
 * - a busy gateway (bench/gateway.ts): 200 keys round-robin through the plugin's entry, cold
 *   20,000-segment archives, every key in flight; summary under `gateway`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ContextUsage } from "@mariozechner/pi-coding-agent";
import { buildCheckpointDraft } from "../src/agents/state/checkpoint-build.js";
import { type Checkpoint } from "../src/agents/checkpoint/schema.js";
import { CheckpointWriter } from "../src/agents/checkpoint/writer.js";
import { parseCheckpoint } from "../src/agents/checkpoint/yaml.js";
import { autoCheckpointCall, cleanupWritePath, cliScale, durableFloor, firstCallAfterRestart, interleavedWriteAndFloor } from "./write-path.js";
import { makeBenchDraft } from "./draft.js";
import { renderCheckpointRestore } from "../src/agents/inject/render-restore.js";
import { resolveContextManagerConfig } from "../src/agents/config/context-manager-config.js";
import { agedMessages } from "../src/agents/engine/request.js";
import { ContextState } from "../src/agents/state/context-state.js";
import { ContextManagerEngine } from "../src/agents/engine/context-manager-engine.js";
import { estimateTextTokens } from "../src/agents/text/token-estimate.js";
import { latencyStats, type LatencyStats } from "../src/replay/stats.js";
import { loadSourceMessages, MessageFactory } from "./messages.js";
import { timeIt } from "./timer.js";
import { countingFs, perWrite } from "./counting-fs.js";
import { open } from "node:fs/promises";
import { benchDrift } from "./drift.js";
import { benchArtifacts } from "./artifacts.js";
import { benchGateway } from "./gateway.js";
import { benchCompactionProvider } from "./compaction-provider.js";

const REPO = resolve(import.meta.dirname, "..");
const SIZES = [200, 2_000, 5_000, 20_000];
const HANDLER_ITERATIONS = 400;
const HANDLER_WARMUP = 40;
const WINDOW = 100_000_000; // keeps utilization far below the gauge threshold
const USAGE: ContextUsage = { tokens: 10_000, contextWindow: WINDOW, percent: 0.01 };
const config = resolveContextManagerConfig({});
const logger = { warn: (m: string) => warnings.push(m) };
const warnings: string[] = [];
const dirs: string[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "cm-bench-"));
  dirs.push(d);
  return d;
}

function newEngine(stateDir: string, tag: string): ContextManagerEngine {
  return new ContextManagerEngine(
    { sessionKey: `agent:main:bench:${tag}`, contextWindowTokens: WINDOW, stateDir, config, agentId: "main", channel: "bench", hostInjectsRestore: true, logger },
    { sessionId: `bench-${tag}`, sessionFile: null, compactionsSoFar: 0 },
  );
}

function log(line: string) {
  process.stderr.write(`${line}\n`);
}

/** onContext at N: timed calls each see the history grown by 1–3 messages (a fresh array, like pi's clone). */
async function handlerAt(n: number, source: readonly AgentMessage[]) {
  const factory = new MessageFactory(source);
  const engine = newEngine(tempDir(), `h${n}`);
  const history = factory.take(n);
  const t0 = performance.now();
  // as the pi extension's context handler runs it: aged tool outputs swapped first (offload is on by default)
  await engine.onContext(agedMessages(history.slice(), engine), USAGE);
  const firstCallMs = performance.now() - t0;
  await new Promise((r) => setImmediate(r)); // the first call's catch-up stash (a resumed session) runs off the request path
  const times: number[] = [];
  for (let i = 0; i < HANDLER_WARMUP + HANDLER_ITERATIONS; i++) {
    history.push(...factory.take(1 + (i % 3)));
    const view = history.slice();
    const s = performance.now();
    const d = await engine.onContext(agedMessages(view, engine), USAGE);
    const ms = performance.now() - s;
    if (d.checkpoint) throw new Error("bench: a checkpoint was written; utilization must stay below the threshold");
    if (i >= HANDLER_WARMUP) times.push(ms);
  }

  // the same steady state, split: in-memory capture vs state-file persistence
  const counting = countingFs();
  const state = await ContextState.load({ stateDir: tempDir(), sessionKey: `agent:main:bench:s${n}`, sessionId: `s${n}`, config, logger, fs: counting.fs });
  const f2 = new MessageFactory(source);
  const h2 = f2.take(n);
  state.captureMessages(h2.slice());
  await state.flush();
  const capture: number[] = [];
  const flush: number[] = [];
  for (let i = 0; i < HANDLER_WARMUP + HANDLER_ITERATIONS; i++) {
    if (i === HANDLER_WARMUP) counting.reset();
    h2.push(...f2.take(1 + (i % 3)));
    const view = h2.slice();
    const a = performance.now();
    state.captureMessages(view);
    const b = performance.now();
    await state.flush();
    const c = performance.now();
    if (i >= HANDLER_WARMUP) {
      capture.push(b - a);
      flush.push(c - b);
    }
  }
  return { messages: n, firstCallMs: Math.round(firstCallMs * 1000) / 1000, onContext: latencyStats(times), captureOnly: latencyStats(capture), stateFlushOnly: latencyStats(flush), fsOpsPerCall: perWrite(counting.tally, HANDLER_ITERATIONS) };
}

async function cloneAt(n: number, source: readonly AgentMessage[]) {
  const history = new MessageFactory(source).take(n);
  const iterations = n <= 1_000 ? 100 : n <= 5_000 ? 30 : 10;
  return { messages: n, structuredClone: latencyStats(await timeIt(iterations, 3, () => structuredClone(history))) };
}

/** A state with realistic content: the source transcript captured (Layer A and B). */
async function realisticState(source: readonly AgentMessage[], stateDir: string, cwd: string): Promise<ContextState> {
  const state = await ContextState.load({ stateDir, sessionKey: "agent:main:bench:cp", sessionId: "bench-cp", config, logger });
  const calls = new Map<string, { name: string; arguments: unknown }>();
  for (const m of source) {
    if (m.role === "assistant") for (const b of m.content) if (b.type === "toolCall") calls.set(b.id, b);
    if (m.role === "toolResult") {
      const call = calls.get(m.toolCallId);
      state.captureToolResult({ toolName: m.toolName, toolCallId: m.toolCallId, input: call?.arguments ?? {}, content: m.content, isError: m.isError }, cwd);
    }
  }
  state.captureMessages(new MessageFactory(source).take(source.length));
  return state;
}

async function checkpointBench(source: readonly AgentMessage[]) {
  const stateDir = tempDir();
  const cwd = "/work/project";
  const state = await realisticState(source, stateDir, cwd);
  const snapshot = state.snapshot();
  const counting = countingFs();
  const store = { stateDir, retention: config.retention, fs: counting.fs };
  // one long-lived writer, as an engine keeps one per session
  const writer = new CheckpointWriter(store, "agent:main:bench:cp");
  const runtime = { sessionKey: "agent:main:bench:cp", sessionId: "bench-cp", sessionFile: null, agentId: "main", channel: "bench" };
  const reading = { tokens: 160_000, contextWindow: 200_000, utilization: 0.8, source: "sdk" as const };
  let previous: Checkpoint | null = null;
  let lastPath = "";
  const build: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < 30 + 300; i++) {
    const a = performance.now();
    const draft = buildCheckpointDraft({ state: snapshot, previous, trigger: "compaction", reading, identity: runtime, compactionCount: i + 1, config, cwd });
    const b = performance.now();
    const result = await writer.write(draft);
    const c = performance.now();
    if (!result.written) throw new Error("bench: checkpoint unexpectedly deduplicated");
    previous = result.checkpoint;
    lastPath = result.path;
    if (i === 29) counting.reset();
    if (i >= 30) {
      build.push(b - a);
      total.push(c - a);
    }
  }
  const fsOpsPerWrite = perWrite(counting.tally, total.length);
  const yaml = readFileSync(lastPath, "utf8");
  const interleaved = await interleavedWriteAndFloor(stateDir, yaml, async (i) => {
    const draft = buildCheckpointDraft({ state: snapshot, previous, trigger: "compaction", reading, identity: runtime, compactionCount: 1_000 + i, config, cwd });
    const result = await writer.write(draft);
    if (result.written) previous = result.checkpoint;
  });
  writeFileSync(join(REPO, "bench", "sample-checkpoint.yaml"), yaml);
  const parse = await timeIt(2_000, 200, () => parseCheckpoint(yaml, "cp.yaml"));
  const cp = parseCheckpoint(yaml, "cp.yaml");
  let restoreTokens = 0;
  const render = await timeIt(2_000, 200, () => {
    restoreTokens = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: config.restoreMaxTokens }).tokens;
  });
  return {
    checkpointChars: yaml.length,
    checkpointTokens: estimateTextTokens(yaml),
    buildOnly: latencyStats(build),
    buildAndWrite: latencyStats(total),
    fsOpsPerWrite,
    fsyncBaseline: await fsyncBaseline(stateDir, yaml),
    durableFloor: await durableFloor(stateDir, yaml),
    interleaved,
    yamlParse: latencyStats(parse),
    restoreRender: latencyStats(render),
    restoreTokens,
  };
}

/** The floor on this disk: one open + write + fsync + close of a checkpoint-sized file. */
async function fsyncBaseline(dir: string, data: string): Promise<LatencyStats> {
  const path = join(dir, "fsync-probe.tmp");
  return latencyStats(
    await timeIt(200, 20, async () => {
      const fh = await open(path, "w");
      await fh.writeFile(data);
      await fh.sync();
      await fh.close();
    }),
  );
}

async function main() {
  const started = performance.now();
  const loadBefore = loadavg().map((x) => Math.round(x * 100) / 100);
  const { name, messages: source } = loadSourceMessages(REPO);
  log(`source messages: ${name} (${source.length})`);
  const handler: Array<Awaited<ReturnType<typeof handlerAt>>> = [];
  for (const n of SIZES) {
    const r = await handlerAt(n, source);
    log(`onContext @${n}: median ${r.onContext.median} ms p99 ${r.onContext.p99} ms (capture ${r.captureOnly.median}, flush ${r.stateFlushOnly.median})`);
    handler.push(r);
  }
  const clone = [];
  for (const n of SIZES) {
    const r = await cloneAt(n, source);
    log(`structuredClone @${n}: median ${r.structuredClone.median} ms`);
    clone.push(r);
  }
  const checkpoint = await checkpointBench(source);
  log(`checkpoint build+write: median ${checkpoint.buildAndWrite.median} ms p99 ${checkpoint.buildAndWrite.p99} ms (build ${checkpoint.buildOnly.median}); one fsync'd file write ${checkpoint.fsyncBaseline.median} ms; parse ${checkpoint.yamlParse.median} ms; render ${checkpoint.restoreRender.median} ms`);
  log(`  fs ops per checkpoint write: ${JSON.stringify(checkpoint.fsOpsPerWrite)}`);
  const auto = await autoCheckpointCall(source);
  log(`autoCheckpointCall @${auto.messages}: median ${auto.call.median} ms p99 ${auto.call.p99} ms (background write median ${auto.backgroundWrite.median} ms)`);
  const first = await firstCallAfterRestart(source);
  log(`firstCall after restart (no saved cursor) @${first.messages}: median ${first.median} ms (max ${first.max})`);
  const cli = await cliScale(makeBenchDraft);
  log(`list 1,000 keys ${cli.list1000Keys.median} ms; list 1,000 checkpoints of one key ${cli.list1000CheckpointsOneKey.median} ms; status 1,000 keys ${cli.status1000Keys.median} ms`);
  const byN = (n: number) => handler.find((h) => h.messages === n)?.onContext ?? null;
  const writePath = {
    write: { median: checkpoint.buildAndWrite.median, p99: checkpoint.buildAndWrite.p99, n: checkpoint.buildAndWrite.n },
    floor: { median: checkpoint.durableFloor.median, p99: checkpoint.durableFloor.p99, n: checkpoint.durableFloor.n },
    writeOverFloor: Math.round((checkpoint.buildAndWrite.median / checkpoint.durableFloor.median) * 100) / 100,
    // the same, one write and one floor publish in turns (both at the same moment's load)
    interleaved: { write: checkpoint.interleaved.write.median, floor: checkpoint.interleaved.floor.median, writeOverFloor: checkpoint.interleaved.writeOverFloor },
    handler: { 200: byN(200), 2000: byN(2_000), 5000: byN(5_000), 20000: byN(20_000) },
    autoCheckpointCall: { median: auto.call.median, p99: auto.call.p99, n: auto.call.n, messages: auto.messages, backgroundWrite: auto.backgroundWrite },
    firstCall: { messages: first.messages, median: first.median, max: first.max, n: first.n },
    list: { keys1000: cli.list1000Keys, checkpoints1000OneKey: cli.list1000CheckpointsOneKey },
    status: { keys1000: cli.status1000Keys, checkpoints1000OneKey: cli.status1000CheckpointsOneKey },
    load: { before: loadBefore, after: loadavg().map((x) => Math.round(x * 100) / 100) },
    targets: { writeOverFloorMax: 3, autoCheckpointCallMedianMs: 1, list1000KeysMs: 1000, list1000CheckpointsMs: 100, firstCallAt20000Ms: 20 },
  };
  log(`write median ${writePath.write.median} ms = ${writePath.writeOverFloor}x floor ${writePath.floor.median} ms; in turns ${writePath.interleaved.write} / ${writePath.interleaved.floor} ms = ${writePath.interleaved.writeOverFloor}x; load ${JSON.stringify(writePath.load)}`);
  const drift = await benchDrift();
  log(`drift: record 30 files ${drift.record30Files230Tracked.median} ms, compare ${drift.compareUnchanged30Files.median} ms (unchanged) / ${drift.compareAfterEditsDeleteAnd5Commits.median} ms (moved)`);
  const artifacts = await benchArtifacts();
  log(`artifacts: stash+patch 50 KB ${artifacts.stashPatch50KB.median} ms (p99 ${artifacts.stashPatch50KB.p99}); fetch headtail ${artifacts.fetchHeadtail50KB.median} ms, grep ${artifacts.fetchGrep50KB.median} ms`);
  const compactionProvider = await benchCompactionProvider();
  log(`compaction provider: summarize 1,000 messages median ${compactionProvider.summarize.median} ms, p99 ${compactionProvider.summarize.p99} ms (target 50), loop delay p99 ${compactionProvider.loopDelayP99Ms} ms`);
  const gateway = await benchGateway({}, log);
  log(`gateway: ${JSON.stringify(gateway)}`);
  const cpu = cpus();
  const results = {
    date: new Date().toISOString(),
    machine: { cpu: cpu[0]?.model ?? "unknown", cores: cpu.length, node: process.version, platform: `${platform()} ${release()}`, memoryGiB: Math.round(totalmem() / 2 ** 30), tmpdir: tmpdir() },
    source: { transcript: name, messages: source.length },
    method: {
      handlerIterations: HANDLER_ITERATIONS,
      handlerWarmup: HANDLER_WARMUP,
      note: "steady state: each timed onContext call sees the history grown by 1-3 messages (fresh array); utilization 0.01% (no gauge, no checkpoint)",
    },
    targets: { handlerMedianAt5000Ms: 0.2, checkpointWriteMedianMs: 2, checkpointWriteP99Ms: 5 },
    handler,
    structuredClone: clone,
    writePath,
    checkpoint,
    drift,
    artifacts,
    compactionProvider,
    gateway,
    warnings,
    durationS: Math.round((performance.now() - started) / 100) / 10,
  };
  writeFileSync(join(REPO, "bench", "results.json"), `${JSON.stringify(results, null, 1)}\n`);
  log(`bench/results.json written in ${results.durationS} s`);
}

main()
  .catch((e) => {
    console.error(`bench failed: ${(e as Error).stack ?? e}`);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    cleanupWritePath();
  });

export type { LatencyStats };
