/** `openclaw-context search` and `archive stats` over a real archive in a temp state dir. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionArchive } from "../../src/agents/archive/archive.js";
import { segmentsOf } from "../../src/agents/archive/segments.js";
import { runCli } from "../../src/cli/main.js";
import type { Output } from "../../src/cli/output.js";
import { CLI_BIN, run } from "../cli/run.js";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";

const KEY = "agent:main:cli:archive";
let stateDir: string;

function capture() {
  const lines: string[] = [];
  const warnings: string[] = [];
  let json: unknown;
  const out: Output = { line: (t) => void lines.push(t), json: (v) => void (json = v), warn: (t) => void warnings.push(t) };
  return { out, lines, warnings, json: () => json as Record<string, any> };
}

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), "cm-archive-cli-"));
  const t = Date.UTC(2026, 10, 23, 14, 31);
  const msgs = [
    { role: "user", content: "Why does loadInvoiceLines fail?", timestamp: t },
    { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "src/billing/lines.ts" } }], stopReason: "toolUse", timestamp: t + 1 },
    { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "export function loadInvoiceLines() {}" }], isError: false, timestamp: t + 2 },
  ] as unknown as AgentMessage[];
  await new SessionArchive(stateDir, KEY).append(segmentsOf(msgs), { session: "s1", compaction: 1 });
});
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

describe("openclaw-context search / archive stats", () => {
  it("search --json ranks the file's fragment first (through the bin, as a user runs it)", async () => {
    const args = ["search", "load_invoice_lines", "lines.ts", "--session-key", KEY, "--state-dir", stateDir, "--json"];
    const r = await run(process.execPath, [CLI_BIN, ...args], { timeoutMs: CHILD_TIMEOUT_MS });
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.segments).toBe(3);
    expect(j.hits[0]).toMatchObject({ rank: 1, role: "tool_result", tool: "read", target: "src/billing/lines.ts", compaction: 1 });
    expect(j.hits[0].text).toContain("loadInvoiceLines");
  });

  it("search, human output: labelled, quoted fragments", async () => {
    const c = capture();
    expect(await runCli(["search", "loadInvoiceLines", "--session-key", KEY, "--state-dir", stateDir], c.out)).toBe(0);
    const text = c.lines.join("\n");
    expect(text).toMatch(/^3 archived fragments for "loadInvoiceLines"/);
    expect(text.split("\n")[1]).toMatch(/^\[1\] 2026-11-23 14:31Z (tool_result read "src\/billing\/lines.ts"|user) · score /);
    expect(text).toContain('2026-11-23 14:31Z tool_result read "src/billing/lines.ts"');
    // a snippet with the matched term marked, and the segment id to read more
    expect(text).toContain('"export function «loadInvoiceLines»() {}"');
    expect(text).toMatch(/ · id [0-9a-f]{16}\n/);
    const full = capture();
    expect(await runCli(["search", "loadInvoiceLines", "--full", "--session-key", KEY, "--state-dir", stateDir], full.out)).toBe(0);
    expect(full.lines.join("\n")).toContain('"export function loadInvoiceLines() {}"');
  });

  it("archive stats, human and --json; errors are one line with a non-zero exit", async () => {
    const c = capture();
    expect(await runCli(["archive", "stats", "--state-dir", stateDir, "--json"], c.out)).toBe(0);
    expect(c.json().archives).toHaveLength(1);
    expect(c.json().archives[0]).toMatchObject({ segments: 3, sessions: 1, compactions: 1, byRole: { user: 1, tool_call: 1, tool_result: 1, assistant: 0 } });
    const h = capture();
    expect(await runCli(["archive", "stats", "--session-key", KEY, "--state-dir", stateDir], h.out)).toBe(0);
    expect(h.lines[0]).toBe(KEY);
    expect(h.lines[1]).toMatch(/^ {2}3 segments · \d+ bytes · 1 sessions · 1 compactions$/);
    const e = capture();
    expect(await runCli(["search", "x", "--session-key", "nope", "--state-dir", stateDir], e.out)).toBe(1);
    expect(e.warnings[0]).toMatch(/no archive for session key "nope"/);
    expect(await runCli(["search", "x", "--state-dir", stateDir], capture().out)).toBe(2);
    expect(await runCli(["search", "x", "--session-key", KEY, "--limit", "99", "--state-dir", stateDir], capture().out)).toBe(2);
  });
});
