/**
 * `openclaw-context artifact …` on a real state dir: stash → fetch/peek/list with JSON
 * receipts, strict handles as one clear line (exit 2), and gc tied to checkpoint
 * retention (kept while a kept checkpoint or a live session names the handle).
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { blobPath, refsPath } from "../../src/agents/artifacts/store.js";
import { runCli } from "../../src/cli/main.js";
import { makeDraft } from "../checkpoint/helpers.js";
import { cli, STACK_TRACE_RE, type RunResult } from "../cli/run.js";

async function inProcess(args: string[]): Promise<RunResult> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    line: (t) => void (stdout += `${t}\n`),
    json: (v) => void (stdout += `${JSON.stringify(v)}\n`),
    warn: (t) => void (stderr += `openclaw-context: ${t}\n`),
  });
  return { code, stdout, stderr };
}

const json = (r: RunResult) => JSON.parse(r.stdout) as Record<string, unknown>;
const LOG = Array.from({ length: 900 }, (_, i) => `row ${i + 1} ${i === 444 ? "MIDDLE-MARKER" : "value"}`).join("\n");

describe("artifact CLI", () => {
  let root: string;
  let state: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "cm-artcli-"));
    state = join(root, "state");
    writeFileSync(join(root, "out.log"), LOG);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("stash, fetch, peek and list, through the bin shim, with the seed's receipts", async () => {
    const stash = await cli(["artifact", "stash", join(root, "out.log"), "--tool", "bash", "--session-key", "k1", "--state-dir", state, "--json"]);
    expect(stash.stderr).toBe("");
    expect(stash.code).toBe(0);
    const receipt = json(stash);
    expect(receipt).toMatchObject({ schema: "openclaw-mem.artifact.stash.v1", bytes: LOG.length, kind: "tool_output", meta: { tool: "bash", sessionKey: "k1" } });
    const handle = receipt.handle as string;
    expect(handle).toMatch(/^ocm_artifact:v1:sha256:[0-9a-f]{64}$/);

    const fetch = await cli(["artifact", "fetch", handle, "--mode", "grep", "--pattern", "MIDDLE", "--context", "1", "--state-dir", state, "--json"]);
    expect(fetch.code).toBe(0);
    expect(json(fetch)).toMatchObject({ schema: "openclaw-mem.artifact.fetch.v1", handle, selector: { mode: "grep", maxChars: 8000, pattern: "MIDDLE", context: 1 } });
    expect(json(fetch).text).toContain("445: row 445 MIDDLE-MARKER");

    const range = await inProcess(["artifact", "fetch", handle, "--start-line", "10", "--end-line", "11", "--state-dir", state]);
    expect(range.stdout).toContain("10: row 10 value\n11: row 11 value");

    const peek = json(await inProcess(["artifact", "peek", handle, "--state-dir", state, "--json"]));
    expect(peek).toMatchObject({ schema: "openclaw-context.artifact.peek.v1", lines: 900, contentType: "text" });
    expect((peek.preview as { head: string }).head.startsWith("row 1 value")).toBe(true);

    const list = json(await inProcess(["artifact", "list", "--session-key", "k1", "--state-dir", state, "--json"]));
    expect((list.artifacts as unknown[]).length).toBe(1);
    expect(json(await inProcess(["artifact", "list", "--session-key", "other", "--state-dir", state, "--json"])).artifacts).toEqual([]);
  });

  it("malformed, truncated, uppercase and traversal handles: one clear line, exit 2, no stack", async () => {
    const { stdout } = await inProcess(["artifact", "stash", join(root, "out.log"), "--state-dir", state]);
    const handle = stdout.split(" ")[0]!;
    const cases: Array<[string, RegExp]> = [
      [handle.slice(0, -3), /truncated \(61 of 64/],
      [handle.toUpperCase(), /prefix is lowercase/],
      [handle.replace(/[0-9a-f]{64}$/, (h) => h.toUpperCase()), /lowercase hex/],
      ["ocm_artifact:v1:sha256:../../../../../../etc/passwd", /only 0-9 and a-f/],
      ["../state/context/artifacts", /not an artifact handle/],
    ];
    for (const [bad, reason] of cases) {
      const r = await inProcess(["artifact", "fetch", bad, "--state-dir", state]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(reason);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
    const child = await cli(["artifact", "peek", "ocm_artifact:v1:sha256:zz", "--state-dir", state]);
    expect(child.code).toBe(2);
    expect(child.stderr).not.toMatch(STACK_TRACE_RE);
    const missing = await inProcess(["artifact", "fetch", `ocm_artifact:v1:sha256:${"0".repeat(64)}`, "--state-dir", state]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no artifact .* \(never stored, or removed by gc\)/);
    expect((await inProcess(["artifact", "fetch", handle, "--max-chars", "lots", "--state-dir", state])).code).toBe(2);
    expect((await inProcess(["artifact", "frobnicate", "--state-dir", state])).stderr).toMatch(/unknown artifact command/);
  });

  it("gc keeps what a kept checkpoint or the live session names, removes the rest", async () => {
    const stashOf = async (text: string, key: string) => {
      writeFileSync(join(root, "x.txt"), text);
      return json(await inProcess(["artifact", "stash", join(root, "x.txt"), "--session-key", key, "--state-dir", state, "--json"])).handle as string;
    };
    const old = (h: string) => {
      const t = new Date(Date.now() - 86_400_000);
      utimesSync(blobPath(state, h.slice(-64)), t, t);
    };
    // session A: 32 stashes, then a checkpoint naming only #0; all stashed before the checkpoint
    const a: string[] = [];
    for (let i = 0; i < 32; i++) a.push(await stashOf(`A-${i}\n`.repeat(400), "sess-A"));
    a.forEach(old);
    // back-date A's refs so they are older than its checkpoint
    const refs = refsPath(state, "sess-A");
    const { readFileSync } = await import("node:fs");
    writeFileSync(refs, readFileSync(refs, "utf8").replace(/^\S+/gm, new Date(Date.now() - 86_400_000).toISOString()));
    const draft = makeDraft({ sessionKey: "sess-A" });
    draft.open_items = [`look again at ${a[0]}`];
    await writeCheckpoint({ stateDir: state, retention: 5 }, draft);
    // session B: stashed, no checkpoint yet (live)
    const b = await stashOf("B\n".repeat(500), "sess-B");
    old(b);

    const dry = json(await inProcess(["artifact", "gc", "--dry-run", "--state-dir", state, "--json"]));
    expect(dry).toMatchObject({ schema: "openclaw-context.artifact.gc.v1", dryRun: true, scanned: 33 });
    // A#0 by the checkpoint; A#2..#31 are A's last 30 stashes (pi's keep-recent tail); B is live; A#1 goes
    expect(dry.removed).toEqual([a[1]]);
    expect(dry.keptBecause).toEqual({ checkpoint: 1, liveSession: 31, young: 0 });
    expect((await inProcess(["artifact", "fetch", a[1]!, "--state-dir", state])).code).toBe(0);

    const real = json(await inProcess(["artifact", "gc", "--state-dir", state, "--json"]));
    expect(real.removed).toEqual([a[1]]);
    expect((await inProcess(["artifact", "fetch", a[1]!, "--state-dir", state])).code).toBe(1);
    expect((await inProcess(["artifact", "fetch", a[0]!, "--state-dir", state])).code).toBe(0);
    expect(readFileSync(refs, "utf8")).not.toContain(a[1]!.slice(-64));
    expect(checkpointSessionDir(state, "sess-A")).toBeTruthy();
  });
});
