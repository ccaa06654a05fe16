/**
 * Validation of the optional `meta.breakdown` block (issue 27; absent -> undefined). Same
 * contract as the rest of the schema: a bad field is a CheckpointError naming the file and the
 * field path. Unknown category names are ignored (room for more categories within v1).
 */
import { CheckpointError } from "./errors.js";
import { BREAKDOWN_CATEGORIES, type BreakdownCategory, type BreakdownItem, type ContextBreakdown } from "./schema.js";

type Obj = Record<string, unknown>;
const SOURCES = ["sdk", "estimate"] as const;

export function validateBreakdown(meta: Obj, file: string): ContextBreakdown | undefined {
  const raw = meta.breakdown;
  if (raw === undefined) return undefined;
  const fail = (field: string, detail: string): never => {
    throw new CheckpointError(file, `meta.breakdown${field}`, detail);
  };
  const obj = (v: unknown, field: string): Obj =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : fail(field, "expected a mapping");
  const str = (v: unknown, field: string): string => (typeof v === "string" ? v : fail(field, "expected a string"));
  const nullableStr = (v: unknown, field: string): string | null => (v === null ? null : str(v, field));
  const count = (v: unknown, field: string): number =>
    typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : fail(field, "expected a non-negative integer");
  const int = (v: unknown, field: string): number => (typeof v === "number" && Number.isSafeInteger(v) ? v : fail(field, "expected an integer"));
  const list = (v: unknown, field: string): unknown[] => (Array.isArray(v) ? v : fail(field, "expected a list"));
  const cut = (v: unknown, field: string) => {
    const o = obj(v, field);
    return { tokens: count(o.tokens, `${field}.tokens`), items: count(o.items, `${field}.items`) };
  };

  const b = obj(raw, "");
  const source = b.source;
  if (typeof source !== "string" || !(SOURCES as readonly string[]).includes(source)) fail(".source", `expected one of ${SOURCES.join("|")}`);
  const cats = obj(b.categories, ".categories");
  const categories: Partial<Record<BreakdownCategory, number>> = {};
  for (const c of BREAKDOWN_CATEGORIES) if (cats[c] !== undefined) categories[c] = count(cats[c], `.categories.${c}`);
  const byTool = (key: "tool_results_by_tool" | "tool_definitions_by_tool") =>
    list(b[key], `.${key}`).map((item, i) => {
      const o = obj(item, `.${key}[${i}]`);
      return { tool: str(o.tool, `.${key}[${i}].tool`), tokens: count(o.tokens, `.${key}[${i}].tokens`) };
    });
  const largest: BreakdownItem[] = list(b.largest, ".largest").map((item, i) => {
    const f = `.largest[${i}]`;
    const o = obj(item, f);
    return {
      role: str(o.role, `${f}.role`),
      tool: nullableStr(o.tool, `${f}.tool`),
      target: str(o.target, `${f}.target`),
      tokens: count(o.tokens, `${f}.tokens`),
      handle: nullableStr(o.handle, `${f}.handle`),
    };
  });
  const reuse = b.cache_reuse === undefined ? undefined : obj(b.cache_reuse, ".cache_reuse");
  const removed = obj(b.removed, ".removed");
  const headroom = obj(b.headroom, ".headroom");
  return {
    total_tokens: count(b.total_tokens, ".total_tokens"),
    estimated_tokens: count(b.estimated_tokens, ".estimated_tokens"),
    source: source as ContextBreakdown["source"],
    messages: count(b.messages, ".messages"),
    categories,
    tool_results_by_tool: byTool("tool_results_by_tool"),
    tool_definitions_by_tool: byTool("tool_definitions_by_tool"),
    largest,
    removed: {
      aged_offload: cut(removed.aged_offload, ".removed.aged_offload"),
      smart_trim: removed.smart_trim === null || removed.smart_trim === undefined ? null : cut(removed.smart_trim, ".removed.smart_trim"),
    },
    headroom: {
      to_checkpoint: int(headroom.to_checkpoint, ".headroom.to_checkpoint"),
      to_compaction: headroom.to_compaction === null ? null : int(headroom.to_compaction, ".headroom.to_compaction"),
    },
    ...(reuse
      ? { cache_reuse: { percent: count(reuse.percent, ".cache_reuse.percent"), prompt_tokens: count(reuse.prompt_tokens, ".cache_reuse.prompt_tokens"), cause: nullableStr(reuse.cause, ".cache_reuse.cause"), ...reuseRules(reuse.rules) } }
      : {}),
  };
}

/** `cache_reuse.rules`: absent in checkpoints written before it (their estimate was Anthropic's); an unknown value is dropped. */
function reuseRules(v: unknown): { rules?: "anthropic" | "openai" } {
  return v === "anthropic" || v === "openai" ? { rules: v } : {};
}
