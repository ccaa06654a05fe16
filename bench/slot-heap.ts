/**
 * What a plugin session slot really retains (issue 24): heap measured, not estimated. Runs one
 * turn (assemble + commitTurn) for KEYS keys through the plugin's entry, with the cache budget
 * large enough that nothing is evicted, then drops every slot and measures the heap again
 * (`--expose-gc`, heapUsed after a full gc). Each key's history is its own copy (`--clone 1`,
 * the gateway reads each key's transcript itself) or shared between keys (`--clone 0`, as
 * bench/gateway.ts does). Prints the measured bytes per slot beside the slot's own estimate.
 *
 * `node --expose-gc --import tsx bench/slot-heap.ts [--keys 60] [--clone 1]`; DROP_LAST=1: what goes
 * when each slot drops its last-seen history, then its request log's last requests, then the
 * aged memories; AGED_FIRST=1: the aged memories before the slots; DROP=1: each process cache
 * emptied in turn after the slots.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { registerContextManagerPlugin } from "../src/openclaw-plugin/index.js";
import type { ContextEngineShape, PluginApiShape } from "../src/openclaw-plugin/engine-types.js";
import { userText } from "../src/agents/messages/read.js";
import { sessionRegistry } from "../src/agents/engine/cache-budget.js";
import type { SessionSlot } from "../src/openclaw-plugin/session-slot.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";
import { fileStores } from "../src/infra/process-services.js";

const TRANSCRIPTS = TRANSCRIPTS_DIR;
const NAMES = ["badlogic__pi-mono__before-compaction", "badlogic__pi-mono__large-session", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04"];

function flag(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
function heap(): number {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage().heapUsed;
}

const keys = flag("keys", 60);
const clone = flag("clone", 1) !== 0;
const sources = NAMES.filter((n) => existsSync(join(TRANSCRIPTS, `${n}.json`))).map((n) => JSON.parse(readFileSync(join(TRANSCRIPTS, `${n}.json`), "utf8")) as AgentMessage[]);
const stateDir = mkdtempSync(join(tmpdir(), "cm-slot-heap-"));
try {
  let factory: ((ctx: unknown) => unknown) | null = null;
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir, cacheMemoryMiB: 65_536 },
    registerContextEngine: (_id, f) => void (factory = f as (ctx: unknown) => unknown),
    registerTool: (() => undefined) as PluginApiShape["registerTool"],
  };
  registerContextManagerPlugin(api, async () => ({ ok: true, compacted: false }));
  // the plugin's slots, held by the keys' Sessions (engine/session.ts hostSlots)
  const slotList = () => [...sessionRegistry().values()].flatMap((s) => [...s.hostSlots.values()] as SessionSlot[]);
  async function turn(i: number): Promise<void> {
    const src = sources[i % sources.length]!;
    const starts = src.flatMap((m, j) => (m.role === "user" && userText(m) ? [j] : []));
    const k = Math.floor(((i * 37) % 97) / 97 * (starts.length - 1));
    const start = starts[k]!;
    const end = starts[k + 1] ?? src.length;
    const pick = (a: number, b: number) => (clone ? structuredClone(src.slice(a, b)) : src.slice(a, b));
    const engine = factory!({ workspaceDir: "/ws" }) as ContextEngineShape;
    const key = `agent:main:telegram:direct:u${i}`;
    await engine.assemble({ sessionId: `s-${i}`, sessionKey: key, messages: pick(0, start), tokenBudget: 200_000, prompt: userText(src[start]!) });
    await engine.commitTurn({ advancementKey: "t1", sessionId: `s-${i}`, sessionKey: key, messages: pick(start, end), runtimeContext: { modelContextWindow: 200_000, tokenBudget: 200_000 } });
    await engine.dispose();
  }
  await turn(keys); // code loaded, process caches made
  const before = heap();
  for (let i = 0; i < keys; i++) await turn(i);
  await new Promise((r) => setTimeout(r, 1500)); // debounced flushes
  const withSlots = heap();
  const estimate = slotList().reduce((sum, slot) => sum + slot.approxBytes(), 0);
  const n = slotList().length;
  if (process.env.DROP_LAST) {
    for (const slot of slotList()) slot.lastMessages = [];
    const h0 = heap();
    console.log("lastMessages dropped:", Math.round((withSlots - h0) / keys / 1024), "KiB per key");
    // the engine's request log keeps its last two requests by reference (engine/request-log.ts)
    for (const slot of slotList()) Object.assign(slot.engine.requests, { current: null, previous: null, cached: null });
    const h = heap();
    console.log("and the request logs' last requests:", Math.round((h0 - h) / keys / 1024), "KiB per key");
    const c = (globalThis as unknown as Record<symbol, { map: Map<unknown, unknown> }>)[Symbol.for("openclaw.contextManager.sessions")]!;
    c.map.clear();
    const h2 = heap();
    console.log("and the Sessions (aged memories, trims, breakdowns) dropped:", Math.round((h - h2) / keys / 1024), "KiB per key");
  }
  if (process.env.AGED_FIRST) {
    const c = (globalThis as unknown as Record<symbol, { map: Map<unknown, { value: { approxBytes(): number } }> }>)[Symbol.for("openclaw.contextManager.sessions")]!;
    const est = [...c.map.values()].reduce((s, e) => s + e.value.approxBytes(), 0);
    c.map.clear();
    const h = heap();
    console.log("Sessions first:", Math.round((withSlots - h) / keys / 1024), "KiB per key; estimated", Math.round(est / keys / 1024));
  }
  for (const s of [...sessionRegistry().values()]) s.hostSlots.clear();
  const without = heap();
  // what else holds each key's history (DROP=1): each process cache emptied in turn
  if (process.env.DROP) {
    let last = without;
    for (const name of ["sessions", "artifactStashes", "artifactRefs", "recallCache", "sessionLogs", "engines"]) {
      type Held = { map?: Map<unknown, unknown>; clear?: () => void } | undefined;
      const c = (fileStores() as Record<string, Held>)[name] ?? (globalThis as unknown as Record<symbol, Held>)[Symbol.for(`openclaw.contextManager.${name}`)];
      if (!c) continue;
      if (c.map instanceof Map) c.map.clear();
      else if (typeof c.clear === "function") c.clear();
      else continue;
      const h = heap();
      console.log(name, Math.round((last - h) / keys / 1024), "KiB per key");
      last = h;
    }
  }
  const mb = (b: number) => Math.round(b / 2 ** 20 * 10) / 10;
  console.log(JSON.stringify({ keys, clone, slots: n, heapMiB: { before: mb(before), withSlots: mb(withSlots), slotsDropped: mb(without) }, perSlotKiB: { measured: Math.round((withSlots - without) / n / 1024), estimated: Math.round(estimate / n / 1024), othersPerKey: Math.round((without - before) / keys / 1024) } }));
} finally {
  rmSync(stateDir, { recursive: true, force: true });
}
