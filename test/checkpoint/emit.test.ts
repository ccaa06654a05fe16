/**
 * The direct YAML emitter (src/agents/checkpoint/yaml.ts) replaces the parse-back check the
 * writer used to run on every checkpoint: these properties are what make that safe. Every
 * string field and number of a checkpoint is drawn from alphabets built around the characters
 * YAML treats specially (indicators, line breaks of YAML 1.1 and 1.2, controls, BOM,
 * surrogates, white space at the edges); the `yaml` parser must read back exactly the
 * checkpoint that was emitted, with the fixed key set.
 */
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { parseCheckpoint, serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { emitCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { normalizeForDisk } from "../../src/agents/checkpoint/yaml.js";
import { makeCheckpoint } from "./helpers.js";

const SPECIAL = [
  ..."\x00\x01\x07\x08\x09\x0A\x0B\x0C\x0D\x1B\x1F\x7F\x80\x85\x9F\xA0",
  "\u2028", "\u2029", "\uFEFF", "\uFFFE", "\uFFFF", "\uFFFD", "\uD800", "\uDC00", "\uD83C\uDF89", "\u200B", "\u202E", "\u{E0041}",
  ..." \t\n\r#:-|>'\"\\%@`!&*?{}[],~=",
  "---", "...", "- ", ": ", " #", "null", "true", "0x1F", "1e3", ".inf", "<<", "a", "é", "中", "  ", "\n\n",
];
const char = fc.constantFrom(...SPECIAL);
const str = fc.oneof(
  { weight: 4, arbitrary: fc.array(char, { maxLength: 12 }).map((a) => a.join("")) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 20 }), char, fc.string({ maxLength: 20 })).map(([a, c, b]) => `${a}${c}${b}`) },
);
const strs = fc.array(str, { maxLength: 3 });
const when = fc.constantFrom("2026-01-01T00:00:00Z", "2026-02-24T14:22:00.123+02:00");
const count = fc.oneof(fc.constantFrom(0, 1, Number.MAX_SAFE_INTEGER), fc.nat());
const ratio = fc.oneof(fc.constantFrom(0, -0, 1e-7, 0.8123, 1, 1e21, Number.MAX_VALUE, Number.MIN_VALUE), fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }));

const checkpointArb: fc.Arbitrary<Checkpoint> = fc
  .record({
    key: str, sid: fc.option(str), sfile: fc.option(str), channel: fc.option(str), agent: fc.option(str),
    tokens: count, window: count, util: ratio, compactions: count,
    topic: str, next: str, tool: fc.option(fc.tuple(str, str)), interrupted: fc.boolean(),
    decisions: fc.array(fc.tuple(str, str), { maxLength: 3 }),
    read: strs, modified: strs, tools: strs, summary: str,
    exchanges: fc.array(fc.tuple(fc.constantFrom("user" as const, "agent" as const), str), { maxLength: 3 }),
    errors: fc.array(fc.tuple(str, str, str), { maxLength: 2 }), open: strs, learn: strs, w: when,
    work: fc.option(
      fc.record({
        files: fc.array(fc.record({ path: str, edits: count, writes: count, change: str, names: fc.option(strs, { nil: undefined }), mentions: count }), { maxLength: 3 }),
        commands: fc.array(fc.record({ family: str, command: str, runs: count, failures: count, ok: fc.boolean(), exit: fc.option(count) }), { maxLength: 2 }),
        failures: fc.array(fc.tuple(str, str, str), { maxLength: 2 }),
        requests: strs, report: str, answered: fc.boolean(),
      }),
      { nil: undefined },
    ),
  })
  .map((r) => {
    const base = makeCheckpoint();
    return {
      ...base,
      meta: {
        ...base.meta, session_key: r.key, session_id: r.sid, session_file: r.sfile, channel: r.channel, agent_id: r.agent,
        compaction_count: r.compactions, token_usage: { input_tokens: r.tokens, context_window: r.window, utilization: r.util },
      },
      working: {
        topic: r.topic, status: "in_progress", interrupted: r.interrupted, next_action: r.next,
        last_tool_call: r.tool ? { name: r.tool[0], params_summary: r.tool[1] } : null,
      },
      decisions: r.decisions.map(([id, what]) => ({ id, what, when: r.w })),
      resources: { files_read: r.read, files_modified: r.modified, tools_used: r.tools },
      thread: {
        summary: r.summary,
        key_exchanges: r.exchanges.map(([role, gist]) => ({ role, gist })),
        errors: r.errors.map(([tool, target, error]) => ({ tool, target, error, when: r.w })),
      },
      open_items: r.open,
      learnings: r.learn,
      ...(r.work
        ? {
            work: {
              files: r.work.files.map(({ names, ...f }) => ({ ...f, ...(names === undefined ? {} : { names }), last: r.w })),
              commands: r.work.commands.map((c) => ({ ...c, when: r.w })),
              open_failures: r.work.failures.map(([tool, target, error]) => ({ tool, target, error, when: r.w })),
              requests: r.work.requests,
              last_report: r.work.report,
              answered: r.work.answered,
            },
          }
        : {}),
    } satisfies Checkpoint;
  });

export const EMIT_PROPERTY_RUNS = 1000;

describe("direct YAML emitter", () => {
  it(`property (${EMIT_PROPERTY_RUNS} random checkpoints): the parser reads back exactly what was emitted`, () => {
    fc.assert(
      fc.property(checkpointArb, (cp) => {
        const text = emitCheckpoint(normalizeForDisk(cp));
        const back = parseCheckpoint(text, "cp_003.yaml");
        if (!isDeepStrictEqual(back, normalizeForDisk(cp))) {
          throw new Error(`round trip differs:\n${text}`);
        }
        const raw = parseYaml(text) as Record<string, unknown>;
        const keys = ["schema", "schema_version", "meta", "working", "decisions", "resources", "thread", "open_items", "learnings"];
        expect(Object.keys(raw).filter((k) => k !== "work")).toEqual(keys);
        expect("work" in raw).toBe(cp.work !== undefined);
      }),
      { numRuns: EMIT_PROPERTY_RUNS },
    );
  });

  it("serializeCheckpoint validates, then emits; the text is what a reader parses back", () => {
    const cp = makeCheckpoint();
    expect(parseCheckpoint(serializeCheckpoint(cp), "cp_003.yaml")).toEqual(cp);
    expect(() => serializeCheckpoint({ ...cp, meta: { ...cp.meta, trigger: "x" as never } })).toThrow(/meta\.trigger/);
  });

  it("block literal only for text with no white space at its edges and only block-safe characters", () => {
    const t = (s: string) => emitCheckpoint({ ...makeCheckpoint(), working: { ...makeCheckpoint().working, topic: s } });
    expect(t("two\nlines")).toContain("  topic: |-\n    two\n    lines\n");
    expect(t(" lead")).toContain('  topic: " lead"\n');
    expect(t("trail\n")).toContain('  topic: "trail\\n"\n');
    expect(t("nel\u0085x")).toContain('  topic: "nel\\u0085x"\n');
    expect(t("bom\uFEFFx")).toContain('  topic: "bom\\uFEFFx"\n');
    expect(t("ls\u2028x")).toContain('  topic: "ls\\u2028x"\n');
  });

  it("normalizeForDisk copies only what it changes: a lone surrogate and -0 deep inside, the input untouched", () => {
    const cp = makeCheckpoint();
    expect(normalizeForDisk(cp)).toBe(cp); // nothing to change: no copy
    const bad = makeCheckpoint();
    bad.decisions = [{ ...bad.decisions[0]!, what: "a\uD800b" }, ...bad.decisions.slice(1)];
    bad.meta = { ...bad.meta, token_usage: { ...bad.meta.token_usage, utilization: -0 } };
    const before = structuredClone(bad);
    const out = normalizeForDisk(bad);
    expect(out.decisions[0]!.what).toBe("a\uFFFDb");
    expect(Object.is(out.meta.token_usage.utilization, 0)).toBe(true);
    expect(bad).toStrictEqual(before);
    expect(Object.is(bad.meta.token_usage.utilization, -0)).toBe(true);
    expect(out.thread).toBe(bad.thread); // untouched branches are shared
  });
});
