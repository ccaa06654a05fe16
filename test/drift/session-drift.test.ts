/**
 * Drift end to end through a real pi AgentSession (standalone mode, faux model) in a real git
 * repository: the compaction checkpoint records the workspace; the post-compaction block has no
 * drift section when nothing moved; after an edit outside the session and a branch switch, the
 * resume block of the next session says so, within the restore budget.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "@mariozechner/pi-ai";
import { RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "../../src/agents/inject/markers.js";
import { DRIFT_EXTRA_TITLE } from "../../src/agents/drift/render.js";
import { estimateTextTokens } from "../../src/agents/text/token-estimate.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { reply, requestTexts } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";

describe("workspace drift in a real pi session", () => {
  let s: Standalone;
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: s.cwd, encoding: "utf8" }).trim();

  beforeAll(async () => {
    s = await makeStandalone();
    s.agent.onSummarize(() => fauxAssistantMessage("## Goal\nsummary\n"));
    writeFileSync(join(s.cwd, "calc.ts"), "export const add = (a: number, b: number) => a - b;\n");
    git("init", "-q", "-b", "main");
    git("add", "-A");
    git("commit", "-q", "--no-gpg-sign", "-m", "initial");
  });
  afterAll(() => s?.cleanup());

  it("records, stays silent when nothing moved, and on resume tells an outside edit from the session's own later edit, and a branch switch", async () => {
    const session = await s.open();
    s.agent.queue(
      reply.tools(["edit", { path: "calc.ts", edits: [{ oldText: "a - b", newText: "a + b" }] }]),
      reply.tools(["write", { path: "notes.md", content: "- add() fixed\n" }]),
      reply.text("Fixed add() and wrote notes.md."),
    );
    await s.prompt(session, "Fix add() in calc.ts");
    await session.compact();
    const cps = readCheckpointsOnDisk(s.stateDir, `pi:${resolve(s.cwd)}`);
    const cp = cps.at(-1)!;
    expect(cp.meta.trigger).toBe("compaction");
    expect(cp.workspace?.cwd).toBe(s.cwd);
    expect(cp.workspace?.files.map((f) => [f.path, f.state])).toEqual([
      ["calc.ts", "present"],
      ["notes.md", "present"],
    ]);
    expect(cp.workspace?.git).toEqual({ branch: "main", head: git("rev-parse", "HEAD"), dirty: true });

    // post-compaction, nothing moved: no drift section; the session then edits notes.md again
    s.agent.queue(reply.tools(["write", { path: "notes.md", content: "- add() fixed\n- next: sub()\n" }]), reply.text("Continuing."));
    const before = s.agent.chatRequests.length;
    await s.prompt(session, "Where were we?");
    const post = requestTexts(s.agent.chatRequests[before]!).find((t) => t.startsWith(RESTORE_HEADER_POST_COMPACTION));
    expect(post).toBeDefined();
    expect(post).not.toContain(DRIFT_EXTRA_TITLE);
    session.dispose();

    // the world moves: an edit outside any session, a branch switch
    writeFileSync(join(s.cwd, "calc.ts"), readFileSync(join(s.cwd, "calc.ts"), "utf8") + "export const sub = (a: number, b: number) => a - b;\n");
    git("checkout", "-q", "-b", "feature");

    const next = await s.open();
    s.agent.queue(reply.text("Resuming."));
    const at = s.agent.chatRequests.length;
    await s.prompt(next, "Let's continue");
    const resume = requestTexts(s.agent.chatRequests[at]!).find((t) => t.startsWith(RESTORE_HEADER_RESUME))!;
    expect(resume).toContain(DRIFT_EXTRA_TITLE);
    expect(resume).toContain(`- "changed: calc.ts (not by the session), notes.md (by the session's later work)"`);
    expect(resume).toContain('- "git: branch main -> branch feature; tree dirty"');
    expect(estimateTextTokens(resume)).toBeLessThanOrEqual(s.config.restoreMaxTokens);
    expect(s.errors).toEqual([]);
    next.dispose();
  });
});
