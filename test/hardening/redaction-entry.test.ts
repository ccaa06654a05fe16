/**
 * Secrets are redacted where a string ENTERS the state, before any normalization or cut:
 * - a password in a URL given as a path (path normalization turns `://` into `:/`), in a
 *   compaction file list and in a tool's error line (pi's tools print the normalized path);
 * - a token cut by a bound (tool output at 4,000 chars, tool arguments at 480, assistant text
 *   at 200,000) leaves no piece of itself: the partial run is dropped, not kept.
 * Everything goes through the engine (capture), the checkpoint store (YAML on disk) and the
 * renderer; then every file under <stateDir>/context and the restore block are searched.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { renderCheckpointRestore } from "../../src/agents/inject/render-restore.js";
import { backgroundWritesSettled } from "../../src/agents/engine/archive-hooks.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { assistantMsg, compactEvent, makeEngine, readAllFiles, rmDir, tempDir, toolCallMsg, toolResultMsg, userMsg } from "./helpers.js";

const j = (...p: string[]) => p.join("");
const PW = j("Hunter2", "Secr3tPw");
const KEY = "agent:main:test:direct:entry";

/** Every 6-character piece of `secret` (a cut token must not leave even its first characters). */
function pieces(secret: string, n = 6): string[] {
  const out: string[] = [];
  for (let i = 0; i + n <= secret.length; i++) out.push(secret.slice(i, i + n));
  return out;
}

function expectAbsent(where: string, text: string, secret: string, n = 6): void {
  for (const p of pieces(secret, n)) {
    const at = text.indexOf(p);
    if (at >= 0) throw new Error(`${JSON.stringify(p)} of a secret leaked into ${where}: …${text.slice(Math.max(0, at - 60), at + 30)}…`);
  }
}

async function everything(stateDir: string, engine: ReturnType<typeof makeEngine>["engine"]): Promise<Array<[string, string]>> {
  await engine.flushNow();
  await backgroundWritesSettled(); // the knowledge records of the compaction's checkpoint too
  const out = readAllFiles(`${stateDir}/context`);
  for (const cp of readCheckpointsOnDisk(stateDir, KEY)) {
    out.push([`block of ${cp.meta.checkpoint_id}`, renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: 800 }).text]);
  }
  return out;
}

describe("redaction before normalization", () => {
  it("a password in a URL path argument, a compaction file list and a tool error line never reaches disk or the block", async () => {
    const stateDir = tempDir("cm-entry-");
    try {
      const { engine } = makeEngine({ stateDir, sessionKey: KEY });
      const cwd = "/work/project";
      const url = `https://deploy:${PW}@git.example.com/repo/file.txt`;
      await engine.onToolResult({ toolName: "read", input: { path: url }, content: [{ type: "text", text: "ok" }], isError: false }, cwd);
      await engine.onToolResult({ toolName: "write", input: { file_path: `@${url}` }, content: [], isError: false }, cwd);
      await engine.onToolResult(
        {
          toolName: "read",
          input: { path: `ftp://admin:${PW}@files.example.com/x` },
          // what pi's read tool prints: the path it resolved, `://` already normalized to `:/`
          content: [{ type: "text", text: `ENOENT: no such file or directory, open '${cwd}/ftp:/admin:${PW}@files.example.com/x'` }],
          isError: true,
        },
        cwd,
      );
      const messages: AgentMessage[] = [userMsg("fetch it"), toolCallMsg("c1", "read", { path: url }), toolResultMsg("c1", "read", "ok")];
      await engine.onContext(messages, undefined);
      const ev = compactEvent(5000, { messages });
      const ops = ev.preparation.fileOps as { read: Set<string>; written: Set<string>; edited: Set<string> };
      ops.read.add(url);
      ops.written.add(`sftp://root:${PW}@backup.example.com/dump.sql`);
      ops.edited.add(`${cwd}/https:/deploy:${PW}@git.example.com/repo/b.txt`);
      const cp = await engine.onBeforeCompact(ev, cwd);
      expect(cp).not.toBeNull();
      const files = await everything(stateDir, engine);
      expect(files.some(([p]) => p.endsWith(".yaml"))).toBe(true);
      for (const [p, text] of files) expectAbsent(p, text, PW);
      // the paths themselves are kept (redacted), not dropped
      const all = files.map(([, t]) => t).join("\n");
      expect(all).toContain("[REDACTED:url_password]@git.example.com");
      expect(all).toContain("backup.example.com/dump.sql");
    } finally {
      rmDir(stateDir);
    }
  });
});

const TOKENS = [
  j("sk-", "proj-", "Hx81Kq2LmZ7rT0pWv3Ny5Bc9"),
  j("ghp_", "Zq8Lm2Nx7Pv4Rt1Ks9Jd3Hf6Gb0Wc5Ya2Eu"),
  j("glpat-", "xR7vK2mQ9pL4wN8sT1zY"),
  j("https://deploy:", PW, "@git.example.com/x"),
  j("eyJhbGciOiJIUzI1NiJ9", ".eyJzdWIiOiIxMjM0NTY3ODkwIn0", ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV"),
];
/** The part of each token that identifies the credential (the prefix alone is public). */
const secretPart = (t: string): string => t.replace(/^(sk-proj-|ghp_|glpat-|https:\/\/deploy:)/, "").replace(/@git\.example\.com\/x$/, "");

describe("a token cut by a bound leaks nothing (fast-check)", () => {
  it("tool output cut at 4,000 chars, tool arguments cut at 480, assistant text cut at 200,000", async () => {
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOKENS),
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom("\n", " ", "\t"),
        async (token, back, pad) => {
          tried++;
          const stateDir = tempDir("cm-cut-");
          try {
            const { engine } = makeEngine({ stateDir, sessionKey: KEY });
            // the token starts `back` chars before the bound
            const errorText = pad.repeat(4000 - back) + token + " failed";
            await engine.onToolResult({ toolName: "bash", input: { command: "deploy" }, content: [{ type: "text", text: errorText }], isError: true }, "/w");
            const args = { pad: " ".repeat(Math.max(0, 480 - 17 - back)), key: token };
            const longText = "word ".repeat(40_000 - Math.ceil(back / 5)).slice(0, 200_000 - back - 1) + "\n" + token + " and more";
            const messages: AgentMessage[] = [
              userMsg("go"),
              toolCallMsg("c1", "deploy", args),
              toolResultMsg("c1", "deploy", "ok"),
              assistantMsg([{ type: "text", text: longText }]),
            ];
            await engine.onContext(messages, undefined);
            await engine.onBeforeCompact(compactEvent(5000, { messages }), "/w");
            for (const [p, text] of await everything(stateDir, engine)) expectAbsent(p, text, secretPart(token));
          } finally {
            rmDir(stateDir);
          }
        },
      ),
      { numRuns: 60, seed: 11 },
    );
    expect(tried).toBe(60);
  });

  it("a failing tool's output over 8,000 chars (head and tail windows of 4,000): a token across either window edge leaks nothing", async () => {
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOKENS),
        fc.constantFrom("head", "tail"),
        fc.integer({ min: 1, max: 60 }),
        async (token, edge, inside) => {
          tried++;
          const n = Math.min(inside, token.length - 1);
          const stateDir = tempDir("cm-cut-ht-");
          try {
            const { engine } = makeEngine({ stateDir, sessionKey: KEY });
            // the only non-blank text is the token, with `n` of its characters inside the window
            const output = edge === "head" ? " ".repeat(4000 - n) + token + " ".repeat(6000) : " ".repeat(6000) + token + " ".repeat(4000 - n);
            await engine.onToolResult({ toolName: "bash", input: { command: "deploy" }, content: [{ type: "text", text: output }], isError: true }, "/w");
            await engine.onBeforeCompact(compactEvent(5000, { messages: [userMsg("go")] }), "/w");
            for (const [p, text] of await everything(stateDir, engine)) expectAbsent(p, text, secretPart(token));
          } finally {
            rmDir(stateDir);
          }
        },
      ),
      { numRuns: 80, seed: 12 },
    );
    expect(tried).toBe(80);
  });
  it("an edit's change gist (48 per side), an error line (320), a command family (60): a token across the cut leaks nothing", async () => {
    let tried = 0;
    const words = (n: number) => "note ".repeat(Math.ceil(n / 5)).slice(0, n);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOKENS.slice(0, 3)),
        fc.constantFrom("edit", "error", "command"),
        fc.integer({ min: 1, max: 40 }),
        async (token, where, inside) => {
          tried++;
          const n = Math.min(inside, token.length - 1);
          const stateDir = tempDir("cm-cut-gist-");
          try {
            const { engine } = makeEngine({ stateDir, sessionKey: KEY });
            // `n` characters of the token fall inside the cut
            if (where === "edit") {
              const newText = `${words(48 - n - 1)} ${token} end`;
              await engine.onToolResult({ toolName: "edit", input: { path: "a.ts", edits: [{ oldText: "const a = 1;", newText }] }, content: [{ type: "text", text: "ok" }], isError: false }, "/w");
            } else if (where === "error") {
              const text = `Error: ${words(320 - 7 - n - 1)} ${token} failed`;
              await engine.onToolResult({ toolName: "bash", input: { command: "deploy" }, content: [{ type: "text", text }], isError: true }, "/w");
            } else {
              const prog = `tool${"z".repeat(Math.max(1, 60 - 4 - n - 1))}`;
              await engine.onToolResult({ toolName: "bash", input: { command: `${prog} ${token}` }, content: [{ type: "text", text: "done" }], isError: false }, "/w");
            }
            await engine.onBeforeCompact(compactEvent(5000, { messages: [userMsg("go")] }), "/w");
            for (const [p, text] of await everything(stateDir, engine)) expectAbsent(p, text, secretPart(token));
          } finally {
            rmDir(stateDir);
          }
        },
      ),
      { numRuns: 60, seed: 13 },
    );
    expect(tried).toBe(60);
  });
});
