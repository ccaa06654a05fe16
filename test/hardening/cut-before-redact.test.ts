/**
 * Issue 28 (1): every place that cuts, folds or samples untrusted text redacts FIRST. A secret is
 * planted at every offset around each cut's bound (and at random offsets, fast-check), inside the
 * contexts it arrives in (a service-account JSON, an env assignment, a bare token after a newline),
 * and no 8-character piece of it may come out of the function the capture, archive, offload or
 * summary path calls. The functions are the real ones those paths call (no copies).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { backgroundWritesSettled } from "../../src/agents/engine/archive-hooks.js";
import { GIST, contentHeadTail, errorGist } from "../../src/agents/state/capture-rules.js";
import { proposalGist, summarizeToolCall } from "../../src/agents/state/capture-rules.js";
import { segmentsOf } from "../../src/agents/archive/segments.js";
import { agedArgMarker } from "../../src/agents/artifacts/offload.js";
import { previewParts } from "../../src/agents/artifacts/preview.js";
import { changeGist, commandFamily } from "../../src/agents/messages/tool-outcome.js";
import { collectToolFailures } from "../../src/agents/pi-embedded-runner/compaction-safeguard.js";
import { declaredNames } from "../../src/agents/state/declared-names.js";
import { boundedJson, safeGist } from "../../src/agents/text/gist.js";
import { redactSecrets } from "../../src/agents/text/redact.js";

const j = (...p: string[]): string => p.join("");
/** Fakes assembled at runtime (no literal in the repo looks like a key). */
const KEY_ID = j("3f9a1c7e5b2d8f4a", "6c0e9b1d7f3a5c8e", "2b4d6f90");
const SECRETS: ReadonlyArray<{ token: string; secret: string; wrap: (t: string) => string }> = [
  // the held-out class: a cloud service-account JSON's 40-hex key id
  { token: KEY_ID, secret: KEY_ID, wrap: (t) => `{"type": "service_account", "private_key_id": "${t}", "client_email": "ci@p.iam.example"}` },
  { token: j("ghp_", "Zq8Lm2Nx7Pv4Rt1Ks9Jd3Hf6Gb0Wc5Ya2Eu"), secret: "Zq8Lm2Nx7Pv4Rt1Ks9Jd3Hf6Gb0Wc5Ya2Eu", wrap: (t) => `\n${t}\n` },
  { token: j("glpat-", "xR7vK2mQ9pL4wN8sT1zY"), secret: "xR7vK2mQ9pL4wN8sT1zY", wrap: (t) => ` token ${t} ` },
  // after a newline: JSON quoting folds it into `\n`, gluing an `n` to the token
  { token: j("glpat-", "Lm2Nx7Pv4Rt1Ks9Jd3Hf"), secret: "Lm2Nx7Pv4Rt1Ks9Jd3Hf", wrap: (t) => `line\n${t}\nline` },
  { token: j("Hunter2", "Secr3tPw9"), secret: j("Hunter2", "Secr3tPw9"), wrap: (t) => ` GOOGLE_APPLICATION_CREDENTIALS_PASSWORD=${t} ` },
];

function leaked(out: string, secret: string): string | null {
  for (let i = 0; i + 8 <= secret.length; i++) {
    const at = out.indexOf(secret.slice(i, i + 8));
    if (at >= 0) return out.slice(Math.max(0, at - 40), at + 40);
  }
  return null;
}

const FILLS: ReadonlyArray<(n: number) => string> = [(n) => " ".repeat(n), (n) => "ab ".repeat(n).slice(0, n), (n) => "x".repeat(n)];
const tool = (text: string): AgentMessage => ({ role: "toolResult", toolCallId: "c", toolName: "bash", isError: true, content: [{ type: "text", text }], timestamp: 1 }) as AgentMessage;

/** Each cut site, the bounds it cuts at, and the function a real path calls there. */
const SITES: ReadonlyArray<{ name: string; bounds: number[]; run: (text: string) => string }> = [
  { name: "gist (safeGist: topics, exchanges, items, commands)", bounds: [GIST.name, GIST.change, GIST.item, GIST.report], run: (t) => [GIST.name, GIST.change, GIST.item].map((n) => safeGist(t, n)).join("|") },
  { name: "change line (edit, 48 per side, texts at 20,000)", bounds: [48, 96, 20_000], run: (t) => changeGist("edit", { oldText: `x\n${t}`, newText: `y\n${t} z` }) + changeGist("edit", { oldText: "a", newText: t }) },
  { name: "defined names (Markdown heading at 40)", bounds: [40], run: (t) => declaredNames(`# ${t.replace(/\n/g, " ")}\n`, "README.md").map((n) => safeGist(n, GIST.name)).join("|") },
  { name: "command family (60)", bounds: [60, 4000], run: (t) => commandFamily(`./deploy ${t}`) },
  { name: "error line (head/tail 4,000, line 320)", bounds: [160, 320, 4000], run: (t) => errorGist(contentHeadTail([{ type: "text", text: t }])) },
  { name: "tool-call summary (bounded JSON 480)", bounds: [120, 480], run: (t) => summarizeToolCall("upload", { content: t }).params_summary },
  { name: "decision proposal (last line tail 42)", bounds: [42, 55, 100], run: (t) => proposalGist(`line one\n${t}`) },
  { name: "aged argument hint (first line of 4,096)", bounds: [4096], run: (t) => agedArgMarker(t, "art_1") },
  { name: "compaction summary tool failures (240)", bounds: [240], run: (t) => collectToolFailures([tool(t)]).map((f) => f.text).join("") },
  {
    name: "archive chunks (2,000, tool args bounded JSON)",
    bounds: [2000],
    run: (t) => JSON.stringify(segmentsOf([{ role: "assistant", content: [{ type: "toolCall", id: "c", name: "w", arguments: { content: t } }], timestamp: 1 } as unknown as AgentMessage, { role: "user", content: t, timestamp: 2 } as AgentMessage])),
  },
  { name: "artifact preview (of the redacted payload)", bounds: [200, 400], run: (t) => { const p = previewParts(redactSecrets(t), 600); return `${p.head}\n${p.tail}`; } },
  { name: "bounded JSON alone (keys and values)", bounds: [64], run: (t) => boundedJson({ [t.slice(0, 200)]: t }, 64) },
];

describe("redaction comes before every cut (issue 28, class 1)", () => {
  for (const site of SITES) {
    it(`${site.name}: a secret at every offset across each bound leaks no 8 characters`, () => {
      for (const s of SECRETS) {
        const planted = s.wrap(s.token);
        for (const bound of site.bounds) {
          for (let back = -4; back <= planted.length + 4; back++) {
            for (const fill of FILLS) {
              const text = fill(Math.max(0, bound - back)) + planted + " and the rest";
              const bad = leaked(site.run(text), s.secret);
              if (bad !== null) throw new Error(`${site.name}: offset ${bound - back}, fill ${JSON.stringify(fill(3))}: …${bad}…`);
            }
          }
        }
      }
    });
  }

  it("random offsets, fills and sites (fast-check)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: SITES.length - 1 }), fc.integer({ min: 0, max: SECRETS.length - 1 }), fc.string({ maxLength: 600 }), fc.string({ maxLength: 80 }), (si, ki, before, after) => {
        const s = SECRETS[ki]!;
        // the planted secret sits inside its context; fast-check's filler may not open a quote or glue a letter to it
        const text = `${before.replace(/[A-Za-z0-9_"'\\-]/g, " ")} ${s.wrap(s.token)} ${after}`;
        expect(leaked(SITES[si]!.run(text), s.secret)).toBeNull();
      }),
      { numRuns: 400, seed: 28 },
    );
  });
});

describe("through the engine: a service-account JSON in an edit, a heading and tool arguments (issue 28, class 1)", () => {
  it("no 8 characters of the key id or a token reach a state file, a checkpoint or the restore block", async () => {
    const { makeEngine, tempDir, rmDir, readAllFiles, userMsg, toolCallMsg, toolResultMsg, compactEvent } = await import("./helpers.js");
    const { readCheckpointsOnDisk } = await import("../helpers/checkpoints.js");
    const { renderCheckpointRestore } = await import("../../src/agents/inject/render-restore.js");
    const KEY = "agent:main:test:direct:sa";
    const gl = SECRETS[3]!; // the GitLab token after a newline
    // the key id straddles the 20,000-char bound of the change line; the heading's token straddles its 40-char cut
    for (const back of [5, 12, 20, 31]) {
      const stateDir = tempDir("cm-sa-");
      try {
        const { engine } = makeEngine({ stateDir, sessionKey: KEY });
        const sa = `{"type": "service_account", "private_key_id": "${KEY_ID}", "client_email": "ci@p.iam.example"}`;
        const at = 20_000 - (sa.indexOf(KEY_ID) + KEY_ID.length - back);
        await engine.onToolResult({ toolName: "edit", input: { path: "sa.json", edits: [{ oldText: "{}", newText: `${" ".repeat(at)}${sa}` }] }, content: [{ type: "text", text: "ok" }], isError: false }, "/w");
        await engine.onToolResult({ toolName: "write", input: { path: "NOTES.md", content: `# rotate ${"k".repeat(Math.max(1, 30 - back))} ${gl.token}\n` }, content: [], isError: false }, "/w");
        const messages = [userMsg("rotate the key"), toolCallMsg("c1", "upload", { content: `line\n${gl.token}\nline` })];
        await engine.onContext(messages, undefined);
        await engine.onBeforeCompact(compactEvent(5000, { messages }), "/w");
        await engine.flushNow();
        await backgroundWritesSettled(); // the checkpoint's knowledge records are searched too
        const texts = readAllFiles(`${stateDir}/context`).map(([, t]) => t);
        for (const cp of readCheckpointsOnDisk(stateDir, KEY)) texts.push(renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: 800 }).text);
        expect(texts.length).toBeGreaterThan(1);
        for (const t of texts) {
          expect(leaked(t, KEY_ID)).toBeNull();
          expect(leaked(t, gl.secret), t.slice(0, 3000)).toBeNull();
        }
      } finally {
        rmDir(stateDir);
      }
    }
  });
});
