/**
 * A long-running gateway, bounded (issue 40; the 15-minute run with the real transcripts is
 * bench/gateway-soak.ts, docs/benchmarks.md): 30 chats round-robin through the plugin's real
 * entry, a new engine per turn, histories bounded by their host (oldest turns dropped), the
 * smallest cache budget so every process cache fills and evicts early. Then every chat's turn in
 * flight, five of them long sessions whose slot is evicted between assemble and commit and whose
 * turn (its reply without usage) takes them over 80%. Asserts the outcome, not time: each long
 * session writes its 80% checkpoint from the whole history, every cache stays in its budget, and
 * the live heap after a full collection levels off once the caches are full.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { soakGateway } from "../../bench/gateway-soak.js";
import { call, prose, reply, result, user } from "./plugin-messages.js";

/** A session of `turns` turns of various sizes (a read and its output), tagged so sessions differ. */
function session(tag: string, turns: number, t0: number): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let k = 0; k < turns; k++) {
    const t = t0 + k * 10;
    const tokens = 400 + ((k * 7919) % 1_600);
    out.push(user(`Look at src/${tag}/mod${k}.ts and summarise it`, t), call(`${tag}c${k}`, `src/${tag}/mod${k}.ts`, t + 1), result(`${tag}c${k}`, prose(tokens, `${tag}${k}w`), t + 2), reply(`src/${tag}/mod${k}.ts holds the module notes.`, t + 3));
  }
  return out;
}

describe("a long-running gateway (bounded soak)", () => {
  it("keeps every long session's 80% checkpoint and its memory within the caches' budgets", async () => {
    const t0 = Date.now() - 10_000_000;
    const sources = ["a", "b", "c"].map((tag, i) => session(tag, 40, t0 + i * 1_000_000));
    const rounds = 16;
    const f = (await soakGateway({ sources, keys: 30, rounds, long: 5, window: 32_000, cap: 24_000, cacheMemoryMiB: 16, modelMs: 20 }))!;
    expect(f.late.long).toBe(5);
    expect(f.late.sessions.filter((s) => !s.wrote)).toEqual([]);
    for (const r of f.late.recordedOverTruth) {
      expect(r).toBeGreaterThanOrEqual(0.95);
      expect(r).toBeLessThanOrEqual(1.05);
    }
    // every budgeted cache held no more than its share (estimated bytes) at every sample
    for (const s of f.samples) for (const [name, [held, budget]] of Object.entries(s.caches)) expect(held, `${name} at ${s.turns} turns`).toBeLessThanOrEqual(budget);
    // the archive worker's too (loaded archives, append tails, knowledge indexes), and the knowledge followers were sampled
    for (const s of f.samples) for (const [name, [held, budget]] of Object.entries(s.worker?.caches ?? {})) expect(held, `worker ${name} at ${s.turns} turns`).toBeLessThanOrEqual(budget);
    expect(f.samples.at(-1)!.caches.knowledgeFollowers).toBeDefined();
    // the caches were full (evicting) from the middle on, and the live heap stopped growing
    const mid = f.samples[Math.floor(rounds / 2)]!;
    const end = f.samples.at(-1)!;
    expect(mid.caches.sessions![0]).toBeGreaterThan(0.8 * mid.caches.sessions![1]);
    console.log(JSON.stringify(f.samples.map((s) => [s.turns, s.heapMiB, s.rssMiB])));
    expect(end.heapMiB - mid.heapMiB).toBeLessThan(16);
  });
});
