/**
 * Incremental capture (issue 3) through a real AgentSession on the host runner:
 * what real tool calls put in the state files and the /compact checkpoint, the
 * gauge line per provider request against the session's own usage, the fallback
 * reading right after a compaction, caps/eviction, stale state of another session,
 * and a second runner (restart) continuing the same session.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ContextUsage, ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { type Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { stateSessionDir } from "../../src/infra/session-dir.js";
import { messageText } from "../../src/faux/faux-model.js";
import { resetSystemEventsForTest } from "../../src/auto-reply/system-events.js";
import { filler, type Host, makeHost, reply, requestTexts } from "../helpers/host.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";

const KEY = "agent:main:telegram:direct:77";
const GAUGE_RE = /^\[Context: (\d+)% \| (\d+(?:\.\d)?[kM]?)\/(\d+k) tokens(?: \| [^\]|]+)?( \| Checkpoint saved)?\]/;

interface StateEnvelope {
  version: number;
  session_id: string | null;
  session_key: string;
  updated_at: string;
  data: Record<string, unknown>;
}

function readState(host: Host, name: string): StateEnvelope {
  return JSON.parse(readFileSync(join(stateSessionDir(host.stateDir, KEY), `${name}.json`), "utf8")) as StateEnvelope;
}

function checkpointsOnDisk(host: Host, key = KEY): Checkpoint[] {
  return readCheckpointsOnDisk(host.stateDir, key);
}

/** The gauge line of a request: the last message, when it is one. */
function gaugeOf(texts: string[]): { percent: number; tokens: number; saved: boolean } | null {
  const m = GAUGE_RE.exec(texts.at(-1) ?? "");
  if (!m) return null;
  const raw = m[2]!;
  const tokens = raw.endsWith("k") ? Number(raw.slice(0, -1)) * 1000 : raw.endsWith("M") ? Number(raw.slice(0, -1)) * 1e6 : Number(raw);
  return { percent: Number(m[1]), tokens, saved: Boolean(m[4]) };
}

/** Records ctx.getContextUsage() at every `context` event (one per chat request, summarizer calls excluded). */
function usageRecorder(into: Array<ContextUsage | undefined>): ExtensionFactory {
  return (pi) => {
    pi.on("context", (_event, ctx) => {
      into.push(ctx.getContextUsage());
      return undefined;
    });
  };
}

async function growUntilCompaction(host: Host, maxTurns = 30): Promise<number> {
  for (let i = 0; i < maxTurns; i++) {
    host.agent.queue(reply.text(filler(`Answer ${i}`, 2400)));
    const report = await host.runner.handleInbound(KEY, filler(`Question ${i}`, 1600));
    if (report.compactions.length > 0) return i;
  }
  throw new Error("no compaction happened");
}

let host: Host | undefined;
afterEach(() => {
  host?.cleanup();
  host = undefined;
});

describe("capture through a real session", () => {
  it("a read, a failed read, a write and an edit land in the state files and the /compact checkpoint", async () => {
    host = await makeHost();
    host.write("notes.md", "# Notes\nThe parser drops the last token.\n");
    host.write("app.ts", "export const parse = (s: string) => s.split(' ').slice(0, -1);\n");
    host.agent.queue(
      reply.tools(["read", { path: "notes.md" }], ["read", { path: "missing.md" }]),
      reply.text("notes.md read; missing.md does not exist."),
    );
    await host.runner.handleInbound(KEY, "Read notes.md and missing.md");
    host.agent.queue(
      reply.tools(
        ["write", { path: "src/new.ts", content: "export const x = 1;\n" }],
        ["edit", { path: "app.ts", edits: [{ oldText: ".slice(0, -1)", newText: "" }] }],
      ),
      reply.text("Wrote src/new.ts and edited app.ts."),
    );
    await host.runner.handleInbound(KEY, "Write src/new.ts and fix app.ts");
    expect(readFileSync(join(host.workspace, "src/new.ts"), "utf8")).toContain("export const x");

    const sessionId = (await host.runner.store.get(KEY))!.sessionId;
    const resources = readState(host, "resources");
    expect(resources.session_id).toBe(sessionId);
    expect(resources.session_key).toBe(KEY);
    expect(resources.data.files_read).toEqual(["notes.md"]);
    // pi runs parallel tool calls concurrently: completion order is not fixed
    expect([...(resources.data.files_modified as string[])].sort()).toEqual(["app.ts", "src/new.ts"]);
    expect([...(resources.data.tools_used as string[])].sort()).toEqual(["edit", "read", "write"]);
    const thread = readState(host, "thread");
    const errors = thread.data.errors as Array<{ tool: string; target: string; error: string }>;
    expect(errors).toHaveLength(1);
    expect(errors[0]!.tool).toBe("read");
    expect(errors[0]!.target).toBe("missing.md");
    expect(errors[0]!.error).toMatch(/ENOENT|not found|no such file/i);
    // the failure is open in the work ledger (one request later it is still unresolved)
    const work = readState(host, "work").data as { failures: Array<{ tool: string; target: string }>; files: Array<{ path: string }> };
    expect(work.failures.map((f) => [f.tool, f.target])).toEqual([["read", "missing.md"]]);
    expect(work.files.map((f) => f.path).sort()).toEqual(["app.ts", "src/new.ts"]);
    expect(thread.data.first_user).toBe("Read notes.md and missing.md");
    expect(thread.data.last_user).toBe("Write src/new.ts and fix app.ts");

    const report = await host.runner.handleInbound(KEY, "/compact");
    expect(report.compactions).toHaveLength(1);
    const cps = checkpointsOnDisk(host);
    expect(cps).toHaveLength(1);
    const cp = cps[0]!;
    expect(cp.meta.trigger).toBe("compaction");
    expect(cp.meta.session_id).toBe(sessionId);
    expect(cp.resources.files_read).toEqual(["notes.md"]);
    expect([...cp.resources.files_modified].sort()).toEqual(["app.ts", "src/new.ts"]);
    expect([...cp.resources.tools_used].sort()).toEqual(["edit", "read", "write"]);
    expect(cp.thread.errors.map((e) => [e.tool, e.target])).toEqual([["read", "missing.md"]]);
    expect(cp.work?.open_failures.map((e) => [e.tool, e.target])).toEqual([["read", "missing.md"]]);
    expect(cp.work?.requests).toEqual(["Write src/new.ts and fix app.ts", "Read notes.md and missing.md"]);
    expect(cp.thread.summary).toContain("Read notes.md and missing.md");
    // the checkpoint holds it now: the state delta was reset
    expect(readState(host, "resources").data.files_read).toEqual([]);
    expect(readState(host, "thread").data.errors).toEqual([]);
  });

  it("the gauge line reaches the provider exactly when the session's usage is at or above 70% (no prompt cache: every request's last message)", async () => {
    const usages: Array<ContextUsage | undefined> = [];
    // under a prompt cache the line stays where it was sent instead (test/cache/prompt-cache.test.ts)
    host = await makeHost({ contextManager: { promptCache: "none" }, extraExtensionFactories: [usageRecorder(usages)] });
    await growUntilCompaction(host);
    const requests = host.agent.chatRequests;
    expect(usages).toHaveLength(requests.length);
    let above = 0;
    let below = 0;
    for (let i = 0; i < requests.length; i++) {
      const usage = usages[i];
      if (usage?.percent == null) continue; // null right after a compaction: covered below
      const gauge = gaugeOf(requestTexts(requests[i]!));
      if (usage.percent >= 70) {
        above++;
        expect(gauge, `request ${i} at ${usage.percent}%`).not.toBeNull();
        expect(Math.abs(gauge!.percent - usage.percent)).toBeLessThanOrEqual(1);
        expect(Math.abs(gauge!.tokens - usage.tokens!)).toBeLessThanOrEqual(500);
        if (usage.percent < 80) expect(gauge!.saved).toBe(false);
      } else {
        below++;
        expect(gauge, `request ${i} at ${usage.percent}%`).toBeNull();
        // no gauge text anywhere in the request
        expect(requestTexts(requests[i]!).some((t) => t.includes("[Context: "))).toBe(false);
      }
    }
    expect(above).toBeGreaterThan(0);
    expect(below).toBeGreaterThan(2);
    // the gauge is never persisted: later requests do not carry earlier gauge lines
    for (const req of requests) {
      const texts = requestTexts(req);
      expect(texts.slice(0, -1).some((t) => GAUGE_RE.test(t))).toBe(false);
    }
  });

  it("right after a compaction the gauge uses the fallback estimate: small, not the pre-compaction size", async () => {
    const usages: Array<ContextUsage | undefined> = [];
    // gauge on every request, so the reading is visible
    host = await makeHost({ contextManager: { gaugeThreshold: 0 }, extraExtensionFactories: [usageRecorder(usages)] });
    await growUntilCompaction(host);
    const before = host.agent.chatRequests.length;
    host.agent.queue(reply.text("Continuing after the compaction."));
    await host.runner.handleInbound(KEY, "Where were we?");
    host.agent.queue(reply.text("Next."));
    await host.runner.handleInbound(KEY, "And then?");

    // pre-compaction reading: the last request before the compaction
    const pre = gaugeOf(requestTexts(host.agent.chatRequests[before - 1]!))!;
    expect(pre.percent).toBeGreaterThanOrEqual(80);
    const firstAfter = host.agent.chatRequests[before]!;
    expect(usages[before]).toBeDefined();
    expect(usages[before]!.percent).toBeNull(); // pi: no usage until the next reply
    const post = gaugeOf(requestTexts(firstAfter))!;
    expect(post).not.toBeNull();
    // plausible: positive, well below the pre-compaction size, and close to chars/4 of what was sent
    const sentChars = firstAfter.messages.reduce((n, m) => n + messageText(m as { role: string; content?: unknown }).length, 0);
    expect(post.tokens).toBeGreaterThan(0);
    expect(post.tokens).toBeLessThan(pre.tokens / 2);
    expect(post.percent).toBeLessThan(60);
    expect(post.tokens).toBeLessThanOrEqual(Math.ceil(sentChars / 4) + 1000);
    expect(post.tokens).toBeGreaterThanOrEqual(Math.floor(sentChars / 4 / 2));
    // the next request has SDK usage again, consistent with the gauge
    const second = usages[before + 1]!;
    expect(second.percent).not.toBeNull();
    const post2 = gaugeOf(requestTexts(host.agent.chatRequests[before + 1]!))!;
    expect(Math.abs(post2.percent - second.percent!)).toBeLessThanOrEqual(1);
  });

  it("caps evict the oldest files and tools while new ones still land", async () => {
    host = await makeHost({ contextManager: { maxFiles: 2, maxTools: 2 } });
    for (const f of ["a.md", "b.md", "c.md", "d.md"]) host.write(f, `# ${f}\n`);
    // one call per reply: parallel calls complete in any order, and eviction order matters here
    host.agent.queue(reply.tools(["read", { path: "a.md" }]), reply.tools(["read", { path: "b.md" }]), reply.tools(["read", { path: "c.md" }]), reply.text("read three"));
    await host.runner.handleInbound(KEY, "read a, b and c");
    expect(readState(host, "resources").data.files_read).toEqual(["b.md", "c.md"]);

    host.agent.queue(
      reply.tools(["write", { path: "w1.md", content: "1" }]),
      reply.tools(["write", { path: "w2.md", content: "2" }]),
      reply.tools(["bash", { command: "echo hi" }]),
      reply.tools(["read", { path: "d.md" }]),
      reply.text("done"),
    );
    await host.runner.handleInbound(KEY, "write two files, run echo, read d");
    const res = readState(host, "resources").data;
    expect(res.files_read).toEqual(["c.md", "d.md"]);
    expect(res.files_modified).toEqual(["w1.md", "w2.md"]);
    expect(res.tools_used).toEqual(["bash", "read"]); // "write" evicted (oldest), newest last

    await host.runner.handleInbound(KEY, "/compact");
    const cp = checkpointsOnDisk(host).at(-1)!;
    expect(cp.resources.files_read).toHaveLength(2);
    expect(cp.resources.files_read).toContain("d.md");
    expect(cp.resources.files_read).not.toContain("a.md");
    expect(cp.resources.files_modified.length).toBeLessThanOrEqual(2);
    expect(cp.resources.tools_used).toHaveLength(2);
    expect(cp.resources.tools_used).toContain("read");
  });

  it("state files another session left after the latest checkpoint: bundled into a checkpoint of THAT session (marked recovered), never merged into this one", async () => {
    host = await makeHost();
    const dir = stateSessionDir(host.stateDir, KEY);
    mkdirSync(dir, { recursive: true });
    const planted = (data: unknown) =>
      `${JSON.stringify({ version: 1, session_id: "old-session-0000", session_key: KEY, updated_at: new Date().toISOString(), data })}\n`;
    writeFileSync(join(dir, "resources.json"), planted({ files_read: ["planted-old.md"], files_modified: ["planted-mod.ts"], tools_used: ["planted_tool"] }));
    writeFileSync(join(dir, "decisions.json"), planted({ items: [{ what: "planted decision", when: new Date().toISOString() }] }));
    host.write("fresh.md", "fresh\n");

    host.agent.queue(reply.tools(["read", { path: "fresh.md" }]), reply.text("read fresh"));
    const first = await host.runner.handleInbound(KEY, "read fresh.md");
    const [bundle] = checkpointsOnDisk(host);
    // the host's resume seam (onSessionStarted) bundled it before rendering: the block shows it
    expect(first.resume?.checkpoint.meta.checkpoint_id).toBe(bundle?.meta.checkpoint_id);
    expect(first.resume?.text).toContain("planted-mod.ts");
    expect(first.resume?.text).toContain("ended (crash, exit or /new) before a checkpoint held all its work");
    expect(bundle?.meta.session_id).toBe("old-session-0000");
    expect(bundle?.meta.trigger).toBe("session-end");
    const sessionId = (await host.runner.store.get(KEY))!.sessionId;
    expect(bundle?.recovered).toEqual({ by_session_id: sessionId, state_updated_at: expect.any(String), files: ["decisions", "resources"], files_modified_since_checkpoint: ["planted-mod.ts"] });
    expect(bundle?.decisions.map((d) => d.what)).toEqual(["planted decision"]);
    expect(bundle?.resources.files_modified).toEqual(["planted-mod.ts"]);
    // a normal path: nothing at warning level, and nothing left to bundle twice
    expect(host.warnings.filter((w) => w.includes("state"))).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.startsWith("previous."))).toEqual([]);
    const res = readState(host, "resources");
    expect(res.session_id).toBe(sessionId);
    expect(res.data.files_read).toEqual(["fresh.md"]);

    await host.runner.handleInbound(KEY, "/compact");
    const cp = checkpointsOnDisk(host).at(-1)!;
    expect(cp.meta.session_id).toBe(sessionId);
    expect(cp.recovered).toBeUndefined();
    expect(JSON.stringify(cp)).not.toContain("planted");
    expect(cp.resources.files_read).toEqual(["fresh.md"]);
  });

  it("state files of another session OLDER than the latest checkpoint are stale: moved to stale/ (debug log), never bundled or merged", async () => {
    host = await makeHost();
    // a checkpoint of the key exists (an earlier session's /compact)
    host.agent.queue(reply.text("ok"));
    await host.runner.handleInbound(KEY, "first session");
    await host.runner.handleInbound(KEY, "/compact");
    const before = checkpointsOnDisk(host);
    expect(before).toHaveLength(1);
    const dir = stateSessionDir(host.stateDir, KEY);
    const old = new Date(Date.parse(before[0]!.meta.created_at) - 60_000).toISOString();
    const planted = (data: unknown) => `${JSON.stringify({ version: 1, session_id: "old-session-0000", session_key: KEY, updated_at: old, data })}\n`;
    writeFileSync(join(dir, "resources.json"), planted({ files_read: ["planted-old.md"], files_modified: ["planted-mod.ts"], tools_used: ["planted_tool"] }));
    writeFileSync(join(dir, "decisions.json"), planted({ items: [{ what: "planted decision", when: old }] }));
    host.write("fresh.md", "fresh\n");

    await host.runner.handleInbound(KEY, "/new");
    host.agent.queue(reply.tools(["read", { path: "fresh.md" }]), reply.text("read fresh"));
    await host.runner.handleInbound(KEY, "read fresh.md");
    const staleFiles = readdirSync(join(dir, "stale"));
    expect(staleFiles.some((f) => f.startsWith("resources."))).toBe(true);
    expect(staleFiles.some((f) => f.startsWith("decisions."))).toBe(true);
    // expected on a new session: debug level, not a warning
    expect(host.warnings.filter((w) => w.includes("state not merged"))).toHaveLength(0);
    expect(host.debugs.filter((w) => w.includes("state not merged") && w.includes("older than the latest checkpoint"))).toHaveLength(1);
    expect(checkpointsOnDisk(host).filter((c) => c.recovered)).toEqual([]);
    const res = readState(host, "resources");
    expect(res.session_id).toBe((await host.runner.store.get(KEY))!.sessionId);
    expect(res.data.files_read).toEqual(["fresh.md"]);

    await host.runner.handleInbound(KEY, "/compact");
    const cp = checkpointsOnDisk(host).at(-1)!;
    expect(JSON.stringify(cp)).not.toContain("planted");
    expect(cp.resources.files_read).toEqual(["fresh.md"]);
  });

  it("a restarted runner reloads the state: /compact has what the first runner captured, nothing doubled", async () => {
    host = await makeHost();
    host.write("notes.md", "notes\n");
    host.write("app.ts", "app\n");
    host.agent.queue(reply.tools(["read", { path: "notes.md" }]), reply.text("Read the notes. They describe the parser bug."));
    await host.runner.handleInbound(KEY, "First: read notes.md");
    host.agent.queue(reply.tools(["write", { path: "out.md", content: "x" }]), reply.tools(["read", { path: "gone.md" }]), reply.text("Wrote out.md."));
    await host.runner.handleInbound(KEY, "Second: write out.md");
    const sessionId = (await host.runner.store.get(KEY))!.sessionId;

    resetSystemEventsForTest(); // a new process
    const b = host.makeRunner();
    host.agent.queue(reply.tools(["read", { path: "app.ts" }]), reply.text("Read app.ts."));
    const r = await b.handleInbound(KEY, "Third: read app.ts");
    expect(r.sessionId).toBe(sessionId);
    expect(r.resume).toBeNull();
    const report = await b.handleInbound(KEY, "/compact");
    const cp = report.compactions[0]!.restore!.checkpoint;
    expect(cp.meta.session_id).toBe(sessionId);
    expect([...cp.resources.files_read].sort()).toEqual(["app.ts", "notes.md"]);
    expect(cp.resources.files_modified).toEqual(["out.md"]);
    expect(cp.thread.errors.map((e) => e.target)).toEqual(["gone.md"]);
    const gists = cp.thread.key_exchanges.map((e) => `${e.role}:${e.gist}`);
    expect(new Set(gists).size).toBe(gists.length);
    expect(gists.filter((g) => g.startsWith("user:First"))).toHaveLength(1);
    expect(gists.filter((g) => g.startsWith("user:Third"))).toHaveLength(1);
    expect(cp.thread.summary).toMatch(/^First: read notes\.md \.\.\. Third: read app\.ts$/);
    expect(new Set(cp.open_items).size).toBe(cp.open_items.length);
    expect(host.warnings, host.warnings.join("\n")).toEqual([]);
  });
});
