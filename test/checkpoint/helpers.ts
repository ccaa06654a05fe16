import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Checkpoint, CheckpointDraft } from "../../src/agents/checkpoint/schema.js";

export async function makeTempDir(prefix = "cp-store-"): Promise<string> {
  return fsp.mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await fsp.rm(dir, { recursive: true, force: true });
}

/** A draft with every field populated (non-default values everywhere). */
export function makeDraft(overrides: { sessionKey?: string; sessionId?: string | null; trigger?: Checkpoint["meta"]["trigger"]; inputTokens?: number; topic?: string } = {}): CheckpointDraft {
  return {
    schema: "openclaw/checkpoint",
    schema_version: 1,
    meta: {
      session_key: overrides.sessionKey ?? "telegram:user123",
      session_id: overrides.sessionId === undefined ? "sess-1" : overrides.sessionId,
      session_file: "sessions/telegram-user123.jsonl",
      created_at: "2026-02-24T15:30:00.000Z",
      trigger: overrides.trigger ?? "compaction",
      compaction_count: 2,
      token_usage: { input_tokens: overrides.inputTokens ?? 162431, context_window: 200000, utilization: 0.81 },
      channel: "telegram",
      agent_id: "default",
    },
    working: {
      topic: overrides.topic ?? "Helping user plan a trip to Japan",
      status: "waiting_for_user",
      interrupted: true,
      last_tool_call: { name: "web_search", params_summary: "query: visa Serbia Japan" },
      next_action: "User asked about visa requirements -- need to answer",
    },
    decisions: [
      { id: "d1", what: "User prefers budget options over luxury", when: "2026-02-24T14:15:00Z" },
      { id: "d2", what: "Flights from Belgrade, March 15-29 window", when: "2026-02-24T14:22:00+02:00" },
    ],
    resources: { files_read: ["notes/trip.md"], files_modified: ["plan.md", "src/a b.ts"], tools_used: ["web_search", "memory_search"] },
    thread: {
      summary: "Planning Japan trip. Settled on March dates, budget focus.",
      key_exchanges: [
        { role: "user", gist: "I want to go to Japan in March, budget-friendly" },
        { role: "agent", gist: "Proposed 2-week itinerary Tokyo-Kyoto-Osaka" },
      ],
      errors: [{ tool: "read", target: "/tmp/missing.txt", error: "ENOENT: no such file", when: "2026-02-24T14:30:00Z" }],
    },
    open_items: ["Visa requirements for Serbian passport"],
    learnings: ["User is price-sensitive, always ask about budget first"],
  };
}

export function makeCheckpoint(id = "cp_003", previous: string | null = "cp_002", draft: CheckpointDraft = makeDraft()): Checkpoint {
  return { ...draft, meta: { ...draft.meta, checkpoint_id: id, previous_checkpoint: previous } };
}
