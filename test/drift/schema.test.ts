/** The optional `workspace` block through the real store: written, read back exactly, validated, absent stays absent. */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { parseCheckpoint, serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { readLatestCheckpoint } from "../../src/agents/checkpoint/files.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import type { WorkspaceSnapshot } from "../../src/agents/checkpoint/schema.js";
import { makeCheckpoint, makeDraft, makeTempDir, removeDir } from "../checkpoint/helpers.js";

const WS: WorkspaceSnapshot = {
  cwd: "/home/u/project with space",
  files: [
    { path: "src/a.ts", state: "present", size: 21, mtime_ms: 1_763_900_000_123, hash: `sha1:${"a".repeat(40)}`, hash_scope: "full" },
    { path: "big.bin", state: "present", size: 10_000_000, mtime_ms: 1_763_900_000_000, hash: `sha1:${"b".repeat(40)}`, hash_scope: "sampled" },
    { path: "gone.txt", state: "missing", size: null, mtime_ms: null, hash: null, hash_scope: "none" },
    { path: "true", state: "other", size: null, mtime_ms: null, hash: null, hash_scope: "none" },
  ],
  files_omitted: 3,
  git: { branch: "feature/x", head: "c".repeat(40), dirty: null },
};

let dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs) await removeDir(d);
  dirs = [];
});

describe("checkpoint.workspace", () => {
  it("round-trips through the store and the YAML file", async () => {
    const stateDir = await makeTempDir();
    dirs.push(stateDir);
    const r = await writeCheckpoint({ stateDir }, { ...makeDraft(), workspace: WS });
    expect(r.written).toBe(true);
    const back = await readLatestCheckpoint({ stateDir }, "telegram:user123");
    expect(back!.workspace).toEqual(WS);
    if (r.written) expect(readFileSync(r.path, "utf8")).toContain('path: "true"');
  });

  it("a checkpoint without it reads back without it; a git-less workspace keeps git: null", () => {
    const plain = makeCheckpoint();
    expect(parseCheckpoint(serializeCheckpoint(plain), "cp_003.yaml")).not.toHaveProperty("workspace");
    const noGit = { ...plain, workspace: { ...WS, git: null } };
    expect(parseCheckpoint(serializeCheckpoint(noGit), "cp_003.yaml").workspace).toEqual({ ...WS, git: null });
  });

  it.each([
    [{ ...WS, cwd: 7 }, "workspace.cwd"],
    [{ ...WS, files: [{ ...WS.files[0], state: "gone" }] }, "workspace.files[0].state"],
    [{ ...WS, files: [{ ...WS.files[0], size: -1 }] }, "workspace.files[0].size"],
    [{ ...WS, files: [{ ...WS.files[0], hash: "md5:x" }] }, "workspace.files[0].hash"],
    [{ ...WS, files_omitted: undefined }, "workspace.files_omitted"],
    [{ ...WS, git: { ...WS.git, head: "HEAD" } }, "workspace.git.head"],
    [{ ...WS, git: { ...WS.git, dirty: "yes" } }, "workspace.git.dirty"],
  ])("rejects a bad field, naming it (%#)", (workspace, field) => {
    const cp = { ...makeCheckpoint(), workspace } as never;
    expect(() => serializeCheckpoint(cp)).toThrow(new RegExp(`cp_003\\.yaml: ${field.replace(/[.[\]]/g, "\\$&")}: expected`));
  });
});
