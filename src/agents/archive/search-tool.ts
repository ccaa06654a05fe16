/**
 * Agent tool `context_search` (config `searchTool`, default on): keyword search over the
 * archive of this session key's compacted context. Returns ranked fragments with their
 * time, role, tool and target, quoted and bounded (limit <= 20, maxChars <= 20,000).
 */
import { Type } from "@mariozechner/pi-ai";
import type { ExtensionContext, ToolDefinition } from "@mariozechner/pi-coding-agent";
import { SEARCH_LIMITS, type SearchParams } from "./search-params.js";

export const SEARCH_TOOL_NAME = "context_search";

const parameters = Type.Object({
  query: Type.String({ maxLength: SEARCH_LIMITS.query.maxChars, description: "Words, identifiers, file names or paths to look for." }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_LIMITS.limit.max, description: "Fragments (default 5)." })),
  maxChars: Type.Optional(
    Type.Integer({ minimum: SEARCH_LIMITS.maxChars.min, maximum: SEARCH_LIMITS.maxChars.max, description: "Result size (default 4000)." }),
  ),
  full: Type.Optional(Type.Boolean({ description: "Whole fragments instead of snippets." })),
});

export function createContextSearchTool(
  search: (params: SearchParams, ctx: ExtensionContext) => Promise<string>,
): ToolDefinition<typeof parameters> {
  return {
    name: SEARCH_TOOL_NAME,
    label: "Context search",
    description:
      "Search the earlier messages and tool results of this session that context compaction removed (files read, commands, outputs, decisions). Returns the best-matching fragments.",
    parameters,
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const text = await search(params, ctx);
      return { content: [{ type: "text", text }], details: undefined };
    },
  };
}
