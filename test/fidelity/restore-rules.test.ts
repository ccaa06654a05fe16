/**
 * The capture and render rules of issue 10 on REAL transcripts: the transcript is fed to a
 * real ContextState as the extension would (tool_result events with the call's arguments,
 * context events with the message prefix), a checkpoint is built and rendered at many cut
 * points, and the rendered text is scored by fidelity v2 (independent ground truth from the
 * transcript). Plus the single rules on small inputs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { blocksAt as feedAndRender } from "../../src/replay/block-at.js";
import { commandFamily, informativeErrorLine, isEmptySearch, changeGist } from "../../src/agents/messages/tool-outcome.js";
import { userText } from "../../src/agents/messages/read.js";
import { fidelityV2, type RecordedMsg } from "../../src/replay/fidelity-v2.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";
import { readTranscriptJson } from "../helpers/transcripts.js";

const LONG = ["badlogic__pi-mono__large-session.json", "badlogic__pi-mono__before-compaction.json", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.json"];
const root = mkdtempSync(join(tmpdir(), "cm-rules-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Msg = RecordedMsg & { toolCallId?: string; toolName?: string; isError?: boolean };

/** Feeds the transcript to a real ContextState (src/replay/block-at.ts) and renders the block at each cut. */
async function blocksAt(file: string, cuts: number[]): Promise<Array<{ cut: number; text: string; cp: Checkpoint }>> {
  const messages = readTranscriptJson<Msg[]>(file);
  const out = await feedAndRender(messages, cuts, mkdtempSync(join(root, "s-")));
  return out.map((b) => ({ cut: b.cut, text: b.text, cp: b.checkpoint }));
}

describe("restore block rules on real transcripts (fidelity v2 on the rendered text)", () => {
  for (const file of LONG) {
    it(`${file}: every modified file (≤30) in the text, no stale next action, last 3 requests, ≤800 tokens, listed failures unresolved`, async () => {
      const messages = readTranscriptJson<Msg[]>(file);
      const cuts = Array.from({ length: 12 }, (_, i) => Math.round(((i + 1) * messages.length) / 12));
      let listed = 0;
      let unresolved = 0;
      for (const { cut, text } of await blocksAt(file, cuts)) {
        const v = fidelityV2(messages, cut, text);
        if (v.modifiedFiles.expected <= 30) expect(v.modifiedFiles.missing, `cut ${cut}`).toEqual([]);
        else expect(v.modifiedFiles.recall).toBeGreaterThanOrEqual(0.9);
        expect(v.nextAction.stale, `cut ${cut}: ${v.nextAction.text}`).toBe(false);
        expect(v.lastRequests.missing, `cut ${cut}`).toEqual([]);
        expect(v.tokens).toBeLessThanOrEqual(800);
        listed += v.failures.listed;
        unresolved += v.failures.unresolved;
      }
      if (listed > 0) expect(unresolved / listed).toBeGreaterThanOrEqual(0.9);
    }, TEST_TIMEOUT_MS);
  }

  it("large-session: a grep that found nothing is not an open failure; the failed npm check is closed by a later success", async () => {
    const [b] = await blocksAt("badlogic__pi-mono__large-session.json", [330]);
    const failures = b!.cp.work!.open_failures;
    expect(failures.some((f) => f.target.startsWith("grep") && /exit code 1|^$/.test(f.error))).toBe(false);
    // the history still has the real failures (thread.errors), the open list only the unresolved ones
    expect(b!.cp.thread.errors.length).toBeGreaterThanOrEqual(failures.length);
  });

  it("marot: host-injected tagged blocks (<local-command-caveat>, <command-name>, <local-command-stdout>) are not the user's request", async () => {
    const [b] = await blocksAt("marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.json", [300]);
    expect(b!.cp.working.topic).toBe("continue implementation");
    expect(b!.text).not.toContain("local-command");
    expect(b!.text).not.toContain("Caveat: The messages below");
    // the goal (first request) is kept
    expect(b!.text).toContain('Goal (first request): "Work on bead spotter-4te.');
  });
});

describe("single rules", () => {
  it("a <task-notification> block is not the user's text; text around it stays", () => {
    const msg = (content: string) => ({ role: "user", content, timestamp: 0 }) as AgentMessage;
    expect(userText(msg("<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n</task-notification>"))).toBe("");
    expect(userText(msg("<system-reminder>x</system-reminder>\nplease fix the test"))).toBe("please fix the test");
    expect(userText(msg("use <b>bold</b> here"))).toBe("use <b>bold</b> here");
  });

  it("the most informative error line, not the first", () => {
    const gitPush = "To github.com:x/y.git\nFrom https://github.com/x/y\nfatal: The current branch feat has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feat\n\n\nCommand exited with code 128";
    expect(informativeErrorLine(gitPush, 160)).toBe("fatal: The current branch feat has no upstream branch.");
    const npm = "\n> pi-monorepo@0.0.3 check\n> biome check --write .\n\nsrc/a.ts(532,34): error TS2339: Property 'tokens' does not exist on type 'X'.\n\nCommand exited with code 2";
    expect(informativeErrorLine(npm, 200)).toBe("src/a.ts(532,34): error TS2339: Property 'tokens' does not exist on type 'X'.");
    const py = 'Traceback (most recent call last):\n  File "r.py", line 17, in <module>\n    x()\nAttributeError: \'Dataset\' object has no attribute \'PixelRepresentation\'';
    expect(informativeErrorLine(py, 200)).toMatch(/^AttributeError: /);
    expect(informativeErrorLine("Command exited with code 1", 100)).toBe("exit code 1");
    const node = `/r/node_modules/tsx/dist/register.cjs:3\n${"x=I(g.bg(\" Error: \"));".repeat(40)}\n\nError: Cannot find module './src/utils/config.js'\nRequire stack:\n    at node:internal/modules/cjs/loader:1241:15\n\nNode.js v23.4.0\n\nCommand exited with code 1`;
    expect(informativeErrorLine(node, 200)).toBe("Error: Cannot find module './src/utils/config.js'");
  });

  it("a bare error prefix names no cause: a heading is taken with the first source location after it", () => {
    // the shape of a pre-commit Dialyzer failure in the spotter transcript: its only prefixed line is `:error`
    const hook = "Pre-commit validation failed:\n[DIALYZER]\nTotal errors: 2\nlib/web/otel.ex:58:13:pattern_match\nThe pattern can never match the type.\n\nType:\n:error\n\nFix these issues before committing.";
    expect(informativeErrorLine(hook, 200)).toBe("Pre-commit validation failed: lib/web/otel.ex:58:13:pattern_match");
    expect(informativeErrorLine("ERROR\nFAILED", 200)).toBe("FAILED");
    expect(informativeErrorLine("FAILED tests/a.py::test_x - AssertionError\nERROR", 200)).toBe("FAILED tests/a.py::test_x - AssertionError");
  });

  it("a tool's JSON error object (OpenClaw's read tool) gives its message, not its first line", () => {
    const oc = JSON.stringify({ status: "error", tool: "read", error: "File not found: /ws/invoice.tsx. Did you mean: invoice.ts?" }, null, 2);
    expect(informativeErrorLine(oc, 200)).toBe("File not found: /ws/invoice.tsx. Did you mean: invoice.ts?");
    expect(informativeErrorLine(JSON.stringify({ error: { code: 7, message: "quota exceeded" } }), 200)).toBe("quota exceeded");
    // not an error object, or not JSON: read as lines
    expect(informativeErrorLine('{"status":"error","tool":"read"}', 200)).toBe('{"status":"error","tool":"read"}');
    expect(informativeErrorLine("{ broken json\nError: real cause }", 200)).toBe("Error: real cause }");
  });

  it("grep/rg exit 1 with empty output is an empty search; exit 2 or output is not", () => {
    expect(isEmptySearch("bash", { command: "grep -n foo a.ts" }, "(no output)\n\nCommand exited with code 1")).toBe(true);
    expect(isEmptySearch("bash", { command: "cd x && rg foo | head" }, "Command exited with code 1")).toBe(true);
    expect(isEmptySearch("bash", { command: "grep foo nope.ts" }, "grep: nope.ts: No such file or directory\n\nCommand exited with code 2")).toBe(false);
    expect(isEmptySearch("bash", { command: "npm test" }, "Command exited with code 1")).toBe(false);
  });

  it("command family: program + subcommand of the last step", () => {
    expect(commandFamily("cd /r && git push")).toBe("git push");
    expect(commandFamily("git push --set-upstream origin feat")).toBe("git push");
    expect(commandFamily('git add -A && git commit -m "feat: x\n\n- y; z"')).toBe("git commit");
    expect(commandFamily("cd /r && npm run check 2>&1 | tail -10")).toBe("npm run check");
  });

  it("change gist: the first telling differing line, or lines written", () => {
    expect(changeGist("edit", { path: "a", edits: [{ oldText: "a\n}\nreturn x / (n - 1);", newText: "a\n}\nreturn x / n;" }] })).toBe("return x / (n - 1); → return x / n;");
    expect(changeGist("edit", { path: "a", oldText: "import a;\n", newText: "import a;\nimport b from 'b';\n" })).toBe("+ import b from 'b';");
    expect(changeGist("write", { path: "a", content: "1\n2\n3\n" })).toBe("wrote 3 lines");
  });
});
