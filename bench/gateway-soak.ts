/**
 * A long-running gateway (issue 40): the plugin driven as the gateway drives it for a set time,
 * then the turns a busy gateway commits late. Every turn of every key gets a NEW engine instance
 * (`assemble` with the history before the turn, `commitTurn` with the turn), default config, 200k
 * window, histories from the real transcripts with usage stripped (a provider that reports none),
 * each key's history bounded at CAP tokens (its oldest turns dropped, as the driver of a long
 * chat would), the transcript continuing from its start when it runs out.
 *
 * - soak: KEYS keys round-robin for SECONDS; RSS, heap and each process cache's bytes sampled
 *   every SAMPLE seconds;
 * - late commits: every key's turn in flight (all assembles, then all commits), LONG of them
 *   long sessions whose history is under 80% of the window at `assemble` and whose turn (its
 *   reply without usage) takes it over; their slot is evicted between the two, as a full cache
 *   evicts it. Each must write an auto-80pct checkpoint counting history + turn.
 *
 * `npx tsx bench/gateway-soak.ts [--keys 80] [--seconds 60] [--long 5] [--cap 150000]`
 * writes bench/gateway-soak-results.json. SOAK_HEAP_PROFILE=<dir>: the live heap by allocation
 * site (the sampling heap profiler) a tenth into the soak, half way and at its end
 * (live-start / live-middle / live-end.heapprofile), for comparison (bench/heap-compare.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import v8 from "node:v8";
import vm from "node:vm";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { registerContextManagerPlugin } from "../src/openclaw-plugin/index.js";
import type { ContextEngineShape, PluginApiShape } from "../src/openclaw-plugin/engine-types.js";
import { userText } from "../src/agents/messages/read.js";
import { estimateContextTokens } from "../src/agents/gauge/context-gauge.js";
import { checkpointSessionDir as checkpointDir } from "../src/infra/session-dir.js";
import { parseCheckpoint } from "../src/agents/checkpoint/yaml.js";
import { parseCheckpointFileName } from "../src/agents/checkpoint/ids.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../src/agents/config/context-manager-config.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";
import { archiveWorker } from "../src/agents/archive/worker/archive-client.js";
import { sessionRegistry } from "../src/agents/engine/cache-budget.js";
import { fileStores } from "../src/infra/process-services.js";

const NAMES = ["badlogic__pi-mono__before-compaction", "badlogic__pi-mono__large-session", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04"];
const THRESHOLD = DEFAULT_CONTEXT_MANAGER_CONFIG.checkpointThreshold;
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

v8.setFlagsFromString("--expose-gc");
/** a full collection before the heap is read: what is live, not what awaits collection */
const gc = vm.runInNewContext("gc") as () => void;

export interface SoakOptions {
  keys: number;
  /** how long the round-robin runs */
  seconds: number;
  /** instead of `seconds`: this many rounds, a sample after each (a test's bounded soak) */
  rounds: number | null;
  long: number;
  cap: number;
  sample: number;
  modelMs: number;
  window: number;
  /** the plugin's cacheMemoryMiB (null: its default) */
  cacheMemoryMiB: number | null;
  /** the sessions the keys run through (null: the real transcripts, usage stripped) */
  sources: AgentMessage[][] | null;
}

export const DEFAULT_SOAK_OPTIONS: SoakOptions = { keys: 80, seconds: 60, rounds: null, long: 5, cap: 150_000, sample: 10, modelMs: 300, window: 200_000, cacheMemoryMiB: null, sources: null };

export interface SoakSample {
  s: number;
  turns: number;
  rssMiB: number;
  /** heap used after a full collection */
  heapMiB: number;
  /** memory of this thread's Buffers and other objects outside the V8 heap */
  externalMiB: number;
  /** each budgeted process cache: MiB held / MiB allowed */
  caches: Record<string, [number, number]>;
  /** the archive worker: its heap in use (not collected first) and its caches, MiB held / allowed */
  worker?: { heapMiB: number; caches: Record<string, [number, number]> };
}

export interface SoakFigures {
  turns: number;
  samples: SoakSample[];
  late: {
    long: number;
    wroteCheckpoint: number;
    recordedOverTruth: number[];
    /** each long session: its turns, tokens after the late turn, auto checkpoints it had before it */
    sessions: Array<{ key: string; turns: number; truth: number; autosBefore: number; lastAutoTokens: number | null; wrote: boolean }>;
  };
}

interface Turn {
  start: number;
  end: number;
}

/** One chat: a transcript run through in turns, its history bounded at `cap` tokens. */
class Chat {
  history: AgentMessage[] = [];
  private tokens: number[] = [];
  private pass = 0;
  private next: number;
  advanced = 0;
  constructor(
    readonly key: string,
    private readonly source: AgentMessage[],
    private readonly turns: Turn[],
    start: number,
    private readonly cap: number,
  ) {
    this.next = start % turns.length;
    // the history before the first turn: the transcript up to it, bounded as every later one
    this.push(source.slice(0, turns[this.next]!.start));
  }

  /** The next turn's messages (a copy with its own ids and times after a wrap-around). */
  take(): AgentMessage[] {
    const t = this.turns[this.next]!;
    const msgs = this.source.slice(t.start, t.end);
    const out = this.pass === 0 ? msgs : msgs.map((m) => relabel(m, this.pass));
    this.next++;
    this.advanced++;
    if (this.next >= this.turns.length) {
      this.next = 0;
      this.pass++;
    }
    return out;
  }

  /** The turn joins the history; the oldest turns go while it is over the cap. */
  push(turn: AgentMessage[]): void {
    for (const m of turn) {
      this.history.push(m);
      this.tokens.push(estimateContextTokens([m]));
    }
    let sum = this.tokens.reduce((a, b) => a + b, 0);
    let cut = 0;
    while (sum > this.cap && cut < this.history.length) {
      // whole turns: up to the next user message
      do sum -= this.tokens[cut++]!;
      while (cut < this.history.length && this.history[cut]!.role !== "user");
    }
    if (cut > 0) {
      this.history = this.history.slice(cut);
      this.tokens = this.tokens.slice(cut);
    }
  }

  get historyTokens(): number {
    return this.tokens.reduce((a, b) => a + b, 0);
  }
}

function relabel(m: AgentMessage, pass: number): AgentMessage {
  const c = structuredClone(m) as AgentMessage & { timestamp?: number; toolCallId?: string; content?: unknown };
  if (typeof c.timestamp === "number") c.timestamp += pass * 86_400_000 * 30;
  if (typeof c.toolCallId === "string") c.toolCallId = `${c.toolCallId}-p${pass}`;
  if (Array.isArray(c.content)) for (const b of c.content as Array<{ type?: string; id?: string }>) if (b.type === "toolCall" && b.id) b.id = `${b.id}-p${pass}`;
  return c;
}

function turnsOf(messages: readonly AgentMessage[]): Turn[] {
  const starts = messages.flatMap((m, i) => (m.role === "user" && userText(m) ? [i] : []));
  return starts.map((start, k) => ({ start, end: k + 1 < starts.length ? starts[k + 1]! : messages.length }));
}

function withoutUsage(messages: AgentMessage[]): AgentMessage[] {
  return messages.map((m) => (m.role === "assistant" ? ({ ...m, usage: undefined } as unknown as AgentMessage) : m));
}

function plugin(stateDir: string, cacheMemoryMiB: number | null): () => ContextEngineShape {
  let factory: ((ctx: unknown) => unknown) | null = null;
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir, ...(cacheMemoryMiB !== null ? { cacheMemoryMiB } : {}) },
    registerContextEngine: (_id, f) => void (factory = f as (ctx: unknown) => unknown),
    registerTool: (() => undefined) as PluginApiShape["registerTool"],
  };
  registerContextManagerPlugin(api, async () => ({ ok: true, compacted: false }));
  return () => factory!({ workspaceDir: "/ws" }) as ContextEngineShape;
}

type Cache = { stats(): { bytes: number; budgetBytes: number }; delete(k: string): boolean; clear?(): void; map?: Map<string, { value: { sessionKey?: string } }> };
// the registries by their globalThis name, the per-file stores by their field (infra/process-services.ts fileStores)
const processCache = (name: string): Cache | undefined =>
  (fileStores() as Record<string, Cache | undefined>)[name] ?? (globalThis as unknown as Record<symbol, Cache | undefined>)[Symbol.for(`openclaw.contextManager.${name}`)];
// the plugin's slots are held by the Sessions (engine/session.ts hostSlots)
const CACHES = ["sessions", "knowledgeFollowers"];

function cacheFigures(): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const name of CACHES) {
    const c = processCache(name);
    const s = typeof c?.stats === "function" ? c.stats() : null;
    if (s) out[name] = [Math.round((s.bytes / 2 ** 20) * 10) / 10, Math.round((s.budgetBytes / 2 ** 20) * 10) / 10];
  }
  return out;
}

const round1 = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

async function workerFigures(): Promise<SoakSample["worker"] | null> {
  try {
    const m = await archiveWorker().call("memory", null);
    return { heapMiB: mib(m.heapUsed), caches: { archives: [round1(m.archives.bytes), round1(m.archives.budgetBytes)], archiveTails: [round1(m.tails.bytes), round1(m.tails.budgetBytes)], knowledgeIndexes: [round1(m.knowledgeIndexes.bytes), round1(m.knowledgeIndexes.budgetBytes)] } };
  } catch {
    return null;
  }
}

/** Evicts every slot of `key` from its Session, as a full registry does. */
function evictSlot(key: string): void {
  for (const s of [...sessionRegistry().values()]) for (const [k, slot] of [...s.hostSlots]) if ((slot as { sessionKey?: string }).sessionKey === key) s.hostSlots.delete(k);
}

function autoCheckpoints(stateDir: string, key: string): Array<{ file: string; tokens: number }> {
  const dir = checkpointDir(stateDir, key);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => parseCheckpointFileName(f))
    .map((f) => ({ file: f, cp: parseCheckpoint(readFileSync(join(dir, f), "utf8"), f) }))
    .filter((x) => x.cp.meta.trigger === "auto-80pct")
    .map((x) => ({ file: x.file, tokens: x.cp.meta.token_usage.input_tokens }));
}

/** The sampling heap profiler from now on; the returned call writes what is live at that moment to `file`. */
async function heapSampler(): Promise<(file: string) => Promise<void>> {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", { samplingInterval: 65_536 });
  return async (file) => {
    gc();
    // without the collected objects: what is live now, by allocation site
    writeFileSync(file, JSON.stringify((await session.post("HeapProfiler.getSamplingProfile")).profile));
  };
}

/** Where the live heap is profiled: a tenth into the soak (the caches filling), half way, the end. */
const PROFILE_AT = [
  { name: "live-start", at: 0.1 },
  { name: "live-middle", at: 0.5 },
] as const;

export async function soakGateway(options: Partial<SoakOptions> = {}, log: (line: string) => void = () => undefined): Promise<SoakFigures | null> {
  const o = { ...DEFAULT_SOAK_OPTIONS, ...options };
  const WINDOW = o.window;
  const sources = o.sources ?? NAMES.map((n) => withoutUsage(JSON.parse(readFileSync(join(TRANSCRIPTS_DIR, `${n}.json`), "utf8")) as AgentMessage[]));
  if (sources.length === 0) return null;
  const root = mkdtempSync(join(tmpdir(), "cm-bench-soak-"));
  const profileDir = process.env.SOAK_HEAP_PROFILE ?? null;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  try {
    const stateDir = join(root, "state");
    mkdirSync(stateDir);
    // a fresh gateway's caches: what another run in this process (a test file before) left is not ours
    for (const name of CACHES) processCache(name)?.clear?.();
    const instance = plugin(stateDir, o.cacheMemoryMiB);
    const chats: Chat[] = [];
    for (let i = 0; i < o.keys; i++) {
      const source = sources[i % sources.length]!;
      const turns = turnsOf(source);
      chats.push(new Chat(`agent:main:telegram:direct:u${i}`, source, turns, (i * 37) % turns.length, o.cap));
    }
    const sessionId = (c: Chat) => `s-${c.key}`;
    async function assemble(c: Chat, turn: AgentMessage[]): Promise<ContextEngineShape> {
      const e = instance();
      await e.assemble({ sessionId: sessionId(c), sessionKey: c.key, messages: [...c.history], tokenBudget: WINDOW, prompt: userText(turn[0]!) });
      return e;
    }
    async function commit(e: ContextEngineShape, c: Chat, turn: AgentMessage[]): Promise<void> {
      await e.commitTurn({ advancementKey: `turn-${c.advanced}`, sessionId: sessionId(c), sessionKey: c.key, messages: turn, runtimeContext: { modelContextWindow: WINDOW, tokenBudget: WINDOW } });
      await e.dispose();
      c.push(turn);
    }

    const samples: SoakSample[] = [];
    const t0 = performance.now();
    const sample = async (turns: number) => {
      gc();
      const m = process.memoryUsage();
      const worker = await workerFigures();
      samples.push({ s: Math.round((performance.now() - t0) / 1000), turns, rssMiB: mib(m.rss), heapMiB: mib(m.heapUsed), externalMiB: mib(m.external), caches: cacheFigures(), ...(worker ? { worker } : {}) });
      log(`soak: ${JSON.stringify(samples.at(-1))}`);
    };
    const profile = profileDir ? await heapSampler() : null;
    const profilesDue: Array<{ name: string; at: number }> = profile ? [...PROFILE_AT] : [];
    let turns = 0;
    let nextSample = 0;
    await sample(0);
    const more = (round: number) => (o.rounds !== null ? round < o.rounds : (performance.now() - t0) / 1000 < o.seconds);
    for (let round = 0; more(round); round++) {
      if (o.rounds !== null && round > 0) await sample(turns);
      for (const c of chats) {
        const turn = c.take();
        await commit(await assemble(c, turn), c, turn);
        turns++;
        const s = (performance.now() - t0) / 1000;
        if (o.rounds !== null) continue;
        if (s >= nextSample + o.sample) {
          nextSample += o.sample;
          await sample(turns);
        }
        if (profilesDue.length > 0 && s >= o.seconds * profilesDue[0]!.at) {
          await profile!(join(profileDir!, `${profilesDue.shift()!.name}.heapprofile`));
        }
        if (s >= o.seconds) break;
      }
    }
    await sample(turns);
    if (profile) await profile(join(profileDir!, "live-end.heapprofile"));

    // late commits: the long sessions' turns take them over 80%; every key's turn in flight
    const long = chats.slice(0, o.long);
    const lateTurns = new Map<Chat, AgentMessage[]>();
    for (const c of chats) {
      let turn = c.take();
      if (long.includes(c)) {
        // a turn whose output takes the history from under 80% to over it (its reply carries no usage)
        const need = THRESHOLD * WINDOW * 1.03 - c.historyTokens;
        while (estimateContextTokens(turn) < need) turn = [...turn, ...c.take().filter((m) => m.role !== "user")];
      }
      lateTurns.set(c, turn);
    }
    const before = new Map(long.map((c) => [c, new Set(autoCheckpoints(stateDir, c.key).map((x) => x.file))]));
    const truth = new Map(long.map((c) => [c, c.historyTokens + estimateContextTokens(lateTurns.get(c)!)]));
    for (const c of long) if (c.historyTokens >= THRESHOLD * WINDOW) log(`soak: ${c.key}'s history is already over 80% (${c.historyTokens})`);
    const engines = await Promise.all(chats.map((c) => assemble(c, lateTurns.get(c)!)));
    for (const c of long) evictSlot(c.key);
    await new Promise((r) => setTimeout(r, o.modelMs));
    await Promise.all(chats.map((c, i) => commit(engines[i]!, c, lateTurns.get(c)!)));
    let wrote = 0;
    const ratio: number[] = [];
    const lateSessions: SoakFigures["late"]["sessions"] = [];
    for (const c of long) {
      const all = autoCheckpoints(stateDir, c.key);
      const fresh = all.filter((x) => !before.get(c)!.has(x.file) && x.tokens >= THRESHOLD * WINDOW);
      if (fresh.length > 0) wrote++;
      const earlier = all.filter((x) => before.get(c)!.has(x.file));
      lateSessions.push({ key: c.key, turns: c.advanced, truth: truth.get(c)!, autosBefore: earlier.length, lastAutoTokens: earlier.at(-1)?.tokens ?? null, wrote: fresh.length > 0 });
      const { PluginSessionFile } = await import("../src/openclaw-plugin/session-file.js");
      ratio.push(Math.round(((await new PluginSessionFile(stateDir, c.key).read()).tokens / truth.get(c)!) * 100) / 100);
    }
    await sample(turns + chats.length);
    return { turns, samples, late: { long: long.length, wroteCheckpoint: wrote, recordedOverTruth: ratio, sessions: lateSessions } };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function flag(name: string): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const opts: Partial<SoakOptions> = {};
  for (const k of ["keys", "seconds", "rounds", "long", "cap", "sample", "modelMs", "window", "cacheMemoryMiB"] as const) {
    const v = flag(k);
    if (v !== undefined && Number.isFinite(v)) opts[k] = v;
  }
  const load0 = loadavg()[0] ?? 0;
  const t0 = performance.now();
  const figures = await soakGateway(opts, (l) => process.stderr.write(`${l}\n`));
  const out = { at: new Date().toISOString(), node: process.version, loadavg: [load0, loadavg()[0] ?? 0].map((v) => Math.round(v * 10) / 10), durationS: Math.round((performance.now() - t0) / 1000), options: { ...DEFAULT_SOAK_OPTIONS, ...opts, sources: undefined }, soak: figures };
  writeFileSync(resolve(import.meta.dirname, "gateway-soak-results.json"), `${JSON.stringify(out, null, 2)}\n`);
  console.log(JSON.stringify({ ...out, soak: figures && { ...figures, samples: figures.samples.length } }, null, 2));
  process.exit(0);
}
