/**
 * Agent tool `context_search` (config `searchTool`, default on): keyword search over the
 * archive of this session key's compacted context. Returns ranked fragments with their
 * time, role, tool and target, quoted and bounded (limit <= 20, maxChars <= 20,000).
 */
import { Type } from "@mariozechner/pi-ai";
import type { ExtensionContext, ToolDefinition } from "@mariozechner/pi-coding-agent";
import { SEARCH_LIMITS, type SearchParams } from "./search-params.js";

export const SEARCH_TOOL_NAME = "context_search";

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
      return { content: [{ type: "text", text: await search(params, ctx) }], details: undefined };
    },
  };
}
