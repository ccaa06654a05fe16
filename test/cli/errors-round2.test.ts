/**
 * Errors a user can see and act on, and a prune that never leaves a key without its newest
 * valid checkpoint. In process through runCli (the same code the bin runs) on real files.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { runCli } from "../../src/cli/main.js";
import { makeDraft } from "../checkpoint/helpers.js";
import { assistantMsg, compactEvent, makeEngine, userMsg } from "../hardening/helpers.js";

const KEY = "agent:main:test:direct:cli2";
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), "cm-cli2-"));
  dirs.push(d);
  return d;
}

async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { line: (t) => out.push(t), json: (v) => out.push(JSON.stringify(v)), warn: (t) => err.push(t) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function writeN(dir: string, n: number, key = KEY): Promise<void> {
  for (let i = 0; i < n; i++) {
    await writeCheckpoint({ stateDir: dir, retention: 100 }, makeDraft({ sessionKey: key, trigger: "compaction", inputTokens: 1000 * (i + 1) } as never));
  }
}

const files = (dir: string) => readdirSync(checkpointSessionDir(dir, KEY)).filter((f) => /^cp_\d+\.yaml$/.test(f)).sort();

describe("prune never deletes the newest valid checkpoint", () => {
  it("prune --keep 1 with a truncated latest keeps the newest VALID one (and the truncated file)", async () => {
    const dir = stateDir();
    await writeN(dir, 4);
    truncateSync(join(checkpointSessionDir(dir, KEY), "cp_004.yaml"), 40);
    const dry = await run(["prune", "--keep", "1", "--dry-run", "--state-dir", dir]);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain("would delete cp_001, cp_002");
    expect(files(dir)).toEqual(["cp_001.yaml", "cp_002.yaml", "cp_003.yaml", "cp_004.yaml"]); // dry run: nothing gone
    const r = await run(["prune", "--keep", "1", "--state-dir", dir]);
    expect(r.code).toBe(0);
    expect(files(dir)).toEqual(["cp_003.yaml", "cp_004.yaml"]);
    const status = await run(["status", "--state-dir", dir, "--session-key", KEY]);
    expect(status.code).toBe(0);
    expect(status.out).toContain("cp_003");
  });

  it("invalid files older than the kept ones go; with no valid checkpoint at all nothing is deleted", async () => {
    const dir = stateDir();
    await writeN(dir, 3);
    writeFileSync(join(checkpointSessionDir(dir, KEY), "cp_001.yaml"), "not: [yaml");
    const r = await run(["prune", "--keep", "1", "--json", "--state-dir", dir]);
    expect(JSON.parse(r.out).sessions[0]).toMatchObject({ deleted: ["cp_001", "cp_002"], invalid: ["cp_001"], kept: ["cp_003"] });
    for (const f of files(dir)) writeFileSync(join(checkpointSessionDir(dir, KEY), f), "garbage: [");
    await writeN(dir, 0);
    const none = await run(["prune", "--keep", "1", "--state-dir", dir]);
    expect(none.code).toBe(0);
    expect(files(dir)).toEqual(["cp_003.yaml"]);
  });
});

describe("errors a user can see and act on", () => {
  it("status exits non-zero when a session has no valid checkpoint (with and without --session-key)", async () => {
    const dir = stateDir();
    await writeN(dir, 1);
    writeFileSync(join(checkpointSessionDir(dir, KEY), "cp_001.yaml"), "truncat");
    const all = await run(["status", "--state-dir", dir]);
    expect(all.code).toBe(1);
    expect(all.err).toMatch(/no valid checkpoint/);
    const one = await run(["status", "--state-dir", dir, "--session-key", KEY]);
    expect(one.code).toBe(1);
    expect(one.err).toMatch(/no valid checkpoint/);
  });

  it("an fs error is reported once with its code, not `EISDIR EISDIR`", async () => {
    const dir = stateDir();
    await writeN(dir, 3);
    const d = checkpointSessionDir(dir, KEY);
    unlinkSync(join(d, "cp_001.yaml"));
    mkdirSync(join(d, "cp_001.yaml")); // a directory where a checkpoint file was: unlink fails
    const r = await run(["prune", "--keep", "1", "--state-dir", dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^unexpected error: EISDIR: /);
    expect(r.err).not.toMatch(/EISDIR EISDIR/);
  });

  it("extra positional arguments are rejected (exit 2), not ignored", async () => {
    const dir = stateDir();
    for (const cmd of ["list", "status", "verify", "prune"]) {
      const r = await run([cmd, "cp_001", "--state-dir", dir]);
      expect({ cmd, code: r.code }).toEqual({ cmd, code: 2 });
      expect(r.err).toContain(`${cmd} takes no arguments`);
    }
  });

  it("show/restore of a file outside the state dir never echoes its bytes", async () => {
    const dir = stateDir();
    await writeN(dir, 1);
    const outside = stateDir();
    const cases = {
      "plain.txt": "vm-hostname-SECRETBYTES",
      "shadow.yaml": "root:SECRETBYTES:19000:0:99999:7:::\nfoo: [bar\n",
      "schema.yaml": "schema: SECRETBYTES\nmeta: SECRETBYTES\n",
      "map.yaml": "a: SECRETBYTES\n",
    };
    for (const [name, text] of Object.entries(cases)) {
      writeFileSync(join(outside, name), text);
      for (const cmd of ["show", "restore"]) {
        const r = await run([cmd, join(outside, name), "--state-dir", dir]);
        expect(r.code).toBe(1);
        expect(r.err).toContain(join(outside, name));
        expect(r.err).not.toContain("SECRETBYTES");
        expect(r.err).not.toContain("vm-hostname");
      }
    }
    // inside the state dir the full diagnosis stays (the file is a checkpoint, already redacted)
    writeFileSync(join(checkpointSessionDir(dir, KEY), "cp_001.yaml"), "schema: wrong\n");
    const inside = await run(["show", join(checkpointSessionDir(dir, KEY), "cp_001.yaml"), "--state-dir", dir]);
    expect(inside.err).toContain("schema");
  });

  it("a retention failure (EISDIR) is logged by the engine", async () => {
    const dir = stateDir();
    const { engine, warnings } = makeEngine({ stateDir: dir, sessionKey: KEY, config: { retention: 1 } });
    const messages = [userMsg("one"), assistantMsg("ok")];
    await engine.onContext(messages, undefined);
    expect(await engine.onBeforeCompact(compactEvent(5000, { messages }), "/w")).not.toBeNull();
    const d = checkpointSessionDir(dir, KEY);
    // a directory where cp_001.yaml was: retention (keep 1) must delete it and cannot
    unlinkSync(join(d, "cp_001.yaml"));
    mkdirSync(join(d, "cp_001.yaml"));
    messages.push(userMsg("two"), assistantMsg("ok"));
    await engine.onContext(messages, undefined);
    expect(await engine.onBeforeCompact(compactEvent(6000, { messages }), "/w")).not.toBeNull();
    expect(warnings.some((w) => /checkpoint retention failed .*EISDIR/.test(w)), warnings.join("\n")).toBe(true);
  });
});

describe.skipIf(process.platform === "win32")("verify with a FIFO planted as the pointer", () => {
  it("reports it as not a regular file instead of hanging on the read", async () => {
    const dir = stateDir();
    await writeN(dir, 1);
    const pointer = join(checkpointSessionDir(dir, KEY), "_latest.json");
    unlinkSync(pointer);
    execFileSync("mkfifo", [pointer]);
    const r = await run(["verify", "--state-dir", dir]);
    expect(r.code).toBe(1);
    expect(r.out + r.err).toMatch(/_latest\.json: not a regular file/);
  });
});
