/**
 * What the agent can already see (lower-cased text of the messages in context), so the automatic
 * recall leaves out query terms visible anyway: a request naming only things in view gets no block.
 * Syntax only (substrings), bounded per message.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { contentText } from "../messages/read.js";

/** Chars looked at per message (a 1 MB tool output is not scanned whole). */
const PER_MESSAGE = 64_000;

function textOf(m: AgentMessage): string {
  const parts: string[] = [];
  const c = (m as { content?: unknown }).content;
  if (typeof c === "string") parts.push(c.slice(0, PER_MESSAGE));
  else if (Array.isArray(c)) {
    parts.push(contentText(c, PER_MESSAGE));
    for (const b of c as Array<Record<string, unknown>>) {
      if (b?.type === "toolCall") {
        try {
          parts.push(JSON.stringify(b.arguments ?? {}).slice(0, PER_MESSAGE));
        } catch {
          // unserializable arguments: nothing visible from them
        }
      }
    }
  }
  const x = m as { summary?: unknown; command?: unknown; output?: unknown };
  for (const v of [x.summary, x.command, x.output]) if (typeof v === "string") parts.push(v.slice(0, PER_MESSAGE));
  return parts.join("\n");
}

/** Lower-cased visible text of `messages` except those at `skip` (the requests the query is made of). */
export function visibleText(messages: readonly AgentMessage[], skip: ReadonlySet<number>): string {
  const out: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    if (skip.has(i)) continue;
    try {
      out.push(textOf(messages[i]!));
    } catch {
      // a hostile message shape: counts as nothing visible
    }
  }
  return out.join("\n").toLowerCase();
}
