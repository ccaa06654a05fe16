/**
 * A busy OpenClaw gateway (issue 24): the plugin driven the way the gateway drives it, many chats in
 * one process. Every turn of every key gets a NEW engine instance (OpenClaw 2026.9's factory runs
 * per logical turn): `assemble` with the history before the turn, then `commitTurn` with the turn.
 *
 * - round-robin: KEYS keys take turns one after another (more keys than any cache holds), default
 *   config, 200k window, histories from the real transcripts (usage stripped, so the gauge reads
 *   the history itself, as with a provider that reports none); COLD keys start with an archive of
 *   ARCHIVE_SEGMENTS segments (and its saved index) left by an earlier process; every SEARCH_EVERY
 *   turns the agent of a cold key calls `context_search`.
 * - in flight: every key's turn at once, the model taking MODEL_MS between assemble and commitTurn.
 *
 * Measured: event-loop delay (monitorEventLoopDelay, and stalls over 100 ms by a 10 ms ticker),
 * assemble / commitTurn / search latency, CPU per turn, RSS, and from ground truth computed here
 * (the estimator over the whole history the transcript gives): sessions whose recorded gauge lost
 * their history, and sessions that crossed 80% without an auto-80pct checkpoint.
 *
 * `npx tsx bench/gateway.ts [--keys 200] [--rounds 2] [--cold 4] [--inFlightRounds 1]` writes
 * bench/gateway-results.json; GATEWAY_SLOWEST=<n> also logs the n slowest `assemble` calls;
 * `npm run bench` runs it too and puts its summary under `gateway` in bench/results.json.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { monitorEventLoopDelay, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { registerContextManagerPlugin } from "../src/openclaw-plugin/index.js";
import type { ContextEngineShape, PluginApiShape } from "../src/openclaw-plugin/engine-types.js";
import { PluginSessionFile } from "../src/openclaw-plugin/session-file.js";
import { userText } from "../src/agents/messages/read.js";
import { estimateContextTokens } from "../src/agents/gauge/context-gauge.js";
import { SessionArchive } from "../src/agents/archive/archive.js";
import { archiveDir } from "../src/agents/archive/store.js";
import { segmentsOf } from "../src/agents/archive/segments.js";
import { checkpointSessionDir as checkpointDir } from "../src/infra/session-dir.js";
import { latencyStats } from "../src/replay/stats.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const TRANSCRIPTS = TRANSCRIPTS_DIR;
const NAMES = ["badlogic__pi-mono__before-compaction", "badlogic__pi-mono__large-session", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04"];
const WINDOW = 200_000;
const round1 = (v: number) => Math.round(v * 10) / 10;

export interface GatewayBenchOptions {
  keys: number;
  rounds: number;
  cold: number;
  archiveSegments: number;
  searchEvery: number;
  inFlightRounds: number;
  modelMs: number;
}

export const DEFAULT_GATEWAY_OPTIONS: GatewayBenchOptions = { keys: 200, rounds: 2, cold: 4, archiveSegments: 20_000, searchEvery: 50, inFlightRounds: 1, modelMs: 300 };

export interface GatewayFigures {
  keys: number;
  turns: number;
  eventLoopDelayMs: { p99: number; max: number };
  stallsOver100Ms: number;
  assembleMs: { median: number; p99: number };
  commitTurnMs: { median: number; p99: number };
  searchColdMs: { median: number; max: number } | null;
  /** CPU of the whole process (the archive worker's too) per turn */
  cpuMsPerTurn: number;
  /** time the main thread's event loop was busy per turn (what every other chat waits on) */
  loopBusyMsPerTurn: number;
  /**
   * CPU the main thread itself used per turn (Linux: /proc/self/task/<pid>/stat; null elsewhere):
   * unlike loopBusyMsPerTurn, not inflated by the thread waiting for a core on a loaded machine
   */
  mainThreadCpuMsPerTurn: number | null;
  rssMiB: { start: number; end: number; peak: number };
  inFlight: { turns: number; eventLoopDelayMs: { p99: number; max: number }; stallsOver100Ms: number; assembleMs: { median: number; p99: number }; commitTurnMs: { median: number; p99: number } } | null;
  gaugeLostHistory: number;
  missed80pctCheckpoints: number;
  sessionsOver80pct: number;
}

interface Key {
  key: string;
  messages: AgentMessage[];
  turns: Array<{ start: number; end: number }>;
  next: number;
  /** where each turn of this key ended (ground truth is computed after the measured run) */
  ends: number[];
  /** where its last turn started (GATEWAY_SLOWEST) */
  lastStart?: number;
}

function turnsOf(messages: readonly AgentMessage[]): Array<{ start: number; end: number }> {
  const starts = messages.flatMap((m, i) => (m.role === "user" && userText(m) ? [i] : []));
  return starts.map((start, k) => ({ start, end: k + 1 < starts.length ? starts[k + 1]! : messages.length }));
}

function withoutUsage(messages: AgentMessage[]): AgentMessage[] {
  return messages.map((m) => (m.role === "assistant" ? ({ ...m, usage: undefined } as unknown as AgentMessage) : m));
}

/** The plugin's entry as the gateway loads it; the search tool kept for the agent's calls. */
function plugin(stateDir: string) {
  const tools: Array<(ctx: { sessionKey: string }) => { execute: (id: string, p: unknown) => Promise<unknown> } | null> = [];
  let factory: ((ctx: unknown) => unknown) | null = null;
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir },
    registerContextEngine: (_id, f) => void (factory = f as (ctx: unknown) => unknown),
    registerTool: ((tool: unknown, opts?: { name?: string }) => {
      if (typeof tool === "function" && opts?.name === "context_search") tools.push(tool as (typeof tools)[number]);
    }) as PluginApiShape["registerTool"],
  };
  registerContextManagerPlugin(api, async () => ({ ok: true, compacted: false }));
  return {
    instance: () => factory!({ workspaceDir: "/ws" }) as ContextEngineShape,
    search: (sessionKey: string, query: string) => tools[0]?.(({ sessionKey }))?.execute("call", { query }),
  };
}

/** A cold archive left by an earlier process: `n` segments from the transcripts, index saved. */
async function coldArchiveTemplate(root: string, n: number, sources: AgentMessage[][]): Promise<string> {
  const stateDir = join(root, "template");
  const key = "agent:main:template";
  const archive = new SessionArchive(stateDir, key, { maxSegments: 20_000, retentionDays: 30 });
  let made = 0;
  for (let pass = 0; made < n; pass++) {
    for (const messages of sources) {
      // each pass tags the texts, so they are new segments (ids are content hashes)
      const drafts = segmentsOf(messages).map((d) => ({ ...d, text: `${d.text}\n[pass ${pass}]` }));
      const take = drafts.slice(0, n - made);
      for (let i = 0; i < take.length; i += 2_000) await archive.append(take.slice(i, i + 2_000), { session: `old-${pass}`, compaction: pass + 1 });
      made += take.length;
      if (made >= n) break;
    }
  }
  await archive.indexInBackground();
  return archiveDir(stateDir, key);
}

/** The main thread's user + system CPU in ms (its task's stat on Linux), or null. */
function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    // fields after the ")" that closes the command name: utime and stime are the 12th and 13th
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}

class LoopWatch {
  private h = monitorEventLoopDelay({ resolution: 5 });
  private last = performance.now();
  private timer: ReturnType<typeof setInterval> | null = null;
  stalls = 0;
  maxGap = 0;
  start(): void {
    this.h.reset();
    this.h.enable();
    this.last = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      const gap = now - this.last - 10;
      if (gap > 100) this.stalls++;
      if (gap > this.maxGap) this.maxGap = gap;
      this.last = now;
    }, 10);
  }
  stop(): { p99: number; max: number; stalls: number } {
    this.h.disable();
    if (this.timer) clearInterval(this.timer);
    return { p99: round1(this.h.percentile(99) / 1e6), max: round1(Math.max(this.h.max / 1e6, this.maxGap)), stalls: this.stalls };
  }
}

export async function benchGateway(options: Partial<GatewayBenchOptions> = {}, log: (line: string) => void = () => undefined): Promise<GatewayFigures | null> {
  const o = { ...DEFAULT_GATEWAY_OPTIONS, ...options };
  const sources = NAMES.filter((n) => existsSync(join(TRANSCRIPTS, `${n}.json`))).map((n) => withoutUsage(JSON.parse(readFileSync(join(TRANSCRIPTS, `${n}.json`), "utf8")) as AgentMessage[]));
  if (sources.length === 0) return null;
  const root = mkdtempSync(join(tmpdir(), "cm-bench-gateway-"));
  try {
    const stateDir = join(root, "state");
    mkdirSync(stateDir);
    const keys: Key[] = [];
    for (let i = 0; i < o.keys; i++) {
      const messages = sources[i % sources.length]!;
      const turns = turnsOf(messages);
      // start anywhere in the session, with room for the rounds: histories of every size
      const room = Math.max(1, turns.length - o.rounds - o.inFlightRounds);
      keys.push({ key: `agent:main:telegram:direct:u${i}`, messages, turns, next: (i * 37) % room, ends: [] });
    }
    if (o.cold > 0) {
      const t0 = performance.now();
      const template = await coldArchiveTemplate(root, o.archiveSegments, sources);
      for (let i = 0; i < o.cold; i++) cpSync(template, archiveDir(stateDir, keys[i]!.key), { recursive: true });
      log(`gateway: ${o.cold} cold archives of ${o.archiveSegments} segments in ${Math.round(performance.now() - t0)} ms`);
    }
    const host = plugin(stateDir);
    const truthFor = (k: Key, end: number) => estimateContextTokens(k.messages.slice(0, end));

    const calls: AssembleCall[] | null = SLOWEST > 0 ? [] : null;
    async function turn(k: Key, stats: { assemble: number[]; commit: number[] }, modelMs = 0): Promise<void> {
      const t = k.turns[k.next % k.turns.length]!;
      k.next++;
      const engine = host.instance();
      const sessionId = `s-${k.key}`;
      const before = calls && stats !== warm ? checkpointsOf(k.key) : 0;
      const cpu0 = calls ? process.cpuUsage() : null;
      let t0 = performance.now();
      await engine.assemble({ sessionId, sessionKey: k.key, messages: k.messages.slice(0, t.start), tokenBudget: WINDOW, prompt: userText(k.messages[t.start]!) });
      const t1 = performance.now();
      stats.assemble.push(t1 - t0);
      const lastStart = k.lastStart;
      k.lastStart = t.start;
      if (calls && stats !== warm) {
        const cpu = process.cpuUsage(cpu0 ?? undefined);
        const since = lastStart === undefined || lastStart > t.start ? null : k.messages.slice(lastStart, t.start);
        calls.push({
          ms: t1 - t0, cpuMs: (cpu.user + cpu.system) / 1000, start: t0, end: t1, key: keys.indexOf(k), turn: k.next,
          messages: t.start, newChars: since ? JSON.stringify(since).length : -1,
          checkpoints: checkpointsOf(k.key) - before, inFlight: modelMs > 0,
        });
      }
      if (modelMs > 0) await new Promise((r) => setTimeout(r, modelMs));
      t0 = performance.now();
      await engine.commitTurn({
        advancementKey: `turn-${k.next}`,
        sessionId,
        sessionKey: k.key,
        messages: k.messages.slice(t.start, t.end),
        runtimeContext: { modelContextWindow: WINDOW, tokenBudget: WINDOW },
      });
      stats.commit.push(performance.now() - t0);
      await engine.dispose();
      k.ends.push(t.end);
    }

    const checkpointsOf = (key: string): number => {
      const dir = checkpointDir(stateDir, key);
      return existsSync(dir) ? readdirSync(dir).filter((f) => /^cp_\d+\.yaml$/.test(f)).length : 0;
    };
    // warm-up: one turn per key (first sight of every key), then the measured rounds
    const warm = { assemble: [] as number[], commit: [] as number[] };
    for (const k of keys) await turn(k, warm);
    // and one search of each cold archive, so the worker's cache is as full as it gets
    for (let i = 0; i < o.cold; i++) await host.search(keys[i]!.key, "warm-up");
    const rssStart = process.memoryUsage().rss;
    let peak = rssStart;
    const stats = { assemble: [] as number[], commit: [] as number[] };
    const search: number[] = [];
    const watch = new LoopWatch();
    const profile = await startProfile();
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpuMs();
    const elu0 = performance.eventLoopUtilization();
    watch.start();
    let turns = 0;
    for (let r = 0; r < o.rounds; r++) {
      for (const k of keys) {
        await turn(k, stats);
        turns++;
        if (o.cold > 0 && turns % o.searchEvery === 0) {
          const cold = keys[(turns / o.searchEvery) % o.cold]!;
          const t0 = performance.now();
          await host.search(cold.key, "extension session compaction");
          search.push(performance.now() - t0);
        }
        if (turns % 50 === 0) peak = Math.max(peak, process.memoryUsage().rss);
      }
      log(`gateway: round ${r + 1}/${o.rounds} done (${turns} turns)`);
    }
    const loop = watch.stop();
    const cpu = process.cpuUsage(cpu0);
    const main1 = mainThreadCpuMs();
    const elu = performance.eventLoopUtilization(elu0);
    await profile?.();
    const rssEnd = process.memoryUsage().rss;

    let inFlight: GatewayFigures["inFlight"] = null;
    if (o.inFlightRounds > 0) {
      const f = { assemble: [] as number[], commit: [] as number[] };
      const w = new LoopWatch();
      w.start();
      for (let r = 0; r < o.inFlightRounds; r++) await Promise.all(keys.map((k) => turn(k, f, o.modelMs)));
      const l = w.stop();
      const a = latencyStats(f.assemble);
      const c = latencyStats(f.commit);
      inFlight = { turns: f.assemble.length, eventLoopDelayMs: { p99: l.p99, max: l.max }, stallsOver100Ms: l.stalls, assembleMs: { median: round1(a.median), p99: round1(a.p99) }, commitTurnMs: { median: round1(c.median), p99: round1(c.p99) } };
    }

    // ground truth: what each key's gauge recorded after its last turn vs its whole history
    let lost = 0;
    let missed = 0;
    let over = 0;
    for (const k of keys) {
      const last = k.turns[(k.next - 1) % k.turns.length]!;
      const truth = truthFor(k, last.end);
      const recorded = (await new PluginSessionFile(stateDir, k.key).read()).tokens;
      if (recorded < 0.8 * truth) lost++;
      if (!k.ends.some((end) => truthFor(k, end) >= 0.8 * WINDOW)) continue;
      over++;
      const dir = checkpointDir(stateDir, k.key);
      const files = existsSync(dir) ? readdirSync(dir).filter((f) => /^cp_\d+\.yaml$/.test(f)) : [];
      const autos = files.filter((f) => /trigger: "?auto-80pct/.test(readFileSync(join(dir, f), "utf8"))).length;
      if (autos === 0) missed++;
    }
    if (calls) reportSlowest(calls, gcs.splice(0), log);
    const a = latencyStats(stats.assemble);
    const c = latencyStats(stats.commit);
    const s = search.length > 0 ? latencyStats(search) : null;
    return {
      keys: o.keys,
      turns,
      eventLoopDelayMs: { p99: loop.p99, max: loop.max },
      stallsOver100Ms: loop.stalls,
      assembleMs: { median: round1(a.median), p99: round1(a.p99) },
      commitTurnMs: { median: round1(c.median), p99: round1(c.p99) },
      searchColdMs: s ? { median: round1(s.median), max: round1(s.max) } : null,
      cpuMsPerTurn: round1((cpu.user + cpu.system) / 1000 / turns),
      loopBusyMsPerTurn: round1(elu.active / turns),
      mainThreadCpuMsPerTurn: main0 !== null && main1 !== null ? round1((main1 - main0) / turns) : null,
      rssMiB: { start: mib(rssStart), end: mib(rssEnd), peak: mib(Math.max(peak, rssEnd)) },
      inFlight,
      gaugeLostHistory: lost,
      missed80pctCheckpoints: missed,
      sessionsOver80pct: over,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** One measured `assemble` call, for GATEWAY_SLOWEST. */
interface AssembleCall {
  ms: number;
  /** the process's CPU in it (worker threads included) */
  cpuMs: number;
  start: number;
  end: number;
  key: number;
  turn: number;
  messages: number;
  /** JSON chars of the messages since the key's last turn; -1 when its history started again */
  newChars: number;
  checkpoints: number;
  inFlight: boolean;
}

/** GATEWAY_SLOWEST=<n>: the n slowest measured `assemble` calls idle and in flight, with the GC inside each. */
const SLOWEST = Number(process.env.GATEWAY_SLOWEST ?? 0) || 0;
const gcs: { start: number; ms: number; kind: number }[] = [];
if (SLOWEST > 0) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) {
      gcs.push({ start: e.startTime, ms: e.duration, kind: e.detail?.kind ?? 0 });
    }
  }).observe({ entryTypes: ["gc"] });
}

function reportSlowest(calls: AssembleCall[], gc: typeof gcs, log: (line: string) => void): void {
  const kinds: Record<number, string> = { 1: "minor", 2: "major", 4: "incremental", 8: "weak" };
  const slowest = (inFlight: boolean) => calls.filter((c) => c.inFlight === inFlight).sort((x, y) => y.ms - x.ms);
  log(`gc: ${gc.length} collections, ${gc.reduce((sum, g) => sum + g.ms, 0).toFixed(0)} ms`);
  for (const c of [...slowest(false).slice(0, SLOWEST), ...slowest(true).slice(0, SLOWEST)]) {
    const inside = gc.filter((g) => g.start < c.end && g.start + g.ms > c.start);
    const gcMs = inside.reduce((sum, g) => sum + Math.min(g.start + g.ms, c.end) - Math.max(g.start, c.start), 0);
    const what = inside.map((g) => `${kinds[g.kind] ?? g.kind} ${g.ms.toFixed(1)}`).join(", ");
    const since = c.newChars < 0 ? "history restarted" : `${Math.round(c.newChars / 1000)}k chars since the last turn`;
    log(`slow assemble: ${c.ms.toFixed(1)} ms (cpu ${c.cpuMs.toFixed(1)}), key ${c.key} turn ${c.turn}, ` +
      `${c.messages} messages (${since}), ${c.checkpoints} checkpoint(s), ${c.inFlight ? "in flight" : "idle"}, ` +
      `gc ${gcMs.toFixed(1)} ms${what ? ` (${what})` : ""}`);
  }
}

/**
 * GATEWAY_PROFILE=<file>: a CPU profile of the measured rounds alone (not the warm-up);
 * GATEWAY_HEAP_PROFILE=<file>: what they allocated (the sampling heap profiler, collected objects included).
 */
async function startProfile(): Promise<(() => Promise<void>) | null> {
  const file = process.env.GATEWAY_PROFILE;
  const heapFile = process.env.GATEWAY_HEAP_PROFILE;
  if (!file && !heapFile) return null;
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  if (file) {
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  if (heapFile) {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", { samplingInterval: 32_768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  return async () => {
    if (file) writeFileSync(file, JSON.stringify((await session.post("Profiler.stop")).profile));
    if (heapFile) writeFileSync(heapFile, JSON.stringify((await session.post("HeapProfiler.stopSampling")).profile));
    session.disconnect();
  };
}

function flag(name: string): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const opts: Partial<GatewayBenchOptions> = {};
  for (const k of ["keys", "rounds", "cold", "archiveSegments", "searchEvery", "inFlightRounds", "modelMs"] as const) {
    const v = flag(k);
    if (v !== undefined && Number.isFinite(v)) opts[k] = v;
  }
  const load0 = loadavg()[0];
  const t0 = performance.now();
  const figures = await benchGateway(opts, (l) => process.stderr.write(`${l}\n`));
  const out = { at: new Date().toISOString(), node: process.version, loadavg: [round1(load0 ?? 0), round1(loadavg()[0] ?? 0)], durationS: round1((performance.now() - t0) / 1000), options: { ...DEFAULT_GATEWAY_OPTIONS, ...opts }, gateway: figures };
  writeFileSync(resolve(import.meta.dirname, "gateway-results.json"), `${JSON.stringify(out, null, 2)}\n`);
  console.log(JSON.stringify(out, null, 2));
}
