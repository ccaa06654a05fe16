/**
 * Readers of Pi messages (user text, assistant text and calls, tool result text, our own
 * blocks). Structural only; bounded on huge or hostile content; nothing redacted here.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage, UserMessage } from "@mariozechner/pi-ai";
import { asText, cutHead } from "../text/gist.js";
import { customTypeOf, GAUGE_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "./custom-types.js";

/** Never captured as conversation. */
export const INJECTED_CUSTOM_TYPES: ReadonlySet<string> = new Set([GAUGE_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE]);

const PATH_KEYS = ["path", "file_path", "filePath", "file"] as const;

/** The path argument of a tool call; null when none or when PATH_KEYS disagree. */
export function toolPathArg(input: unknown): string | null {
  let found: string | null = null;
  for (const key of PATH_KEYS) {
    const v = prop(input, key);
    if (typeof v !== "string" || v.trim() === "") continue;
    if (found !== null && found !== v) return null;
    found = v;
  }
  return found;
}

/** `obj[key]`, or undefined when reading it throws (a getter or proxy in hostile input). */
export function prop(obj: unknown, key: string): unknown {
  if (!obj || typeof obj !== "object") return undefined;
  try {
    return (obj as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** Plain text of content (string or text blocks), bounded. */
export function contentText(content: unknown, maxChars = 4000): string {
  if (typeof content === "string") return cutHead(content, maxChars);
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const block of content) {
    if (out.length >= maxChars) break;
    if (block && typeof block === "object" && (block as { type?: unknown }).type === "text") {
      const t = (block as { text?: unknown }).text;
      if (typeof t === "string") out += (out ? "\n" : "") + cutHead(t, maxChars - out.length);
    }
  }
  return out;
}

const SYSTEM_LINE = /^System(?: \(untrusted\))?:/;

/** Drops the `System:` / `System (untrusted):` lines an OpenClaw host prepends (and blanks after). */
export function stripHostSystemLines(text: string): string {
  if (!SYSTEM_LINE.test(text)) return text;
  const lines = text.split(/\r\n|\r|\n/);
  let i = 0;
  while (i < lines.length && SYSTEM_LINE.test(lines[i]!)) i++;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  return lines.slice(i).join("\n");
}

/**
 * Removes host-injected blocks: `<name …>` … `</name>` on their own lines, `name` lower-case and
 * hyphenated (`<system-reminder>`, `<task-notification>`); HTML tags have no hyphen and stay.
 */
export function stripHostBlocks(text: string): string {
  if (!text.includes("</")) return text;
  return text.replace(/^[ \t]*<([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?:\s[^>]*)?>[\s\S]*?<\/\1>[ \t]*$/gm, "").trim();
}

/** The user's own text without host-injected lines and blocks; "" when nothing is left. */
export function userText(msg: AgentMessage): string {
  if (!msg || msg.role !== "user") return "";
  const content = (msg as UserMessage).content;
  const raw = typeof content === "string" ? content : contentText(content, 20_000);
  return stripHostBlocks(stripHostSystemLines(raw)).trim();
}

/** Text blocks of an assistant message only (no thinking, no tool calls). */
export function assistantText(msg: AssistantMessage): string {
  return contentText(msg.content, ASSISTANT_TEXT_MAX).trim();
}

/** Assistant text looked at per message (gists are far shorter; bounds work on huge replies). */
const ASSISTANT_TEXT_MAX = 200_000;

export function toolCallsOf(msg: AssistantMessage): Array<{ id: string; name: string; arguments: unknown }> {
  const content: unknown = msg.content;
  if (!Array.isArray(content)) return [];
  return (content as Array<{ type?: unknown; id?: unknown; name?: unknown; arguments?: unknown } | null>)
    .filter((b) => b && typeof b === "object" && b.type === "toolCall")
    .map((b) => ({ id: asText(b!.id), name: asText(b!.name), arguments: b!.arguments }));
}

/** The message is one of ours (gauge / restore) and must never be captured. */
export function isInjectedMessage(msg: AgentMessage): boolean {
  return INJECTED_CUSTOM_TYPES.has(customTypeOf(msg) ?? "");
}
