/**
 * Agent tool `context_search` (config `searchTool`, default on): keyword search over the
 * archive of this session key's compacted context. Returns ranked fragments with their
 * time, role, tool and target, quoted and bounded (limit <= 20, maxChars <= 20,000).
 */
import { Type } from "@mariozechner/pi-ai";
import type { ExtensionContext, ToolDefinition } from "@mariozechner/pi-coding-agent";

export const SEARCH_TOOL_NAME = "context_search";

/** The tool's parameters (the CLI's too). */
export interface SearchParams {
  query: string;
  limit?: number;
  maxChars?: number;
  /** whole fragments instead of snippets around the match */
  full?: boolean;
}

/** `query.maxChars`: a 1 MB query held the archive worker ~0.8 s; 2,000 chars is past any query an agent writes. */
export const SEARCH_LIMITS = { limit: { default: 5, max: 20 }, maxChars: { default: 4000, min: 200, max: 20_000 }, query: { maxChars: 2_000 } } as const;

export const clampInt = (v: unknown, def: number, min: number, max: number): number =>
  typeof v === "number" && Number.isFinite(v) ? Math.max(min, Math.min(max, Math.floor(v))) : def;

// Sent with every request: short (archive-hooks.ts checks the bounds again).
const parameters = Type.Object({
  query: Type.String({ maxLength: SEARCH_LIMITS.query.maxChars, description: "words, identifiers, paths" }),
  limit: Type.Optional(Type.Integer({ maximum: SEARCH_LIMITS.limit.max, description: "fragments, default 5" })),
  maxChars: Type.Optional(Type.Integer({ maximum: SEARCH_LIMITS.maxChars.max, description: "default 4000" })),
  full: Type.Optional(Type.Boolean({ description: "whole fragments" })),
});

export function createContextSearchTool(
  search: (params: SearchParams, ctx: ExtensionContext) => Promise<string>,
): ToolDefinition<typeof parameters> {
  return {
    name: SEARCH_TOOL_NAME,
    label: "Context search",
    description:
      "Search what compaction removed from this session (files read, commands, outputs, decisions); returns the best fragments.",
    parameters,
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const text = await search(params, ctx);
      return { content: [{ type: "text", text }], details: undefined };
    },
  };
}
