/**
 * Optional tool `context_note` (config `noteTool`): the agent records a decision, an open item or
 * a learning explicitly. Off by default: it costs about 115 prompt tokens (chars/4) on EVERY
 * request, and the structural rules capture decisions and open items without it.
 */
import { Type } from "@mariozechner/pi-ai";
import type { ExtensionContext, ToolDefinition } from "@mariozechner/pi-coding-agent";

export const NOTE_TOOL_NAME = "context_note";
const NOTE_KINDS = ["decision", "open_item", "learning", "close_item"] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];

const parameters = Type.Object({
  kind: Type.Union(NOTE_KINDS.map((k) => Type.Literal(k))),
  text: Type.String({ description: "One short line." }),
});

/** `record` stores the note and returns the confirmation shown to the agent. */
export function createContextNoteTool(
  record: (kind: NoteKind, text: string, ctx: ExtensionContext) => Promise<string>,
): ToolDefinition<typeof parameters> {
  return {
    name: NOTE_TOOL_NAME,
    label: "Context note",
    description:
      "Record a decision, an open item, or a learning so it survives context compaction; close_item marks an open item done.",
    parameters,
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const message = await record(params.kind, params.text, ctx);
      return { content: [{ type: "text", text: message }], details: undefined };
    },
  };
}
