/** A realistic checkpoint draft for the CLI scale benchmark (fields filled like a working session). */
import type { CheckpointDraft } from "../src/agents/checkpoint/schema.js";

export function makeBenchDraft(sessionKey: string, i: number): CheckpointDraft {
  const when = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  return {
    schema: "openclaw/checkpoint",
    schema_version: 1,
    meta: {
      session_key: sessionKey,
      session_id: "bench-session",
      session_file: null,
      created_at: when,
      trigger: i % 3 === 0 ? "auto-80pct" : "compaction",
      compaction_count: i,
      token_usage: { input_tokens: 160_000 + i, context_window: 200_000, utilization: 0.8 },
      channel: "bench",
      agent_id: "main",
    },
    working: { topic: `Refactor the parser, step ${i}`, status: "in_progress", interrupted: false, last_tool_call: null, next_action: "Continue: run the tests" },
    decisions: Array.from({ length: 8 }, (_, d) => ({ id: `d${d + 1}`, what: `Decision ${d} about the parser's error recovery`, when })),
    resources: {
      files_read: Array.from({ length: 20 }, (_, f) => `src/parser/file${f}.ts`),
      files_modified: Array.from({ length: 10 }, (_, f) => `src/parser/mod${f}.ts`),
      tools_used: ["read", "edit", "bash", "write"],
    },
    thread: {
      summary: "Refactor the parser ... run the tests",
      key_exchanges: Array.from({ length: 6 }, (_, k) => ({ role: k % 2 ? "agent" : "user", gist: `Exchange ${k} about the recovery rules` })),
      errors: [{ tool: "bash", target: "npm test", error: "2 failing tests", when }],
    },
    open_items: ["Fix the two failing tests", "Update the docs"],
    learnings: ["The tokenizer is shared with the formatter"],
  };
}
