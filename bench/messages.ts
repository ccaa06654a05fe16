/**
 * Realistic message arrays for the benchmarks: the recorded messages of the
 * largest available transcript, cycled to any length, with fresh ascending
 * timestamps and unique tool call ids (as a live session has).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const SOURCES = ["badlogic__pi-mono__large-session.json", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.json"];

export function loadSourceMessages(repo: string): { name: string; messages: AgentMessage[] } {
  for (const f of SOURCES) {
    const p = resolve(TRANSCRIPTS_DIR, f);
    if (existsSync(p)) return { name: f, messages: JSON.parse(readFileSync(p, "utf8")) as AgentMessage[] };
  }
  return { name: "(synthetic)", messages: syntheticMessages(400) };
}

function syntheticMessages(n: number): AgentMessage[] {
  const out: unknown[] = [];
  for (let i = 0; out.length < n; i++) {
    out.push({ role: "user", content: [{ type: "text", text: `Please fix issue ${i} in src/mod${i}.ts` }], timestamp: 0 });
    out.push({
      role: "assistant",
      content: [{ type: "text", text: `Editing src/mod${i}.ts` }, { type: "toolCall", id: `c${i}`, name: "edit", arguments: { path: `src/mod${i}.ts`, oldText: "a", newText: "b" } }],
      stopReason: "toolUse",
      timestamp: 0,
    });
    out.push({ role: "toolResult", toolCallId: `c${i}`, toolName: "edit", content: [{ type: "text", text: "ok ".repeat(200) }], isError: false, timestamp: 0 });
  }
  return out as AgentMessage[];
}

/** Endless source of fresh messages (tool call ids and timestamps made unique). */
export class MessageFactory {
  private i = 0;
  private ts = Date.now() - 10_000_000;
  private cycle = 0;
  constructor(private readonly source: readonly AgentMessage[]) {}

  next(): AgentMessage {
    if (this.i >= this.source.length) {
      this.i = 0;
      this.cycle++;
    }
    const m = structuredClone(this.source[this.i++]!) as AgentMessage & Record<string, unknown>;
    m.timestamp = this.ts++;
    const suffix = `_${this.cycle}`;
    if (m.role === "toolResult") (m as { toolCallId: string }).toolCallId += suffix;
    if (m.role === "assistant") {
      for (const b of (m as { content: Array<{ type: string; id?: string }> }).content) if (b.type === "toolCall") b.id += suffix;
    }
    return m;
  }

  take(n: number): AgentMessage[] {
    return Array.from({ length: n }, () => this.next());
  }
}
