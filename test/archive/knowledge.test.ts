/**
 * The knowledge layer: a checkpoint's facts as typed records (structural mapping), appended
 * beside the segments, superseded facts marked and kept, searched with the archive's BM25;
 * and through the real host: a compaction's checkpoint becomes knowledge context_search returns.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { knowledgeOf } from "../../src/agents/archive/knowledge-store.js";
import { appendKnowledge, followKnowledge, knowledgeFile, knowledgeFollowers, readKnowledge } from "../../src/agents/archive/knowledge-store.js";
import { knowledgeIndex, knowledgeIndexes, searchKnowledge } from "../../src/agents/archive/knowledge-store.js";
import { applyCacheBudget, cacheBudgetBytes } from "../../src/agents/engine/cache-budget.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../../src/agents/config/context-manager-config.js";
import { knowledgeSettled } from "../../src/agents/engine/archive-hooks.js";
import { type Host, makeHost, reply } from "../helpers/host.js";

function checkpoint(id: string, over: Partial<Checkpoint>): Checkpoint {
  return {
    meta: { checkpoint_id: id, created_at: "2026-11-25T10:00:00Z", session_id: "s1" },
    working: { topic: "fix the invoice totals", status: "in_progress", interrupted: false, last_tool_call: null, next_action: "run the tests" },
    decisions: [{ id: "d1", what: "Use integer cents for money", when: "2026-11-25T09:00:00Z" }],
    resources: { files_read: [], files_modified: [], tools_used: [] },
    thread: { summary: "", key_exchanges: [], errors: [{ tool: "bash", target: "npm test", error: "TypeError: total is NaN", when: "2026-11-25T09:30:00Z" }] },
    open_items: [],
    learnings: [],
    work: {
      files: [
        { path: "src/invoice.ts", edits: 2, writes: 0, change: "return a + b → return cents(a) + cents(b)", names: ["computeInvoiceTotal()"], last: "2026-11-25T09:40:00Z", mentions: 1 },
        { path: "src/money.ts", edits: 0, writes: 1, change: "wrote 40 lines", names: ["cents()", "Money"], last: "2026-11-25T09:35:00Z", mentions: 0 },
        { path: "tsconfig.json", edits: 1, writes: 0, change: "+ \"strict\": true", last: "2026-11-25T09:20:00Z", mentions: 0 },
      ],
      commands: [{ family: "npm test", command: "npm test", runs: 2, failures: 1, ok: false, exit: 1, when: "2026-11-25T09:30:00Z" }],
      open_failures: [{ tool: "bash", target: "npm test", error: "TypeError: total is NaN", when: "2026-11-25T09:30:00Z" }],
      requests: ["the invoice total is wrong for refunds"],
      last_report: "",
      answered: false,
    },
    ...over,
  } as unknown as Checkpoint;
}

describe("knowledge records", () => {
  let dir = "";
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("maps each checkpoint field to its kind", () => {
    const kinds = knowledgeOf(checkpoint("cp_001", {})).map((r) => `${r.kind} ${r.subject}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        "decision decision:d1",
        "implementation file:src/invoice.ts",
        "architecture file:src/money.ts",
        "config file:tsconfig.json",
        "issue failure:bash:npm test",
        "task_state command:npm test",
        "task_state working",
      ]),
    );
    const issue = knowledgeOf(checkpoint("cp_001", {})).find((r) => r.kind === "issue")!;
    expect(issue.text).toContain("TypeError: total is NaN");
    expect(issue.text).toContain("[open]");
  });

  it("a later checkpoint supersedes a fixed failure and a changed file, keeping the old records", async () => {
    dir = mkdtempSync(join(tmpdir(), "cm-knowledge-"));
    const file = knowledgeFile(dir, "agent:main:main");
    await appendKnowledge(file, knowledgeOf(checkpoint("cp_001", {})), { checkpoint: "cp_001", session: "s1" });
    const later = checkpoint("cp_002", {});
    later.work!.open_failures = [];
    later.work!.files[0]!.change = "cents(a) + cents(b) → sum(cents, lines)";
    const r = await appendKnowledge(file, knowledgeOf(later), { checkpoint: "cp_002", session: "s1" });
    expect(r.superseded).toBeGreaterThanOrEqual(2);
    const all = await readKnowledge(file);
    const failures = all.filter((e) => e.subject === "failure:bash:npm test");
    expect(failures).toHaveLength(2);
    expect(failures[0]!.supersededBy).toBe(failures[1]!.id);
    expect(failures[1]!.text).toContain("[fixed]");
    expect(all.filter((e) => e.subject === "file:src/invoice.ts" && !e.supersededBy)).toHaveLength(1);
    // unchanged facts are not written twice
    expect(all.filter((e) => e.subject === "decision:d1")).toHaveLength(1);
    const hits = searchKnowledge(await knowledgeIndex(file), "why was computeInvoiceTotal changed?", 5);
    expect(hits[0]!.entry.subject).toBe("file:src/invoice.ts");
    expect(hits[0]!.entry.supersededBy).toBeUndefined();
  });

  it("the index follows appends by reading only the new bytes; a removed file is searchable no more", async () => {
    dir = mkdtempSync(join(tmpdir(), "cm-knowledge-"));
    const file = knowledgeFile(dir, "agent:main:main");
    await appendKnowledge(file, knowledgeOf(checkpoint("cp_001", {})), { checkpoint: "cp_001", session: "s1" });
    const first = await knowledgeIndex(file);
    expect(searchKnowledge(first, "computeInvoiceTotal", 5)[0]!.entry.subject).toBe("file:src/invoice.ts");
    const records = (await followKnowledge(file))!.entries.size;
    // blank the bytes already read (same length): a loader reading only what follows still has them
    const size = statSync(file).size;
    writeFileSync(file, " ".repeat(size - 1) + "\n");
    const later = checkpoint("cp_002", {});
    later.work!.open_failures = [];
    later.work!.files[0]!.change = "cents(a) + cents(b) → sum(cents, lines)";
    const r = await appendKnowledge(file, knowledgeOf(later), { checkpoint: "cp_002", session: "s1" }, first ?? undefined);
    expect(r.superseded).toBeGreaterThanOrEqual(2);
    // the appends' follower too: the old records from memory, the new ones from the new bytes
    expect((await followKnowledge(file))!.entries.size).toBe(records + r.added);
    const followed = await knowledgeIndex(file);
    expect(followed).toBe(first);
    const hits = searchKnowledge(followed, "computeInvoiceTotal sum(cents, lines)", 5);
    expect(hits[0]!.entry.text).toContain("sum(cents, lines)");
    expect(hits.find((h) => h.entry.text.includes("return cents(a) + cents(b)"))?.entry.supersededBy).toBe(hits[0]!.entry.id);
    rmSync(file);
    expect(await knowledgeIndex(file)).toBeNull();
    expect(await followKnowledge(file)).toBeUndefined();
  });

  it("followers and indexes are held by bytes within their share of cacheMemoryMiB; an evicted one is read again whole", async () => {
    dir = mkdtempSync(join(tmpdir(), "cm-knowledge-"));
    // the smallest cacheMemoryMiB: the shares the engine applies to both caches
    applyCacheBudget({ cacheMemoryMiB: 16 });
    const followerBudget = cacheBudgetBytes({ cacheMemoryMiB: 16 }, "knowledgeFollowers");
    const indexBudget = cacheBudgetBytes({ cacheMemoryMiB: 16 }, "knowledgeIndexes");
    const files: string[] = [];
    for (let k = 0; k < 8; k++) {
      const file = knowledgeFile(dir, `agent:main:k${k}`);
      files.push(file);
      // a long session's file: many checkpoints' records (~100 KB)
      for (let c = 0; c < 60; c++) {
        const cp = checkpoint(`cp_${c}`, {});
        cp.work!.files = cp.work!.files.map((f, i) => ({ ...f, path: `src/k${k}/f${c}_${i}.ts`, change: `${f.change} (${k}.${c}) ${"x".repeat(300)}` }));
        await appendKnowledge(file, knowledgeOf(cp), { checkpoint: cp.meta.checkpoint_id, session: "s1" }, await followKnowledge(file));
      }
      await knowledgeIndex(file);
      const followers = knowledgeFollowers().stats();
      expect(followers.bytes).toBeLessThanOrEqual(followerBudget);
      expect(knowledgeIndexes().stats().bytes).toBeLessThanOrEqual(indexBudget);
    }
    expect(knowledgeFollowers().stats().evictions).toBeGreaterThan(0);
    expect(knowledgeIndexes().stats().evictions).toBeGreaterThan(0);
    // the first file was evicted from both: read again whole, the same records and hits
    const total = (await readKnowledge(files[0]!)).length;
    expect((await followKnowledge(files[0]!))!.entries.size).toBe(total);
    expect(searchKnowledge(await knowledgeIndex(files[0]!), "f59_0", 3)[0]!.entry.subject).toBe("file:src/k0/f59_0.ts");
    applyCacheBudget(DEFAULT_CONTEXT_MANAGER_CONFIG);
  });
});

describe("knowledge through the real host", () => {
  let host: Host;
  afterEach(() => host?.cleanup());

  it("a compaction's checkpoint becomes knowledge that context_search returns beside the detail", async () => {
    host = await makeHost();
    host.write("ledger.js", "export function reconcileLedgerDrift(a, b) { return a + b; }\n");
    host.agent.queue(
      reply.tools(["edit", { path: "ledger.js", edits: [{ oldText: "return a + b;", newText: "return a - b;" }] }]),
      reply.text("Fixed the sign in reconcileLedgerDrift."),
    );
    await host.runner.handleInbound("agent:main:main", "reconcileLedgerDrift adds where it should subtract, fix it");
    expect((await host.runner.handleInbound("agent:main:main", "/compact")).compactions).toHaveLength(1);
    await knowledgeSettled();
    const file = knowledgeFile(host.stateDir, "agent:main:main");
    expect(readFileSync(file, "utf8")).toContain('"kind":"implementation"');
    host.agent.queue(reply.tools(["context_search", { query: "ledger.js reconcileLedgerDrift" }]), reply.text("ok"));
    await host.runner.handleInbound("agent:main:main", "What did we change in ledger.js?");
    const result = host.agent.chatRequests.at(-1)!.messages.filter((m) => m.role === "toolResult").at(-1) as { content: Array<{ text: string }> };
    const text = result.content.map((c) => c.text).join("");
    expect(text).toMatch(/^Knowledge \(typed facts from checkpoints/m);
    expect(text).toMatch(/^- \[implementation\] "ledger\.js: /m);
    expect(text.length).toBeLessThanOrEqual(4000);
  });
});
