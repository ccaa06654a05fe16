/**
 * A recorded transcript (JSON array of Pi messages) cut into what the replay
 * needs: the inbound user texts in order, the assistant replies that answered
 * each, and the recorded tool results by toolCallId.
 */
import { readFileSync } from "node:fs";
import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";

export interface RecordedMessage {
  role: string;
  content?: unknown;
  [key: string]: unknown;
}

export interface ReplaySegment {
  /** the inbound text (consecutive user messages joined: the agent saw them together) */
  text: string;
  /** recorded assistant replies of this turn, in order */
  replies: AssistantMessage[];
  /** index in the transcript of the segment's last user message */
  userIndex: number;
  /** index in the transcript of each reply */
  replyIndexes: number[];
}

export interface RecordedToolResult {
  toolCallId: string;
  toolName: string;
  content: ToolResultMessage["content"];
  isError: boolean;
  /** arguments of the tool call that produced it ({} when the call was not found) */
  input: Record<string, unknown>;
  /** index of this result in the transcript */
  index: number;
}

export interface Transcript {
  name: string;
  messages: RecordedMessage[];
  segments: ReplaySegment[];
  /** recorded results by toolCallId, in recording order (ids may repeat) */
  results: Map<string, RecordedToolResult[]>;
  resultCount: number;
  toolNames: string[];
  /** tool calls whose result is missing (interrupted turns) */
  orphanToolCalls: number;
}

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: string; text?: string }) => (b && b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .join("");
}

type ToolCallBlock = { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };

export function toolCallsOf(m: RecordedMessage): ToolCallBlock[] {
  if (m.role !== "assistant" || !Array.isArray(m.content)) return [];
  return (m.content as Array<{ type?: string }>).filter((b): b is ToolCallBlock => b?.type === "toolCall");
}

export function loadTranscript(path: string): Transcript {
  const raw: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (!Array.isArray(raw)) throw new Error(`${path}: expected a JSON array of Pi messages`);
  const name = path.replace(/^.*[\\/]/, "").replace(/\.json$/, "");
  return parseTranscript(name, raw as RecordedMessage[]);
}

export function parseTranscript(name: string, messages: RecordedMessage[]): Transcript {
  // Tool call ids are not unique in every recording (SWE-agent reuses them):
  // results are paired with the calls of the assistant message they follow.
  const results = new Map<string, RecordedToolResult[]>();
  const toolNames = new Set<string>();
  const answered = new Set<number>(); // indexes of assistant messages with at least one result
  let orphanToolCalls = 0;
  let lastAssistant = -1;
  let pending = new Map<string, ToolCallBlock>();
  const closeTurn = () => (orphanToolCalls += pending.size);
  for (const [i, m] of messages.entries()) {
    if (m.role === "assistant") {
      closeTurn();
      lastAssistant = i;
      pending = new Map(toolCallsOf(m).map((c) => [c.id, c]));
      for (const c of pending.values()) toolNames.add(c.name);
    } else if (m.role === "toolResult") {
      const r = m as unknown as ToolResultMessage;
      toolNames.add(r.toolName);
      const call = pending.get(r.toolCallId);
      pending.delete(r.toolCallId);
      if (call) answered.add(lastAssistant);
      const list = results.get(r.toolCallId) ?? [];
      list.push({
        toolCallId: r.toolCallId,
        toolName: r.toolName,
        content: Array.isArray(r.content) ? r.content : [{ type: "text", text: textOf(r.content) }],
        isError: r.isError === true,
        input: call?.arguments ?? {},
        index: i,
      });
      results.set(r.toolCallId, list);
    }
  }
  closeTurn();

  const segments: ReplaySegment[] = [];
  let current: ReplaySegment | null = null;
  for (const [i, m] of messages.entries()) {
    if (m.role === "user") {
      const text = textOf(m.content);
      if (current && current.replies.length === 0) {
        current.text += `\n\n${text}`;
        current.userIndex = i;
      } else segments.push((current = { text, replies: [], userIndex: i, replyIndexes: [] }));
    } else if (m.role === "assistant") {
      if (!current) {
        segments.push((current = { text: "(replay: transcript starts with an assistant reply)", replies: [], userIndex: -1, replyIndexes: [] }));
      }
      current.replies.push(toReplay(m, answered.has(i)));
      current.replyIndexes.push(i);
    }
  }
  for (const s of segments) if (s.text.trim() === "") s.text = "(empty message)";
  let resultCount = 0;
  for (const l of results.values()) resultCount += l.length;
  return { name, messages, segments, results, resultCount, toolNames: [...toolNames].sort(), orphanToolCalls };
}

/**
 * The reply the faux model returns: recorded content and stop reason; usage and
 * timestamp dropped (the faux provider computes usage for the simulated window,
 * and a recorded timestamp would sit in the past next to live ones). A turn whose
 * tool calls all lack results was interrupted: it is replayed as aborted, so pi
 * runs none of them, as in the recording.
 */
function toReplay(m: RecordedMessage, answered: boolean): AssistantMessage {
  const { usage: _u, timestamp: _t, ...rest } = m as Record<string, unknown>;
  const reply = { ...rest, content: Array.isArray(m.content) ? m.content : [] } as unknown as AssistantMessage;
  const calls = toolCallsOf(m);
  if (calls.length > 0 && !answered) {
    return { ...reply, stopReason: "aborted", errorMessage: reply.errorMessage ?? "interrupted (no recorded tool results)" };
  }
  if (!reply.stopReason) reply.stopReason = calls.length > 0 ? "toolUse" : "stop";
  return reply;
}
