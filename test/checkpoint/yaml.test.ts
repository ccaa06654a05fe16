import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { CheckpointError } from "../../src/agents/checkpoint/errors.js";
import { parseCheckpoint, serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { type Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { makeCheckpoint } from "./helpers.js";

const NASTY = [
  "",
  " ",
  "  leading spaces",
  "trailing spaces  ",
  "\nleading newline",
  "trailing newline\n",
  "two trailing\n\n",
  "\n",
  "\n\n",
  "crlf\r\nline",
  "lone\rcr",
  "\r",
  "\ttab first",
  "tab\tinside",
  "a\n\tb",
  "---",
  "...",
  "--- \nfoo",
  "key: value",
  "a: b\nc: d",
  "# comment",
  "x # not a comment",
  "|",
  "|-\n  block",
  ">",
  "'single' \"double\"",
  "\\ backslash \\n",
  "üñíçødé 中文 עברית",
  "emoji 🎉👩‍💻",
  "nul\0char",
  "\x01\x02\x1b[31m",
  "\u0085nel",
  "\u2028line sep\u2029",
  "\uFEFFbom",
  "\uFFFD",
  "null",
  "true",
  "~",
  "123",
  "0x1f",
  "- item",
  "[a, b]",
  "{a: 1}",
  "&anchor *alias",
  "!!str tag",
  "%YAML 1.2",
  "  \n  ",
  " \t ",
  "line1\n  indented\nline3",
  "  indented first\nsecond",
  "x".repeat(5000),
];

/** every free-text (and every other string) field of a checkpoint set to `s` */
function withText(s: string): Checkpoint {
  const cp = makeCheckpoint();
  return {
    ...cp,
    meta: { ...cp.meta, session_key: s, session_id: s, session_file: s, channel: s, agent_id: s },
    working: { ...cp.working, topic: s, next_action: s, last_tool_call: { name: s, params_summary: s } },
    decisions: [{ id: s, what: s, when: "2026-01-01T00:00:00Z" }],
    resources: { files_read: [s], files_modified: [s], tools_used: [s] },
    thread: {
      summary: s,
      key_exchanges: [{ role: "user", gist: s }],
      errors: [{ tool: s, target: s, error: s, when: "2026-01-01T00:00:00Z" }],
    },
    open_items: [s, s],
    learnings: [s],
  };
}

describe("checkpoint YAML", () => {
  it("round-trips every field exactly", () => {
    const cp = makeCheckpoint();
    expect(parseCheckpoint(serializeCheckpoint(cp), "cp_003.yaml")).toEqual(cp);
    const idle: Checkpoint = {
      ...cp,
      meta: { ...cp.meta, session_id: null, session_file: null, channel: null, agent_id: null, previous_checkpoint: null, trigger: "session-end" },
      working: { ...cp.working, status: "idle", interrupted: false, last_tool_call: null },
      decisions: [],
      resources: { files_read: [], files_modified: [], tools_used: [] },
      thread: { summary: "", key_exchanges: [], errors: [] },
      open_items: [],
      learnings: [],
    };
    expect(parseCheckpoint(serializeCheckpoint(idle), "cp_003.yaml")).toEqual(idle);
  });

  it("keeps a removed file's deleted flag on disk (the schema's work.files[].deleted)", () => {
    const when = "2026-02-24T14:22:00Z";
    const file = { path: "src/gone.ts", edits: 1, writes: 0, change: "x", last: when, mentions: 0, deleted: true };
    const work = { files: [file], commands: [], open_failures: [], requests: ["rm it"], last_report: "", answered: false };
    const cp: Checkpoint = { ...makeCheckpoint(), work };
    const text = serializeCheckpoint(cp);
    expect(parseYaml(text).work.files[0].deleted).toBe(true);
    expect(parseCheckpoint(text, "cp_003.yaml").work?.files[0]?.deleted).toBe(true);
  });

  it("writes free text as block scalars, tool names and ids as quoted strings", () => {
    const text = serializeCheckpoint(makeCheckpoint());
    expect(text).toMatch(/^# OpenClaw Checkpoint Schema v1\n/);
    expect(text).toContain('schema: "openclaw/checkpoint"');
    expect(text).toContain('checkpoint_id: "cp_003"');
    expect(text).toMatch(/topic: \|-\n\s+Helping user plan a trip to Japan\n/);
    expect(text).toMatch(/tools_used:\n\s+- "web_search"\n\s+- "memory_search"/);
    expect(text).toMatch(/name: "web_search"/);
    expect(text).toMatch(/open_items:\n\s+- \|-\n\s+Visa requirements/);
  });

  it.each(NASTY.map((s) => [JSON.stringify(s).slice(0, 60), s]))("round-trips nasty string %s in every string field", (_label, s) => {
    const cp = withText(s);
    const text = serializeCheckpoint(cp);
    expect(parseCheckpoint(text, "cp_003.yaml")).toEqual(cp);
    // no user text becomes a key: the top-level and meta key sets are fixed
    const raw = parseYaml(text) as Record<string, Record<string, unknown>>;
    expect(Object.keys(raw)).toEqual(["schema", "schema_version", "meta", "working", "decisions", "resources", "thread", "open_items", "learnings"]);
    expect(Object.keys(raw.meta ?? {})).toHaveLength(11);
  });

  it("uses a block scalar where it round-trips and double quotes where it cannot", () => {
    expect(serializeCheckpoint(withText("a: b\n# c"))).toMatch(/topic: \|-\n {4}a: b\n {4}# c\n/);
    expect(serializeCheckpoint(withText("crlf\r\nx"))).toContain('topic: "crlf\\r\\nx"');
    expect(serializeCheckpoint(withText("nul\0x"))).toContain('topic: "nul\\0x"');
  });

  it("property: any string in any free-text field survives exactly", () => {
    const str = fc.oneof(
      fc.string({ unit: "binary", maxLength: 60 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.constantFrom(...NASTY),
      fc.array(fc.constantFrom(...NASTY, "a", " ", "\n", "\r", "\t", ": ", "#", "|"), { maxLength: 6 }).map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(str, str, str, str, (a, b, c, d) => {
        const cp = withText(a);
        const mixed: Checkpoint = {
          ...cp,
          working: { ...cp.working, next_action: b },
          thread: { ...cp.thread, summary: c, key_exchanges: [{ role: "agent", gist: d }] },
          open_items: [a, b, c, d],
          learnings: [d, c],
          decisions: [{ id: "d1", what: b, when: "2026-01-01T00:00:00Z" }],
        };
        expect(parseCheckpoint(serializeCheckpoint(mixed), "cp_003.yaml")).toEqual(mixed);
      }),
      { numRuns: 300 },
    );
  });

  it("stores a lone surrogate (not valid Unicode, cannot be UTF-8) as U+FFFD", () => {
    const cp = withText("a\uD800b");
    expect(parseCheckpoint(serializeCheckpoint(cp), "x.yaml").working.topic).toBe("a\uFFFDb");
  });
});

describe("checkpoint validation", () => {
  const good = serializeCheckpoint(makeCheckpoint());
  const expectError = (text: string, message: string | RegExp) => {
    let err: unknown;
    try {
      parseCheckpoint(text, "/some/dir/cp_003.yaml");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CheckpointError);
    expect((err as Error).message).toMatch(message);
  };

  it("names the file and the field path", () => {
    expectError(good.replace('trigger: "compaction"', 'trigger: "whenever"'), /^cp_003\.yaml: meta\.trigger: expected one of auto-80pct\|compaction\|session-end/);
    expectError(good.replace('status: "waiting_for_user"', "status: busy"), /^cp_003\.yaml: working\.status: expected one of in_progress\|idle\|waiting_for_user/);
    expectError(good.replace('role: "agent"', 'role: "system"'), /^cp_003\.yaml: thread\.key_exchanges\[1\]\.role: expected one of user\|agent/);
    expectError(good.replace("input_tokens: 162431", "input_tokens: -1"), /meta\.token_usage\.input_tokens: expected a non-negative integer/);
    expectError(good.replace("utilization: 0.81", "utilization: .nan"), /meta\.token_usage\.utilization: expected a finite number/);
    expectError(good.replace("compaction_count: 2", 'compaction_count: "2"'), /meta\.compaction_count: expected a non-negative integer/);
    expectError(good.replace("interrupted: true", "interrupted: yes"), /working\.interrupted: expected true or false/);
    expectError(good.replace('when: "2026-02-24T14:22:00+02:00"', 'when: "yesterday"'), /decisions\[1\]\.when: expected an ISO-8601 date-time/);
    expectError(good.replace('checkpoint_id: "cp_003"', 'checkpoint_id: "cp_3"'), /meta\.checkpoint_id: expected a checkpoint id/);
    expectError(good.replace('previous_checkpoint: "cp_002"', 'previous_checkpoint: "../x"'), /meta\.previous_checkpoint: expected a checkpoint id/);
    expectError(good.replace(/ {2}- "notes\/trip.md"/, "    - 42"), /resources\.files_read\[0\]: expected a string, got number 42/);
    expectError(good.replace(/\nlearnings:[\s\S]*$/, "\n"), /^cp_003\.yaml: learnings: missing/);
    expectError(good.replace(/\nworking:/, "\nworking_x:"), /^cp_003\.yaml: working: missing/);
  });

  it("checks schema and schema_version", () => {
    expectError(good.replace('schema: "openclaw/checkpoint"', 'schema: "other"'), /^cp_003\.yaml: schema: expected "openclaw\/checkpoint"/);
    expectError(good.replace("schema_version: 1", "schema_version: 2"), /^cp_003\.yaml: schema_version: unsupported version number 2/);
  });

  it("rejects broken YAML, duplicate keys, several documents, aliases and empty files", () => {
    expectError(good.slice(0, Math.floor(good.length / 2)) + '\n  "unterminated', /^cp_003\.yaml: invalid YAML/);
    expectError(`${good}schema_version: 1\n`, /invalid YAML/);
    expectError(`${good}---\n${good}`, /invalid YAML/);
    expectError(good.replace('channel: "telegram"', 'channel: &c "telegram"').replace('agent_id: "default"', "agent_id: *c"), /invalid YAML/);
    expectError("", /^cp_003\.yaml: empty file/);
    expectError("- a\n- b\n", /expected a mapping at the top level/);
  });

  it("defaults the two additive fields when a v1 file omits them", () => {
    const old = good.replace(/ {2}session_id: "sess-1"\n/, "").replace(/ {2}errors:\n[\s\S]*?(?=open_items:)/, "");
    expect(old).not.toContain("session_id");
    const cp = parseCheckpoint(old, "cp_003.yaml");
    expect(cp.meta.session_id).toBeNull();
    expect(cp.thread.errors).toEqual([]);
  });

  it("serializeCheckpoint refuses an invalid checkpoint instead of writing it", () => {
    const bad = makeCheckpoint();
    (bad.meta as { trigger: string }).trigger = "nope";
    expect(() => serializeCheckpoint(bad)).toThrow(/cp_003\.yaml: meta\.trigger: expected one of/);
  });
});
