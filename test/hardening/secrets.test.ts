/**
 * No raw secret is ever persisted: each secret class is planted in user text, tool input
 * (a bash command, a write's content and path, an edit), tool output (a read result, error
 * messages) and assistant text; turns, an auto checkpoint, /compact and /new (whose first load
 * bundles the old session's uncheckpointed state into a checkpoint) run through the real runner; then EVERY file under
 * <stateDir>/context and every restore block is searched for every secret.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { backgroundWritesSettled } from "../../src/agents/engine/archive-hooks.js";
import { filler, type Host, makeHost, reply } from "../helpers/host.js";
import { assistantMsg, compactEvent, makeEngine, readAllFiles, rmDir, tempDir, toolCallMsg, toolResultMsg, usageAt, userMsg } from "./helpers.js";

// fake credentials, assembled at runtime so no literal in the repo looks like a real key
const j = (...p: string[]) => p.join("");
export const SECRETS: Record<string, string> = {
  openai: j("sk-", "proj-", "Hx81Kq2LmZ7rT0pWv3Ny5Bc9"),
  anthropic: j("sk-", "ant-", "api03-Qm7Zt2Xy9Lp4Vb8Nc1Rd6Hf3"),
  aws: j("AKIA", "ZX3Q7PL0MN4RT8VW"),
  ghp: j("ghp_", "Zq8Lm2Nx7Pv4Rt1Ks9Jd3Hf6Gb0Wc5Ya2Eu"),
  githubPat: j("github_pat_", "11AQZX3Q7PL0_Mn4Rt8Vw2Yb6Cd1Ef5Gh9Jk"),
  slack: j("xoxb-", "730194528361-5520981736402-Tq9Wm3Xz7Lp2"),
  bearer: j("eAq7", "Zt2Xy9Lp4Vb8Nc1Rd6Hf3Km0"),
  pemBody: j("MIIEpQIBAAKCAQEAz8Qv3", "Lm7Tp2Xk9Rw4Nb6Yc1Hd5Gf0Js8Ve3Ua"),
  hex: j("9f8e7d6c5b4a39281706f5e4", "d3c2b1a0ffeeddccbbaa9988"),
  base64: j("Qk9HVVMtU0VDUkVULUtFWS1", "NQVRFUklBTC05ODc2NTQzMjEwYWJj"),
  password: j("Hunter2", "Secr3tPw!x"),
};
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${SECRETS.pemBody}\nq2Fh3jg3gYFq8Kk7s7oJsx8m7T5rJ9zq\n-----END RSA PRIVATE KEY-----`;
const S = SECRETS as Record<keyof typeof SECRETS, string> & Record<string, string>;

/** One text holding every class, in the syntax each one is recognised in. */
export function allSecretsText(label: string): string {
  return [
    `${label}: key ${S.openai} and ${S.anthropic}`,
    `aws ${S.aws} gh ${S.ghp} pat ${S.githubPat} slack ${S.slack}`,
    `Authorization: Bearer ${S.bearer}`,
    PEM,
    `signing_key: ${S.hex} blob ${S.base64}`,
    `password=${S.password}`,
  ].join("\n");
}

/** Distinctive cores of each secret (a truncated secret must not survive either). */
function cores(secret: string): string[] {
  const body = secret.replace(/^(sk-ant-api03-|sk-proj-|github_pat_|ghp_|xoxb-)/, "");
  const out = [secret];
  for (let i = 0; i + 12 <= body.length; i += 6) out.push(body.slice(i, i + 12));
  return out;
}

export function expectNoSecret(where: string, text: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) {
    for (const core of cores(secret)) {
      if (text.includes(core)) throw new Error(`${name} secret leaked into ${where}: …${text.slice(Math.max(0, text.indexOf(core) - 80), text.indexOf(core) + 40)}…`);
    }
  }
}

describe("secrets through the real runner", () => {
  let host: Host;
  const restores: string[] = [];
  const KEY = "agent:main:telegram:direct:secret";

  beforeAll(async () => {
    host = await makeHost({ contextWindow: 16_000 });
    host.write("config.env", allSecretsText("config file"));
  });
  afterAll(() => host?.cleanup());

  it("plants every class in user text, tool input and output, runs turns, /compact and /new", async () => {
    const keyFile = `keys/${S.aws}-${S.ghp}.pem`;
    host.agent.queue(
      reply.tools(
        ["read", { path: "config.env" }],
        ["bash", { command: `echo ok && curl -H "Authorization: Bearer ${S.bearer}" https://example.invalid/?token=${S.slack} || true` }],
      ),
      reply.tools(
        ["write", { path: keyFile, content: PEM }],
        ["write", { path: "creds.txt", content: allSecretsText("write content") }],
      ),
      reply.tools(
        ["read", { path: `missing-${S.openai}.txt` }],
        ["bash", { command: `echo "password=${S.password} ${S.anthropic}" >&2; echo SESSION_SECRET=${S.hex} ${S.base64} >&2; exit 3` }],
        ["edit", { path: "creds.txt", edits: [{ oldText: "password", newText: `password=${S.password}x` }] }],
      ),
      reply.text(`Here is what I found:\n${allSecretsText("assistant")}\n- [ ] rotate ${S.ghp}`),
    );
    await host.runner.handleInbound(KEY, allSecretsText("user says"));

    // long answer + short reply with a secret: a decision point
    host.agent.queue(reply.text(`${filler("Long proposal", 700)}\nShall I use ${S.githubPat} for the push?`));
    await host.runner.handleInbound(KEY, "Plan the push");
    host.agent.queue(reply.text("ok"));
    await host.runner.handleInbound(KEY, `yes ${S.githubPat}`);

    // fill up to the auto checkpoint / auto compaction
    for (let i = 0; i < 12; i++) {
      host.agent.queue(reply.text(filler(`Answer ${i} ${S.openai}`, 2400)));
      const r = await host.runner.handleInbound(KEY, `${filler(`Question ${i}`, 1200)} ${S.bearer} password=${S.password}`);
      for (const c of r.compactions) if (c.restore) restores.push(c.restore.text);
    }
    const c = await host.runner.handleInbound(KEY, `/compact keep ${S.anthropic}`);
    for (const x of c.compactions) if (x.restore) restores.push(x.restore.text);
    // after /compact: state the old session captured since is bundled by the next session (/new)
    // into a `recovered` checkpoint, and that checkpoint is the resume block
    host.agent.queue(reply.tools(["read", { path: `other-${S.ghp}.txt` }]), reply.text(`later ${S.slack}`));
    await host.runner.handleInbound(KEY, `after compaction ${S.aws}`);
    await host.runner.handleInbound(KEY, "/new");
    host.agent.queue(reply.text("resumed"));
    const r = await host.runner.handleInbound(KEY, `resume ${S.openai}`);
    if (r.resume) restores.push(r.resume.text);

    expect(restores.length).toBeGreaterThanOrEqual(2);
    expect(host.warnings.filter((w) => w.includes("extension error"))).toEqual([]);
  });

  it("no file under <stateDir>/context and no restore block holds any secret", () => {
    const files = readAllFiles(join(host.stateDir, "context"));
    const names = files.map(([p]) => p);
    expect(names.some((p) => /cp_\d+\.yaml$/.test(p))).toBe(true);
    // the previous-session bundle was written (and is scanned below like every file)
    expect(files.some(([p, t]) => /cp_\d+\.yaml$/.test(p) && /^recovered:/m.test(t))).toBe(true);
    expect(names.some((p) => p.endsWith("thread.json"))).toBe(true);
    for (const [p, text] of files) expectNoSecret(p, text);
    for (const [i, text] of restores.entries()) expectNoSecret(`restore block ${i}`, text);
    // the secrets were really captured (as markers), not just dropped
    const all = files.map(([, t]) => t).join("\n");
    for (const cls of ["openai", "anthropic", "aws_access_key", "github", "secret"]) {
      expect(all, cls).toContain(`[REDACTED:${cls}]`);
    }
  });
});

describe("secrets through the engine: every capture path", () => {
  it("user text, tool call args, tool errors, last tool call of a split turn, fileOps", async () => {
    const stateDir = tempDir("cm-secrets-");
    try {
      const t = makeEngine({ stateDir, window: 10_000 });
      const messages: AgentMessage[] = [];
      messages.push(userMsg(allSecretsText("user")));
      messages.push(userMsg([{ type: "text", text: allSecretsText("user block") }]));
      messages.push(toolCallMsg("c1", "bash", { command: allSecretsText("cmd") }));
      messages.push(toolCallMsg("c2", "custom_tool", { nested: { deep: allSecretsText("json args") } }));
      messages.push(toolCallMsg("c3", `tool-${S.ghp}`, { file_path: `/etc/${S.aws}.key` }));
      await t.engine.onToolResult({ toolName: "bash", input: { command: allSecretsText("cmd") }, content: [{ type: "text", text: allSecretsText("error") }], isError: true }, "/ws");
      await t.engine.onToolResult({ toolName: "read", input: { path: `/ws/${S.ghp}.txt` }, content: allSecretsText("error string"), isError: true }, "/ws");
      await t.engine.onToolResult({ toolName: "write", input: { path: `/ws/${S.base64}.txt`, content: PEM }, content: [], isError: false }, "/ws");
      messages.push(assistantMsg([{ type: "text", text: `${filler("long", 600)}\n${allSecretsText("proposal")}` }]));
      messages.push(userMsg(`ok password=${S.password}`));
      messages.push(assistantMsg([{ type: "text", text: allSecretsText("aborted") }], { stopReason: "aborted", errorMessage: allSecretsText("errorMessage") }));
      await t.engine.onContext(messages, usageAt(0.9, 10_000));
      const ev = compactEvent(9_500, { messages, turnPrefixMessages: [toolCallMsg("c9", "bash", { command: allSecretsText("split"), extra: PEM })] });
      const fo = (ev.preparation as unknown as { fileOps: { read: Set<string>; written: Set<string>; edited: Set<string> } }).fileOps;
      fo.read.add(`/ws/${S.slack}.md`);
      fo.written.add(`/ws/${S.anthropic}.md`);
      fo.edited.add(`/ws/${S.githubPat}.md`);
      const cp = await t.engine.onBeforeCompact(ev, "/ws");
      expect(cp).not.toBeNull();
      expect(cp!.working.interrupted).toBe(true);
      expect(t.warnings).toEqual([]);
      await t.engine.flushNow();
      await backgroundWritesSettled(); // the checkpoint's knowledge records are searched too
      for (const [p, text] of readAllFiles(stateDir)) expectNoSecret(p, text);
      expectNoSecret("checkpoint object", JSON.stringify(cp));
    } finally {
      rmDir(stateDir);
    }
  });
});
