/**
 * Which transcript windows make the compaction provider's slow calls (bench/compaction-provider.ts
 * feeds call i the 1,000 messages from offset i*1000 of the cycled transcript). Each window's call
 * is repeated in isolation and its MIN CPU time kept: a figure the machine's other load barely
 * moves, so windows can be ranked on a shared machine. Same entry as the bench: the
 * before_compaction hook, then summarize, a new session each call, the checkpoint's write and the
 * span's archive settled between calls.
 *
 * `npx tsx bench/provider-windows.ts [repeats=5] [windows=110] [top=10]`; `WINDOWS=3,17` runs only
 * those call indices (for `node --cpu-prof --import tsx bench/provider-windows.ts`).
 * Prints the top windows by min CPU as JSON lines on stdout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { backgroundWritesSettled, spanArchivesSettled } from "../src/agents/engine/archive-hooks.js";
import { loadSourceMessages, MessageFactory } from "./messages.js";
import { inputPromoter, providerEntry } from "./plugin-harness.js";

const REPO = resolve(import.meta.dirname, "..");
const MESSAGES = 1_000;

/** The 1,000 messages bench/compaction-provider.ts gives each of its first `count` calls (the same factory, in order). */
function windowsOf(source: readonly AgentMessage[], count: number): AgentMessage[][] {
  const factory = new MessageFactory(source);
  return Array.from({ length: count }, () => factory.take(MESSAGES));
}


const [repeats = 5, count = 110, top = 10] = process.argv.slice(2).map(Number);
const only = process.env.WINDOWS?.split(",").map(Number);
const stateDir = mkdtempSync(join(tmpdir(), "cm-bench-windows-"));
const { provider, hook } = providerEntry(stateDir);
const { messages: source } = loadSourceMessages(REPO);
const promote = inputPromoter() ?? (() => undefined);
const load0 = loadavg()[0]!;
let call = 0;

async function oneCall(window: readonly AgentMessage[]): Promise<number> {
  const messages = structuredClone(window) as AgentMessage[];
  const i = call++;
  hook({ messageCount: messages.length, messages, sessionFile: `/sessions/win-${i}.jsonl` }, { sessionKey: `agent:main:win-${i}` });
  promote();
  const c0 = process.cpuUsage();
  await provider.summarize({ messages });
  const c = process.cpuUsage(c0);
  await backgroundWritesSettled();
  await spanArchivesSettled();
  return (c.user + c.system) / 1000;
}

const results: Array<{ window: number; offset: number; minCpuMs: number }> = [];
try {
  const indices = only ?? Array.from({ length: count }, (_, i) => i);
  const windows = windowsOf(source, Math.max(...indices) + 1);
  // one warm-up call per window first, so the first windows measured do not pay for the JIT
  for (const w of indices) await oneCall(windows[w]!);
  const min = new Map<number, number>();
  // round-robin: a burst of load on the machine spreads over all windows instead of landing on one
  for (let r = 0; r < repeats; r++) for (const w of indices) min.set(w, Math.min(min.get(w) ?? Infinity, await oneCall(windows[w]!)));
  for (const w of indices) results.push({ window: w, offset: (w * MESSAGES) % source.length, minCpuMs: Math.round(min.get(w)! * 10) / 10 });
} finally {
  rmSync(stateDir, { recursive: true, force: true });
}
results.sort((a, b) => b.minCpuMs - a.minCpuMs);
const all = results.map((r) => r.minCpuMs).sort((a, b) => a - b);
for (const r of results.slice(0, top)) process.stdout.write(`${JSON.stringify(r)}\n`);
process.stdout.write(`${JSON.stringify({ windows: results.length, repeats, minCpuMedianMs: all[Math.floor(all.length / 2)], load: [Math.round(load0 * 10) / 10, Math.round(loadavg()[0]! * 10) / 10] })}\n`);
