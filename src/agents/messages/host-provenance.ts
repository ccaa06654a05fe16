/**
 * Who wrote a user-role message, from OpenClaw's marks (2026.9, `src/sessions/input-provenance.ts`):
 * `provenance.kind` "internal_system" / "inter_session", the inter-session header line, and
 * `isHeartbeat` on afterTurn. Structural only, never a word of the text.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

export type UserOrigin = "user" | "host" | "heartbeat";

/** OpenClaw's annotateInterSessionPromptText header line. */
const INTER_SESSION_HEADER = /^\[Inter-session message\](?: [A-Za-z]+=\S*)* isUser=false[ \t]*(?:\r?\n|$)/;

function provenanceOf(msg: AgentMessage): { kind?: unknown; sourceTool?: unknown } | null {
  const p = (msg as { provenance?: unknown }).provenance;
  return p && typeof p === "object" ? (p as { kind?: unknown; sourceTool?: unknown }) : null;
}

function leadingText(msg: AgentMessage): string {
  const content = (msg as { content?: unknown }).content;
  if (typeof content === "string") return content.slice(0, 400);
  if (!Array.isArray(content)) return "";
  const first = content.find((b) => b && typeof b === "object" && (b as { type?: unknown }).type === "text") as { text?: unknown } | undefined;
  return typeof first?.text === "string" ? first.text.slice(0, 400) : "";
}

/** A malformed message is the user's (the safe default: nothing of it is dropped). */
export function userOrigin(msg: AgentMessage): UserOrigin {
  try {
    if (!msg || msg.role !== "user") return "user";
    const p = provenanceOf(msg);
    if (p?.kind === "internal_system") return p.sourceTool === "heartbeat" ? "heartbeat" : "host";
    if (p?.kind === "inter_session") return "host";
    return INTER_SESSION_HEADER.test(leadingText(msg)) ? "host" : "user";
  } catch {
    return "user";
  }
}

/** An `isHeartbeat` afterTurn: copies with its user messages (from `from` on) marked as heartbeat. */
export function markHeartbeatTurn(messages: readonly AgentMessage[], from: number): AgentMessage[] {
  const start = Math.max(0, Math.min(messages.length, Number.isFinite(from) ? Math.floor(from) : messages.length));
  return messages.map((m, i) =>
    i >= start && m?.role === "user" && !provenanceOf(m)
      ? ({ ...m, provenance: { kind: "internal_system", sourceTool: "heartbeat" } } as AgentMessage)
      : m,
  );
}
