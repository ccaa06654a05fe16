/**
 * Who wrote a user-role message. OpenClaw (2026.9, `src/sessions/input-provenance.ts`) puts
 * text the user did not write in user-role messages and says so:
 * - `provenance: { kind: "internal_system", sourceTool }` on heartbeats, cron and exec wakes,
 *   restart recovery (the persisted message);
 * - `provenance: { kind: "inter_session", … }` on another session's or a subagent's message,
 *   whose prompt text also starts with the host's header line
 *   `[Inter-session message] sourceSession=… isUser=false` (`annotateInterSessionPromptText`);
 * - `isHeartbeat: true` on the context engine's afterTurn (the live message has no provenance).
 * OpenClaw's own memory index treats them the same way (memory-host `session-files.ts`: an
 * inter-session message is not what the user said; a heartbeat turn is skipped whole).
 * Structural only: the host's field and its fixed header line, never a word of the text.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

/** user: the user's own words; host: written by the host or another session; heartbeat: a heartbeat prompt. */
export type UserOrigin = "user" | "host" | "heartbeat";

/** The first line OpenClaw's annotateInterSessionPromptText puts before an inter-session message. */
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

/** Total: a malformed message is the user's (the safe default: nothing of it is dropped). */
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

/**
 * The turn's messages of an OpenClaw afterTurn with `isHeartbeat: true`: its user messages
 * (from `from` on) carry the heartbeat provenance the live messages lack. Copies, the
 * history itself is not touched.
 */
export function markHeartbeatTurn(messages: readonly AgentMessage[], from: number): AgentMessage[] {
  const start = Math.max(0, Math.min(messages.length, Number.isFinite(from) ? Math.floor(from) : messages.length));
  return messages.map((m, i) =>
    i >= start && m?.role === "user" && !provenanceOf(m)
      ? ({ ...m, provenance: { kind: "internal_system", sourceTool: "heartbeat" } } as AgentMessage)
      : m,
  );
}
