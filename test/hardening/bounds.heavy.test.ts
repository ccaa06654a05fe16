/**
 * Resource bounds (docs/security.md "Size bounds"): whatever a session does, with the default
 * caps each state file stays under STATE_FILE_MAX_BYTES and each checkpoint under
 * CHECKPOINT_MAX_BYTES; a 10,000-turn soak through engine.onContext keeps the heap flat.
 * A soak (minutes on a loaded 2-core machine): run by `npm run test:heavy` (and CI), not `npm test`.
 */
import { statSync } from "node:fs";
import v8 from "node:v8";
import vm from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { assistantMsg, compactEvent, makeEngine, memFs, noSyncFs, readAllFiles, removeDirs, tempDir, toolCallMsg, toolResultMsg, usageAt, userMsg } from "./helpers.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

/** Documented bounds (default config): see docs/security.md. */
export const STATE_FILE_MAX_BYTES = 512 * 1024;
export const CHECKPOINT_MAX_BYTES = 512 * 1024;

const dirs: string[] = [];
afterEach(() => removeDirs(dirs));

function sizes(stateDir: string): Array<[string, number]> {
  return readAllFiles(stateDir).map(([p]) => [p, statSync(p).size]);
}

function expectBounded(stateDir: string): { maxState: number; maxCheckpoint: number } {
  let maxState = 0;
  let maxCheckpoint = 0;
  for (const [p, size] of sizes(stateDir)) {
    if (/cp_\d+\.yaml$/.test(p)) {
      expect(size, p).toBeLessThanOrEqual(CHECKPOINT_MAX_BYTES);
      maxCheckpoint = Math.max(maxCheckpoint, size);
    } else {
      expect(size, p).toBeLessThanOrEqual(STATE_FILE_MAX_BYTES);
      maxState = Math.max(maxState, size);
    }
  }
  return { maxState, maxCheckpoint };
}

describe("size bounds", () => {
  for (const [label, unit] of [
    ["ASCII", "segment"],
    ["4-byte UTF-8", "\u{1F600}\u{1F4A5}\"\\"],
  ] as const) {
    it(`1,000 huge tool results on 1,000 distinct long paths (${label}) and 10,000 decisions-worth of replies`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const stateDir = tempDir("cm-bounds-");
      dirs.push(stateDir);
      const t = makeEngine({ stateDir, window: 1_000_000, fs: noSyncFs() });
      const huge = "E".repeat(200_000);
      const messages: AgentMessage[] = [];
      for (let i = 0; i < 1000; i++) {
        const p = `/ws/${i}/${unit.repeat(2000)}/${i}.ts`;
        await t.engine.onToolResult({ toolName: i % 2 ? "write" : `tool_${i}_${unit.repeat(100)}`, input: { path: p }, content: [{ type: "text", text: huge }], isError: i % 3 === 0 }, "/ws");
        messages.push(toolCallMsg(`c${i}`, `tool_${i}`, { path: p, blob: huge }));
      }
      // a long answer then a short reply: 10,000 decision points, each distinct
      for (let i = 0; i < 10_000; i++) {
        messages.push(assistantMsg([{ type: "text", text: `${unit.repeat(300)} option ${i}?\n- [ ] task ${i} ${unit.repeat(100)}` }]));
        messages.push(userMsg(`yes ${i} ${unit.repeat(5)}`));
        if (i % 1000 === 999) await t.engine.onContext(messages, usageAt(0.3, 1_000_000));
      }
      await t.engine.onContext(messages, usageAt(0.3, 1_000_000));
      await t.engine.flushNow();
      const before = expectBounded(stateDir);
      expect(before.maxState).toBeGreaterThan(0);
      for (let k = 0; k < 3; k++) expect(await t.engine.onBeforeCompact(compactEvent(900_000, { messages: [] }), "/ws")).not.toBeNull();
      const after = expectBounded(stateDir);
      console.log(`[bounds] ${label}: largest state file ${(before.maxState / 1024).toFixed(1)} KB, largest checkpoint ${(after.maxCheckpoint / 1024).toFixed(1)} KB`);
      expect(t.warnings).toEqual([]);
    });
  }
});

function gcFn(): () => void {
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
}

describe("soak", () => {
  it("10,000 context events with periodic tool results keep the heap flat", { timeout: TEST_TIMEOUT_MS }, async () => {
    const gc = gcFn();
    const stateDir = tempDir("cm-soak-");
    dirs.push(stateDir);
    const mem = memFs();
    const t = makeEngine({ stateDir, window: 200_000, fs: mem });
    let messages: AgentMessage[] = [userMsg("start the soak")];
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    let warm = 0;
    const t0 = performance.now();
    for (let turn = 0; turn < 10_000; turn++) {
      messages.push(userMsg(`turn ${turn} ${"text ".repeat(20)}`));
      if (turn % 5 === 0) {
        messages.push(toolCallMsg(`c${turn}`, "read", { path: `src/f${turn % 300}.ts` }));
        await t.engine.onToolResult({ toolName: "read", input: { path: `src/f${turn % 300}.ts` }, content: [{ type: "text", text: "body" }], isError: turn % 50 === 0 }, "/ws");
        messages.push(toolResultMsg(`c${turn}`, "read", "body"));
      }
      messages.push(assistantMsg([{ type: "text", text: `answer ${turn} ${"words ".repeat(30)}` }]));
      // 10% of the calls above 80% (auto checkpoints, most deduplicated)
      await t.engine.onContext(messages, usageAt(turn % 10 === 0 ? 0.8 + (turn % 7) * 0.02 : 0.5, 200_000));
      // a compaction every 1,000 turns replaces the array, as pi does
      if (turn % 1000 === 999) {
        await t.engine.onBeforeCompact(compactEvent(160_000, { messages: [] }), "/ws");
        t.engine.compactions += 1;
        messages = messages.slice(-20);
      }
      if (turn === 999) warm = heap();
    }
    const end = heap();
    const secs = (performance.now() - t0) / 1000;
    const growthMb = (end - warm) / 1024 / 1024;
    console.log(
      `[soak] 10,000 turns in ${secs.toFixed(1)} s; heapUsed after 1,000 turns ${(warm / 1048576).toFixed(1)} MB, after 10,000 ${(end / 1048576).toFixed(1)} MB, growth ${growthMb.toFixed(1)} MB`,
    );
    expect(growthMb).toBeLessThan(50);
    expect(t.warnings).toEqual([]);
    expect(mem.files.size).toBeGreaterThan(5); // state files and checkpoints were written
    for (const [p, text] of mem.files) expect(Buffer.byteLength(text), p).toBeLessThanOrEqual(Math.max(STATE_FILE_MAX_BYTES, CHECKPOINT_MAX_BYTES));
  });
});
