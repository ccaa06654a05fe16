/**
 * Two processes starting sessions on one key at the same instant (two pi processes, a gateway
 * and a CLI), while a dead session's state files wait to be bundled: exactly one checkpoint of
 * the dead session is written, nothing stays held, nothing is lost.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ContextState } from "../../src/agents/state/context-state.js";
import { stateSessionDir } from "../../src/infra/session-dir.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { CONFIG, assistant, rmDir, tempDir, user } from "./fixtures.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const ROOT = path.join(import.meta.dirname, "..", "..");
const CHILD = path.join(import.meta.dirname, "fixtures", "bundle-race-child.ts");
const KEY = "agent:main:test:direct:race";
const ROUNDS = 5;
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rmDir(d);
});

function start(stateDir: string, sessionId: string, go: string) {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, stateDir, KEY, sessionId, go], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => (out.startsWith("ready\n") ? resolve() : undefined));
    child.once("exit", () => (out.startsWith("ready\n") ? resolve() : reject(new Error(`child exited before ready: ${err}`))));
  });
  const done = new Promise<{ out: string; err: string }>((r) => child.once("exit", () => r({ out, err })));
  return { ready, done };
}

describe("two processes start sessions on one key at the same instant", () => {
  it(`the dead session is bundled exactly once (${ROUNDS} rounds)`, async () => {
    let duplicates = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const stateDir = await tempDir();
      dirs.push(stateDir);
      const dead = `dead-${round}`;
      const st = await ContextState.load({ stateDir, sessionKey: KEY, sessionId: dead, config: CONFIG, logger: { warn: () => undefined } });
      st.captureMessages([user(`request of ${dead}`), assistant("on it")]);
      await st.flush();
      const go = path.join(stateDir, "go");
      const a = start(stateDir, `a-${round}`, go);
      const b = start(stateDir, `b-${round}`, go);
      await Promise.all([a.ready, b.ready]);
      writeFileSync(go, "");
      const [ra, rb] = await Promise.all([a.done, b.done]);
      expect(ra.err + rb.err).toBe("");
      const bundles = readCheckpointsOnDisk(stateDir, KEY).filter((c) => c.meta.session_id === dead);
      if (bundles.length > 1) duplicates++;
      expect(bundles.length, `round ${round}: ${ra.out.trim()} / ${rb.out.trim()}`).toBeGreaterThanOrEqual(1);
      expect(bundles[0]!.work?.requests).toEqual([`request of ${dead}`]);
      expect((await fs.readdir(stateSessionDir(stateDir, KEY))).filter((f) => f.startsWith("previous."))).toEqual([]);
    }
    expect(duplicates).toBe(0);
  }, 3 * TEST_TIMEOUT_MS);
});
