/**
 * Issue 13's figures, measured in one run of `npm run bench` (bench/results.json `writePath`):
 * - floor: open + write + fsync + close + rename + directory fsync of the checkpoint's bytes;
 * - autoCheckpointCall: the `context` call that crosses 80% and starts a checkpoint (the write
 *   itself is awaited after the timed call, as the LLM turn would separate them);
 * - firstCall: the first `context` call of a new engine after a restart whose state files are
 *   gone (no saved cursor), 20,000 messages in the session, its latest checkpoint on disk;
 * - list / status: the CLI in process over 1,000 session keys (one checkpoint each) and over
 *   1,000 checkpoints of one key.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ContextUsage } from "@mariozechner/pi-coding-agent";
import { CheckpointWriter } from "../src/agents/checkpoint/writer.js";
import { resolveContextManagerConfig } from "../src/agents/config/context-manager-config.js";
import { stateSessionDir } from "../src/infra/session-dir.js";
import { ContextManagerEngine } from "../src/agents/engine/context-manager-engine.js";
import { runCli } from "../src/cli/main.js";
import { latencyStats } from "../src/replay/stats.js";
import { MessageFactory } from "./messages.js";
import { timeIt } from "./timer.js";

const config = resolveContextManagerConfig({});
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "cm-bench-wp-"));
  dirs.push(d);
  return d;
};
export function cleanupWritePath(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** One durable publish of `data` as `name` in `dir`: open + write + fsync + close + rename + directory fsync. */
async function floorOnce(dir: string, data: string, name: string): Promise<void> {
  const tmp = join(dir, `.${name}.tmp`);
  const fh = await open(tmp, "w", 0o600);
  await fh.writeFile(data);
  await fh.sync();
  await fh.close();
  await rename(tmp, join(dir, "floor-probe.yaml"));
  const d = await open(dir, "r");
  await d.sync();
  await d.close();
}

/** open + write + fsync + close + rename + directory fsync of `data` (what a durable publish cannot avoid). */
export async function durableFloor(dir: string, data: string, iterations = 300) {
  return latencyStats(await timeIt(iterations, 30, (i) => floorOnce(dir, data, `floor-probe.${i}`)));
}

/**
 * The write and the floor taken in turns, one of each per iteration: on a shared machine both
 * see the same moment's load, so their ratio moves less than that of two separate series.
 */
export async function interleavedWriteAndFloor(dir: string, data: string, write: (i: number) => Promise<unknown>, iterations = 300, warmup = 30) {
  const w: number[] = [];
  const f: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const a = performance.now();
    await write(i);
    const b = performance.now();
    await floorOnce(dir, data, `floor-turn.${i}`);
    const c = performance.now();
    if (i >= warmup) {
      w.push(b - a);
      f.push(c - b);
    }
  }
  const write_ = latencyStats(w);
  const floor = latencyStats(f);
  return { write: write_, floor, writeOverFloor: Math.round((write_.median / floor.median) * 100) / 100 };
}

function engineAt(stateDir: string, window: number, tag: string): ContextManagerEngine {
  return new ContextManagerEngine(
    { sessionKey: `agent:main:bench:${tag}`, contextWindowTokens: window, stateDir, config, agentId: "main", channel: "bench", hostInjectsRestore: true, logger: { warn: () => undefined } },
    { sessionId: `bench-${tag}`, sessionFile: null, compactionsSoFar: 0 },
  );
}

/** The context call that triggers an 80% checkpoint, `n` messages of history, 1–3 new per call. */
export async function autoCheckpointCall(source: readonly AgentMessage[], n = 2_000, iterations = 120) {
  const WINDOW = 1_000_000_000;
  const engine = engineAt(tempDir(), WINDOW, "auto");
  const factory = new MessageFactory(source);
  const history = factory.take(n);
  let tokens = 100_000;
  const usage = (): ContextUsage => ({ tokens, contextWindow: WINDOW, percent: 85 });
  await engine.onContext(history.slice(), { tokens: 1000, contextWindow: WINDOW, percent: 1 });
  const times: number[] = [];
  const writes: number[] = [];
  let written = 0;
  for (let i = 0; i < 10 + iterations; i++) {
    history.push(...factory.take(1 + (i % 3)));
    tokens = Math.round(tokens * 1.1); // past the 5% dedup each time
    const view = history.slice();
    const t0 = performance.now();
    const d = await engine.onContext(view, usage());
    const t1 = performance.now();
    if (!d.checkpointWrite) throw new Error("bench: the 80% call did not start a checkpoint");
    const cp = await d.checkpointWrite;
    const t2 = performance.now();
    if (cp) written++;
    if (i >= 10) {
      times.push(t1 - t0);
      writes.push(t2 - t1);
    }
    if (tokens > 1e12) tokens = 100_000;
  }
  await engine.flushNow();
  return { messages: n, call: latencyStats(times), backgroundWrite: latencyStats(writes), checkpointsWritten: written };
}

/** First context call after a restart with no saved cursor: 20,000 messages, a checkpoint near the end. */
export async function firstCallAfterRestart(source: readonly AgentMessage[], n = 20_000, runs = 5) {
  const out: number[] = [];
  for (let r = 0; r < runs; r++) {
    const stateDir = tempDir();
    const factory = new MessageFactory(source);
    const history = factory.take(n);
    const a = engineAt(stateDir, 1_000_000_000, "restart");
    await a.onContext(history.slice(), { tokens: 1000, contextWindow: 1_000_000_000, percent: 1 });
    const d = await a.onContext([...history, ...factory.take(2)], { tokens: 850_000_000, contextWindow: 1_000_000_000, percent: 85 });
    await d.checkpointWrite;
    await a.flushNow();
    history.push(...factory.take(2), ...factory.take(3));
    rmSync(stateSessionDir(stateDir, "agent:main:bench:restart"), { recursive: true, force: true }); // no saved cursor
    const b = engineAt(stateDir, 1_000_000_000, "restart");
    const view = history.slice();
    const t0 = performance.now();
    await b.onContext(view, { tokens: 1000, contextWindow: 1_000_000_000, percent: 1 });
    out.push(performance.now() - t0);
  }
  return { messages: n, ...latencyStats(out) };
}

const quiet = { line: () => undefined, json: () => undefined, warn: (t: string) => process.stderr.write(`cli: ${t}\n`) };

async function timeCli(args: string[], runs = 3) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const code = await runCli(args, quiet);
    times.push(performance.now() - t0);
    if (code !== 0) throw new Error(`bench: ${args.join(" ")} exited ${code}`);
  }
  return latencyStats(times);
}

/** `list` and `status` in process over 1,000 keys (one checkpoint each) and 1,000 checkpoints of one key. */
export async function cliScale(draftFor: (key: string, i: number) => import("../src/agents/checkpoint/schema.js").CheckpointDraft) {
  const keysDir = tempDir();
  for (let i = 0; i < 1_000; i++) {
    const key = `agent:main:bench:k${i}`;
    await new CheckpointWriter({ stateDir: keysDir }, key).write(draftFor(key, i));
  }
  const oneDir = tempDir();
  const key = "agent:main:bench:one";
  const w = new CheckpointWriter({ stateDir: oneDir, retention: 10_000 }, key);
  for (let i = 0; i < 1_000; i++) await w.write(draftFor(key, i));
  // the first run pays module loading; the medians are of warm runs in this process
  await runCli(["list", "--state-dir", keysDir, "--json"], quiet);
  await runCli(["status", "--state-dir", keysDir, "--json"], quiet);
  return {
    list1000Keys: await timeCli(["list", "--state-dir", keysDir, "--json"]),
    status1000Keys: await timeCli(["status", "--state-dir", keysDir, "--json"]),
    list1000CheckpointsOneKey: await timeCli(["list", "--state-dir", oneDir, "--session-key", key, "--json"]),
    status1000CheckpointsOneKey: await timeCli(["status", "--state-dir", oneDir, "--session-key", key, "--json"]),
  };
}
