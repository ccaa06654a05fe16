/** `status` and `restore` show a key's workspace drift (human and --json) from a real git repository. */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { recordWorkspace } from "../../src/agents/drift/record.js";
import { DRIFT_EXTRA_TITLE, DRIFT_TITLE } from "../../src/agents/drift/render.js";
import { runCli } from "../../src/cli/main.js";
import { makeDraft } from "../checkpoint/helpers.js";
import { cli } from "../cli/run.js";
import { type GitFixture, gitFixture } from "./git-fixture.js";

const KEY = "agent:main:cli:drift";

async function inProcess(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    line: (t) => void (stdout += `${t}\n`),
    json: (v) => void (stdout += `${JSON.stringify(v)}\n`),
    warn: (t) => void (stderr += `${t}\n`),
  });
  return { code, stdout, stderr };
}

describe("CLI drift", () => {
  let f: GitFixture;
  let stateDir: string;
  const args = () => ["--state-dir", stateDir, "--session-key", KEY];

  beforeAll(async () => {
    f = gitFixture({ "src/a.ts": "a\n", "src/b.ts": "b\n" }, "cm-cli-drift-");
    stateDir = join(f.root, "state");
    f.write("src/a.ts", "a2\n");
    const draft = makeDraft({ sessionKey: KEY, sessionId: "s1" });
    draft.resources.files_modified = ["src/a.ts", "src/b.ts"];
    draft.workspace = recordWorkspace(f.dir, draft.resources.files_modified)!;
    await writeCheckpoint({ stateDir }, draft);
  });
  afterAll(() => f?.cleanup());

  it("unchanged: one line saying so; --json says drifted false", async () => {
    const human = await inProcess(["status", ...args()]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/workspace: unchanged since the checkpoint \(2 files checked · git main@[0-9a-f]{7} dirty\)/);
    const json = JSON.parse((await inProcess(["status", "--json", ...args()])).stdout);
    expect(json.sessions[0].drift).toMatchObject({ recorded: true, drifted: false });
  });

  it("after an edit, a delete and a branch switch: status (human, --json via the bin) and restore say so", async () => {
    writeFileSync(join(f.dir, "src/a.ts"), "a3\n");
    rmSync(join(f.dir, "src/b.ts"));
    f.git("checkout", "-q", "-b", "other");
    const human = await inProcess(["status", ...args()]);
    expect(human.stdout).toContain(`  ${DRIFT_TITLE}`);
    expect(human.stdout).toContain('  - changed: "src/a.ts"');
    expect(human.stdout).toContain('  - deleted: "src/b.ts"');
    expect(human.stdout).toContain('  - git: branch "main" -> branch "other"; tree dirty');
    const bin = await cli(["status", "--json", ...args()]);
    expect(bin.code).toBe(0);
    const d = JSON.parse(bin.stdout).sessions[0].drift;
    expect(d).toMatchObject({ recorded: true, drifted: true });
    expect(d.report.files.map((x: { path: string; change: string }) => `${x.change}:${x.path}`)).toEqual(["changed:src/a.ts", "deleted:src/b.ts"]);
    expect(d.report.git.branch).toEqual({ from: "main", to: "other" });
    const restore = await inProcess(["restore", "--kind", "resume", ...args()]);
    expect(restore.stdout).toContain(DRIFT_EXTRA_TITLE);
    expect(restore.stdout).toContain('- "deleted: src/b.ts"');
  });

  it("a missing workspace is stated, not an error", async () => {
    rmSync(f.dir, { recursive: true, force: true });
    const human = await inProcess(["status", ...args()]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("the working directory");
    expect(human.stdout).toContain("no longer exists");
  });
});
