/**
 * Issue 28 (5): the right to forget, through the real CLI (runCli) over data the engine, the
 * archive hook and the artifact store wrote: `forget <key>` (and --dry-run), `artifact rm`,
 * `archive rm`, `archive prune`, and the idle sweep that a session start runs.
 */
import { existsSync, readdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";
import { archiveMessages } from "../../src/agents/engine/archive-hooks.js";
import { resetIdleSweepForTest } from "../../src/agents/archive/forget.js";
import { pruneArchives } from "../../src/agents/archive/forget.js";
import { ARCHIVE_FILE, archiveDir } from "../../src/agents/archive/store.js";
import { blobPath, refsPath, stashArtifact } from "../../src/agents/artifacts/store.js";
import { checkpointSessionDir, stateSessionDir } from "../../src/infra/session-dir.js";
import { assistantMsg, compactEvent, makeEngine, rmDir, tempDir, userMsg } from "../hardening/helpers.js";

const A = "agent:main:telegram:direct:forget-me";
const B = "agent:main:telegram:direct:keep-me";

function cli() {
  const lines: string[] = [];
  const warns: string[] = [];
  const json: unknown[] = [];
  return { lines, warns, json, out: { line: (t: string) => void lines.push(t), warn: (t: string) => void warns.push(t), json: (v: unknown) => void json.push(v) } };
}

async function sessionWithEverything(stateDir: string, key: string, words: string) {
  const { engine } = makeEngine({ stateDir, sessionKey: key });
  const messages = [userMsg(`please ${words}`), assistantMsg(`done: ${words}`)];
  await engine.onContext(messages, undefined);
  expect(await engine.onBeforeCompact(compactEvent(5000, { messages }), "/w")).not.toBeNull();
  expect(await archiveMessages(engine, messages)).not.toBeNull();
  await engine.flushNow();
  return engine;
}

describe("the right to forget (issue 28, class 5)", () => {
  it("forget <key>: --dry-run removes nothing; then the key's checkpoints, state, archive and its own artifacts go, a shared artifact and the other key stay", async () => {
    const stateDir = tempDir("cm-forget-");
    try {
      await sessionWithEverything(stateDir, A, "rotate the pasted key");
      await sessionWithEverything(stateDir, B, "fix the parser");
      const own = stashArtifact(stateDir, { text: "output only A saw\n".repeat(50), sessionKey: A }).receipt.handle;
      const shared = stashArtifact(stateDir, { text: "output both saw\n".repeat(50), sessionKey: A }).receipt.handle;
      stashArtifact(stateDir, { text: "output both saw\n".repeat(50), sessionKey: B });
      const hex = (h: string) => h.slice(-64);
      const aPaths = [checkpointSessionDir(stateDir, A), stateSessionDir(stateDir, A), join(archiveDir(stateDir, A), ARCHIVE_FILE), refsPath(stateDir, A), blobPath(stateDir, hex(own))];
      for (const p of aPaths) expect(existsSync(p)).toBe(true);

      const dry = cli();
      expect(await runCli(["forget", A, "--dry-run", "--state-dir", stateDir], dry.out)).toBe(0);
      expect(dry.lines.join("\n")).toContain("would remove");
      expect(dry.lines.join("\n")).toContain("1 only this key refers to");
      for (const p of aPaths) expect(existsSync(p)).toBe(true);

      const real = cli();
      expect(await runCli(["forget", A, "--state-dir", stateDir, "--json"], real.out)).toBe(0);
      const report = real.json[0] as { artifacts: { removed: string[]; kept_shared: number } };
      expect(report.artifacts.removed).toEqual([own]);
      expect(report.artifacts.kept_shared).toBe(1);
      for (const p of aPaths) expect(existsSync(p)).toBe(false);
      expect(existsSync(blobPath(stateDir, hex(shared)))).toBe(true);
      for (const p of [checkpointSessionDir(stateDir, B), stateSessionDir(stateDir, B), join(archiveDir(stateDir, B), ARCHIVE_FILE), refsPath(stateDir, B)]) expect(existsSync(p)).toBe(true);
      // the CLI no longer lists A; B still restores
      const list = cli();
      await runCli(["list", "--state-dir", stateDir], list.out);
      expect(list.lines.join("\n")).not.toContain("forget-me");
      expect(list.lines.join("\n")).toContain("keep-me");
    } finally {
      rmDir(stateDir);
    }
  });

  it("artifact rm <handle> and archive rm --session-key K delete now; archive prune drops what is past the retention", async () => {
    const stateDir = tempDir("cm-forget-rm-");
    try {
      await sessionWithEverything(stateDir, B, "the build");
      const h = stashArtifact(stateDir, { text: "pasted by mistake\n".repeat(40), sessionKey: B }).receipt.handle;
      const c = cli();
      expect(await runCli(["artifact", "rm", h, "--state-dir", stateDir], c.out)).toBe(0);
      expect(existsSync(blobPath(stateDir, h.slice(-64)))).toBe(false);
      expect(await runCli(["artifact", "rm", h, "--state-dir", stateDir], cli().out)).toBe(1);
      expect(await runCli(["artifact", "rm", "not-a-handle", "--state-dir", stateDir], cli().out)).toBe(2);

      // prune: nothing is past 30 days; a clock 31 days ahead finds every record past it
      const p = cli();
      expect(await runCli(["archive", "prune", "--state-dir", stateDir], p.out)).toBe(0);
      expect(existsSync(join(archiveDir(stateDir, B), ARCHIVE_FILE))).toBe(true);
      const ahead = await pruneArchives(stateDir, { retentionDays: 30, now: Date.now() + 31 * 24 * 3600 * 1000, dryRun: true });
      expect(ahead.archives.map((a) => a.removed)).toEqual([true]);

      const r = cli();
      expect(await runCli(["archive", "rm", "--session-key", B, "--state-dir", stateDir], r.out)).toBe(0);
      expect(existsSync(archiveDir(stateDir, B))).toBe(false);
      expect(await runCli(["archive", "rm", "--session-key", B, "--state-dir", stateDir], cli().out)).toBe(1);
    } finally {
      rmDir(stateDir);
    }
  });

  it("the idle sweep: a session start removes another key's archive not written for longer than archiveRetentionDays", async () => {
    const stateDir = tempDir("cm-forget-idle-");
    try {
      await sessionWithEverything(stateDir, A, "an old task");
      await sessionWithEverything(stateDir, B, "a recent task");
      const old = (Date.now() - 40 * 24 * 3600 * 1000) / 1000;
      utimesSync(join(archiveDir(stateDir, A), ARCHIVE_FILE), old, old);
      resetIdleSweepForTest();
      // a new session's engine starts the sweep (background, once a day per process)
      makeEngine({ stateDir, sessionKey: "agent:main:telegram:direct:new" });
      for (let i = 0; i < 1000 && existsSync(archiveDir(stateDir, A)); i++) await new Promise((r) => setTimeout(r, 10));
      expect(existsSync(archiveDir(stateDir, A))).toBe(false);
      expect(existsSync(join(archiveDir(stateDir, B), ARCHIVE_FILE))).toBe(true);
      expect(readdirSync(checkpointSessionDir(stateDir, A)).length).toBeGreaterThan(0); // the sweep is the archive's retention only
    } finally {
      rmDir(stateDir);
    }
  });
});
