import type { Checkpoint } from "../../src/agents/checkpoint/schema.js";

/** The spec §5.3 example checkpoint, fleshed out to a typical size (10 decisions, 6 exchanges, 10 files). */
export function specExampleCheckpoint(overrides: Partial<Checkpoint["meta"]> = {}): Checkpoint {
  const decisions = [
    "User prefers budget options over luxury",
    "Flights from Belgrade, March 15-29 window",
    "Tokyo first, then Kyoto and Osaka",
    "Use the JR pass for intercity travel",
    "Stay in business hotels near stations",
    "Skip Hakone, add a Nara day trip instead",
    "Keep one free day in Kyoto for rest",
    "Book flights only after visa is confirmed",
    "Track the budget in itinerary/budget.csv",
    "Fly back from Osaka (KIX), not Tokyo",
  ];
  return {
    schema: "openclaw/checkpoint",
    schema_version: 1,
    meta: {
      checkpoint_id: "cp_004",
      session_key: "telegram:user123",
      session_id: "sess-1",
      session_file: "sessions/telegram-user123.jsonl",
      created_at: "2026-02-24T15:30:00Z",
      trigger: "compaction",
      compaction_count: 2,
      token_usage: { input_tokens: 164000, context_window: 200000, utilization: 0.82 },
      previous_checkpoint: "cp_003",
      channel: "telegram",
      agent_id: "default",
      ...overrides,
    },
    working: {
      topic: "Helping user plan a trip to Japan",
      status: "in_progress",
      interrupted: false,
      last_tool_call: null,
      next_action: "User asked about visa requirements -- need to answer",
    },
    decisions: decisions.map((what, i) => ({
      id: `d${i + 1}`,
      what,
      when: `2026-02-24T14:${String(15 + i * 4).padStart(2, "0")}:00Z`,
    })),
    resources: {
      files_read: ["notes/japan.md", "notes/visa.md", "docs/jr-pass.md", "itinerary/draft.md"],
      files_modified: [
        "itinerary/plan.md",
        "itinerary/budget.csv",
        "notes/japan.md",
        "itinerary/hotels.md",
        "itinerary/flights.md",
        "README.md",
      ],
      tools_used: ["web_search", "memory_search", "read", "edit"],
    },
    thread: {
      summary: "Planning Japan trip. Settled on March dates, budget focus.",
      key_exchanges: [
        { role: "user", gist: "I want to go to Japan in March, budget-friendly" },
        { role: "agent", gist: "Proposed 2-week itinerary Tokyo-Kyoto-Osaka, ~$2k budget" },
        { role: "user", gist: "Can we swap Hakone for Nara?" },
        { role: "agent", gist: "Swapped; Nara is a day trip from Kyoto, budget unchanged" },
        { role: "user", gist: "Looks good, what about visa?" },
        { role: "agent", gist: "Checking the visa rules for Serbian passport holders" },
      ],
      errors: [],
    },
    open_items: [
      "Visa requirements for Serbian passport",
      "User hasn't decided on accommodation style",
      "Confirm JR pass price for 14 days",
    ],
    learnings: ["User is price-sensitive, always ask about budget first", "User prefers trains over buses"],
  };
}
