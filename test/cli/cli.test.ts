/**
 * `openclaw-context` as a user runs it (node bin/openclaw-context.js, a child process) against
 * a state dir written by the real checkpoint store: every command's happy path, --json, and
 * bad input (unknown key, missing dir, corrupt files, unknown command) with one clear stderr
 * line, a non-zero exit and never a stack trace.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { runCli } from "../../src/cli/main.js";
import { makeDraft } from "../checkpoint/helpers.js";
import { cli, STACK_TRACE_RE, type RunResult } from "./run.js";

/** The same CLI in-process (fast) for the many small cases; child processes cover the shim. */
async function cliInProcess(args: string[]): Promise<RunResult> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    line: (t) => void (stdout += `${t}\n`),
    json: (v) => void (stdout += `${JSON.stringify(v, null, 2)}\n`),
    warn: (t) => void (stderr += `openclaw-context: ${t}\n`),
  });
  return { code, stdout, stderr };
}

const KEY = "agent:main:telegram:direct:42";
const OTHER = "agent:main:discord:group:7";

function oneCleanErrorLine(r: RunResult) {
  expect(r.code).not.toBe(0);
  expect(r.stderr).not.toMatch(STACK_TRACE_RE);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(/^openclaw-context: /);
}

describe("openclaw-context CLI", () => {
  let root: string;
  let state: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "cm-cli-"));
    state = join(root, "state");
    const opts = { stateDir: state };
    await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, trigger: "auto-80pct", inputTokens: 162_000 }));
    await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, trigger: "compaction", inputTokens: 164_000 }));
    await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, trigger: "compaction", inputTokens: 30_000 }));
    await writeCheckpoint(opts, makeDraft({ sessionKey: OTHER, trigger: "auto-80pct", inputTokens: 170_000 }));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("list, show, restore, status and verify on a healthy state dir", async () => {
    const s = ["--state-dir", state];
    const k = [...s, "--session-key", KEY];
    const [list, listJson, show, showN, showJson, post, resume, status, verify] = await Promise.all([
      cli(["list", ...s]),
      cliInProcess(["list", ...s, "--json"]),
      cli(["show", "cp_002", ...k]),
      cliInProcess(["show", "3", ...k]),
      cliInProcess(["show", join(checkpointSessionDir(state, KEY), "cp_001.yaml"), "--json"]),
      cli(["restore", "--kind", "post-compaction", ...k]),
      cliInProcess(["restore", "--kind", "resume", ...k, "--json"]),
      cli(["status", ...k]),
      cli(["verify", ...s]),
    ]);
    for (const r of [list, listJson, show, showN, showJson, post, resume, status, verify]) {
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
    }
    expect(list.stdout).toContain(KEY);
    expect(list.stdout).toContain(OTHER);
    expect(list.stdout).toMatch(/cp_001 +auto-80pct +2026-02-24T15:30:00.000Z +162000\/200000 tokens \(81%\)/);
    const lj = JSON.parse(listJson.stdout);
    const mine = lj.sessions.find((x: { session_key: string }) => x.session_key === KEY);
    expect(mine.checkpoints.map((c: { id: string }) => c.id)).toEqual(["cp_001", "cp_002", "cp_003"]);

    expect(show.stdout).toContain('checkpoint_id: "cp_002"');
    expect(show.stdout).toContain('previous_checkpoint: "cp_001"');
    expect(showN.stdout).toContain('checkpoint_id: "cp_003"');
    expect(JSON.parse(showJson.stdout).meta.checkpoint_id).toBe("cp_001");

    expect(post.stdout.startsWith("[Post-compaction checkpoint restore]")).toBe(true);
    expect(post.stdout).toContain("cp_003");
    const rj = JSON.parse(resume.stdout);
    expect(rj.text.startsWith("[Session resume checkpoint restore]")).toBe(true);
    expect(rj.checkpoint_id).toBe("cp_003");
    expect(rj.tokens).toBeLessThanOrEqual(800);

    expect(status.stdout).toContain("[Context: 81% | 30k/200k tokens]");
    expect(status.stdout).toMatch(/latest cp_003 · trigger compaction/);
    expect(status.stdout).toMatch(/2 decisions · 1 files read · 2 modified · 2 tools · 1 errors · 1 open items · 1 learnings/);

    expect(verify.stdout).toMatch(new RegExp(`^ok +${KEY} \\(3 checkpoints, latest cp_003\\)$`, "m"));
    expect(verify.stdout).toMatch(new RegExp(`^ok +${OTHER} `, "m"));
  });

  it("status --json and verify --json parse", async () => {
    const [status, verify] = await Promise.all([cliInProcess(["status", "--state-dir", state, "--json"]), cli(["verify", "--state-dir", state, "--json"])]);
    const sj = JSON.parse(status.stdout);
    expect(sj.sessions.map((x: { session_key: string }) => x.session_key).sort()).toEqual([OTHER, KEY].sort());
    expect(sj.sessions.find((x: { session_key: string }) => x.session_key === OTHER).gauge).toBe("[Context: 81% | 170k/200k tokens]");
    const vj = JSON.parse(verify.stdout);
    expect(vj.ok).toBe(true);
    expect(vj.problems).toBe(0);
  });

  it("prune keeps the newest N and the pruned chain still verifies", async () => {
    const dir = join(root, "prune");
    cpSync(state, dir, { recursive: true });
    const prune = await cli(["prune", "--keep", "1", "--state-dir", dir, "--session-key", KEY]);
    expect(prune.code).toBe(0);
    expect(prune.stdout).toContain("deleted cp_001, cp_002");
    const [list, verify] = await Promise.all([cliInProcess(["list", "--state-dir", dir, "--session-key", KEY, "--json"]), cliInProcess(["verify", "--state-dir", dir])]);
    expect(JSON.parse(list.stdout).sessions[0].checkpoints.map((c: { id: string }) => c.id)).toEqual(["cp_003"]);
    expect(verify.code).toBe(0);
  });

  it("bad input: unknown key, missing state dir, unknown command, bad flags", async () => {
    const [unknownKey, missingDir, unknownCmd, noCmd, badFlag, badKind, showNoKey, showMissing] = await Promise.all([
      cli(["list", "--state-dir", state, "--session-key", "agent:main:nobody"]),
      cli(["verify", "--state-dir", join(root, "does-not-exist")]),
      cli(["frobnicate", "--state-dir", state]),
      cliInProcess(["--state-dir", state]),
      cliInProcess(["list", "--state-dir", state, "--colour"]),
      cliInProcess(["restore", "--kind", "sideways", "--state-dir", state, "--session-key", KEY]),
      cliInProcess(["show", "cp_001", "--state-dir", state]),
      cliInProcess(["show", "cp_009", "--state-dir", state, "--session-key", KEY]),
    ]);
    for (const r of [unknownKey, missingDir, unknownCmd, noCmd, badFlag, badKind, showNoKey, showMissing]) oneCleanErrorLine(r);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toContain('no checkpoints for session key "agent:main:nobody"');
    expect(missingDir.code).toBe(1);
    expect(missingDir.stderr).toContain("state dir not found");
    expect(unknownCmd.code).toBe(2);
    expect(unknownCmd.stderr).toContain('unknown command "frobnicate"');
    expect(badFlag.code).toBe(2);
    expect(badKind.code).toBe(2);
    expect(showNoKey.code).toBe(2);
    expect(showNoKey.stderr).toContain("--session-key");
    expect(showMissing.code).toBe(1);
    expect(showMissing.stderr).toContain("cp_009.yaml: file not found");
  });

  it("a corrupt checkpoint and pointer: verify names each and exits 1, show prints one line", async () => {
    const dir = join(root, "corrupt");
    cpSync(state, dir, { recursive: true });
    const session = checkpointSessionDir(dir, KEY);
    writeFileSync(join(session, "cp_002.yaml"), "schema: [unterminated\n");
    const cp3 = readFileSync(join(session, "cp_003.yaml"), "utf8");
    writeFileSync(join(session, "cp_003.yaml"), cp3.replace('trigger: "compaction"', 'trigger: "whenever"'));
    writeFileSync(join(checkpointSessionDir(dir, OTHER), "_latest.json"), "{ not json");
    const [verify, verifyJson, show, restore] = await Promise.all([
      cli(["verify", "--state-dir", dir]),
      cliInProcess(["verify", "--state-dir", dir, "--json"]),
      cli(["show", "2", "--state-dir", dir, "--session-key", KEY]),
      cliInProcess(["restore", "--state-dir", dir, "--session-key", KEY]),
    ]);
    expect(verify.code).toBe(1);
    expect(verify.stderr).not.toMatch(STACK_TRACE_RE);
    expect(verify.stdout).toMatch(/problem: .*cp_002\.yaml: /);
    expect(verify.stdout).toMatch(/problem: .*cp_003\.yaml: meta\.trigger/);
    expect(verify.stdout).toMatch(/problem: .*_latest\.json: not valid JSON/);
    expect(verify.stdout).toMatch(new RegExp(`FAIL +${OTHER}`));
    const vj = JSON.parse(verifyJson.stdout);
    expect(vj.ok).toBe(false);
    expect(vj.problems).toBeGreaterThanOrEqual(3);

    oneCleanErrorLine(show);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain("cp_002.yaml");
    // restore falls back along the chain to the newest valid checkpoint, as the host would
    expect(restore.code).toBe(0);
    expect(restore.stdout).toContain("Checkpoint cp_001");
  });
});
