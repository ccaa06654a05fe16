/**
 * The agent tool `artifact_fetch`: a bounded excerpt of a stashed output by handle. Its schema
 * and description go with every request, so both are short (`fetchToolPromptTokens()`).
 */
import { Type } from "@mariozechner/pi-ai";
import type { ToolDefinition } from "@mariozechner/pi-coding-agent";
import { estimateTextTokens } from "../text/token-estimate.js";
import { FETCH_TOOL_NAME } from "./preview.js";
import { FETCH_DEFAULT_MAX_CHARS, FETCH_HARD_MAX_CHARS, type FetchMode, selectFromArtifact } from "./select.js";
import { readArtifact } from "./store.js";

// `mode` is a plain enum (a union of literals serializes as one object per value)
const parameters = Type.Object({
  handle: Type.String(),
  mode: Type.Optional(Type.Unsafe<FetchMode>({ type: "string", enum: ["headtail", "range", "grep", "json"] })),
  startLine: Type.Optional(Type.Integer()),
  endLine: Type.Optional(Type.Integer()),
  pattern: Type.Optional(Type.String()),
  context: Type.Optional(Type.Integer()),
  path: Type.Optional(Type.String()),
  maxChars: Type.Optional(Type.Integer()),
});

// the modes' fields are named by the [more: …] line under every preview (preview.ts)
const DESCRIPTION = `Read part of a stored tool output by its ocm_artifact handle. grep: RE2 pattern, context lines. json: path like items[0].id. maxChars default ${FETCH_DEFAULT_MAX_CHARS}, max ${FETCH_HARD_MAX_CHARS}.`;

/** `stateDir` is resolved per call (it may differ per session). */
export function createArtifactFetchTool(opts: {
  stateDir: (ctx: unknown) => string | Promise<string | null> | null;
}): ToolDefinition<typeof parameters> {
  return {
    name: FETCH_TOOL_NAME,
    label: "Artifact fetch",
    description: DESCRIPTION,
    parameters,
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const stateDir = await opts.stateDir(ctx);
      if (!stateDir) throw new Error("artifact_fetch: the context manager is not active in this session");
      // models sometimes pad what they copy; the handle itself is still parsed strictly
      const { handle: raw, ...selector } = params;
      const handle = typeof raw === "string" ? raw.trim() : raw;
      const sel = selectFromArtifact(handle, readArtifact(stateDir, handle), selector);
      return { content: [{ type: "text", text: sel.text }], details: { selector: sel.selector, truncated: sel.truncated } };
    },
  };
}

/** chars/4 of what a provider receives for this tool (name, description, JSON schema). */
export function fetchToolPromptTokens(): number {
  const t = createArtifactFetchTool({ stateDir: () => null });
  return estimateTextTokens(JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }));
}
