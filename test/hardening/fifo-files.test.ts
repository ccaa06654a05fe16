/**
 * A FIFO or a symlink to /dev/zero planted where the archive, the knowledge layer, the artifact
 * store or a checkpoint head is read back: refused unread (a FIFO's read blocks its thread forever,
 * a sync one the whole event loop; /dev/zero never ends). Each reader answers as for an unreadable
 * file, through the same entry points the agent and the CLI use.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionArchive } from "../../src/agents/archive/archive.js";
import { knowledgeFile, readKnowledge } from "../../src/agents/archive/knowledge-store.js";
import { appendToTail, archiveDir, readArchiveFile } from "../../src/agents/archive/store.js";
import { blobPath, metaPath, readArtifact, readArtifactMeta, refsPath, stashArtifact } from "../../src/agents/artifacts/store.js";
import { readCheckpointMeta } from "../../src/agents/checkpoint/sessions.js";
import { findGitRepo, readGitHead } from "../../src/agents/drift/git-index.js";
import { readLaterWork } from "../../src/agents/drift/record.js";
import { searchForAgent } from "../../src/agents/engine/archive-hooks.js";
import { BUNDLE_LOCK_FILE, acquireBundleLock } from "../../src/agents/state/previous-session.js";
import { NotAFileError } from "../../src/infra/regular-file.js";
import { nodeFsOps } from "../../src/infra/fs-ops.js";
import { ownCompactionView } from "../../src/openclaw-plugin/context-engine.js";
import { PluginSessionFile, SESSION_FILE, freshSessionData } from "../../src/openclaw-plugin/session-file.js";
import { stateSessionDir } from "../../src/infra/session-dir.js";
import { makeEngine, removeDirs, tempDir } from "./helpers.js";

const KEY = "agent:main:fifo";
const dirs: string[] = [];
afterAll(() => removeDirs(dirs));
const fresh = (): string => {
  const d = tempDir("cm-fifo-");
  dirs.push(d);
  return d;
};
/** Replaces `file` with a FIFO (no writer ever opens it) or a symlink to /dev/zero. */
function plant(file: string, kind: "fifo" | "zero"): void {
  mkdirSync(path.dirname(file), { recursive: true });
  rmSync(file, { force: true });
  if (kind === "fifo") execFileSync("mkfifo", [file]);
  else symlinkSync("/dev/zero", file);
}

describe.skipIf(process.platform === "win32")("a FIFO or /dev/zero where our files are read back", () => {
  for (const kind of ["fifo", "zero"] as const) {
    it(`${kind}: the archive's segments file: context_search says it could not be read, the reader refuses it`, async () => {
      const stateDir = fresh();
      const { engine } = makeEngine({ stateDir, sessionKey: KEY });
      const file = path.join(archiveDir(stateDir, KEY), "segments.jsonl");
      plant(file, kind);
      await expect(readArchiveFile(file)).rejects.toBeInstanceOf(NotAFileError);
      expect(await searchForAgent(engine.runtime, { query: "parseConfig" })).toBe("The archive could not be read right now.");
    });

    it(`${kind}: the saved search index: the archive rebuilds it from its records and finds them`, async () => {
      const stateDir = fresh();
      const limits = { maxSegments: 500, retentionDays: 30 };
      await appendToTail(stateDir, KEY, [{ role: "assistant", t: 1, text: "renamed parseConfig to loadSettings" }], { session: "s1", compaction: 1 }, limits);
      const archive = new SessionArchive(stateDir, KEY, limits);
      plant(archive.indexFile, kind);
      await archive.load();
      await archive.indexInBackground();
      expect(archive.search("loadSettings", { limit: 1 })[0]?.record.text).toContain("loadSettings");
    });

    it(`${kind}: the knowledge file reads as empty`, async () => {
      const stateDir = fresh();
      const file = knowledgeFile(stateDir, KEY);
      plant(file, kind);
      expect(await readKnowledge(file)).toEqual([]);
    });

    it(`${kind}: an artifact's blob and meta: artifact reads refuse them`, () => {
      const stateDir = fresh();
      const { receipt } = stashArtifact(stateDir, { text: "x".repeat(5000), kind: "tool_output" } as Parameters<typeof stashArtifact>[1]);
      const hex = receipt.sha256;
      plant(metaPath(stateDir, hex), kind);
      // the meta is rebuilt from the blob
      expect(readArtifactMeta(stateDir, receipt.handle).sha256).toBe(hex);
      plant(blobPath(stateDir, hex), kind);
      expect(() => readArtifact(stateDir, receipt.handle)).toThrow(NotAFileError);
    });

    it(`${kind}: a checkpoint file's head (session listing): a clear error`, () => {
      const stateDir = fresh();
      const file = path.join(stateDir, "cp_001.yaml");
      plant(file, kind);
      expect(() => readCheckpointMeta(file)).toThrow(/not a regular file/);
    });

    it(`${kind}: the session's resources state (drift's "changed later by this session"): unknown, no claim`, () => {
      const stateDir = fresh();
      plant(path.join(stateSessionDir(stateDir, KEY), "resources.json"), kind);
      expect(readLaterWork(stateDir, KEY, "s1", new Date(0).toISOString())).toBeNull();
    });

    it(`${kind}: a workspace's .git/HEAD (drift's branch check): branch and head unknown`, () => {
      const cwd = fresh();
      mkdirSync(path.join(cwd, ".git", "objects"), { recursive: true });
      mkdirSync(path.join(cwd, ".git", "refs"), { recursive: true });
      writeFileSync(path.join(cwd, ".git", "HEAD"), "ref: refs/heads/main\n");
      const repo = findGitRepo(cwd);
      expect(repo).not.toBeNull();
      plant(path.join(cwd, ".git", "HEAD"), kind);
      expect(readGitHead(repo!)).toEqual({ branch: null, head: null });
    });
    it(`${kind}: the bundle lock: taken as unusable (the bundle goes on unlocked), not read`, async () => {
      const dir = fresh();
      plant(path.join(dir, BUNDLE_LOCK_FILE), kind);
      const lock = await acquireBundleLock(nodeFsOps, dir, { waitMs: 0 });
      expect(lock.kind).toBe("unlocked");
    });

    it(`${kind}: the plugin's per-key files (session data, own-compaction view): read as absent`, async () => {
      const stateDir = fresh();
      const dir = stateSessionDir(stateDir, KEY);
      plant(path.join(dir, SESSION_FILE), kind);
      plant(path.join(dir, "own-compaction.json"), kind);
      expect(await new PluginSessionFile(stateDir, KEY).read()).toEqual(freshSessionData());
      expect(await ownCompactionView(stateDir, KEY, "s1")).toBeNull();
    });
    it(`${kind}: appending to the archive's segments file: refused (a write past a FIFO's buffer never returned)`, async () => {
      const stateDir = fresh();
      const limits = { maxSegments: 500, retentionDays: 30 };
      plant(path.join(archiveDir(stateDir, KEY), "segments.jsonl"), kind);
      const big = [{ role: "assistant" as const, t: 1, text: "x".repeat(200_000) }];
      await expect(appendToTail(stateDir, KEY, big, { session: "s1", compaction: 1 }, limits)).rejects.toBeInstanceOf(NotAFileError);
    });

    it(`${kind}: appending to a key's artifact refs log: refused, not a blocked event loop`, () => {
      const stateDir = fresh();
      plant(refsPath(stateDir, KEY), kind);
      expect(() => stashArtifact(stateDir, { text: "y".repeat(5000), kind: "tool_output", sessionKey: KEY } as Parameters<typeof stashArtifact>[1])).toThrow(NotAFileError);
    });
  }
});
