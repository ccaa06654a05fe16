/**
 * The non-LLM parts of the safeguard's summary: tool failures and the
 * read/modified file lists, and the fallback text used when there is no model,
 * no key, or summarization fails (seed 001 §2 "Fallback Summary").
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { FileOperations, SessionEntry } from "@mariozechner/pi-coding-agent";
import { safeGist } from "../text/safe-gist.js";

export const FALLBACK_SUMMARY = "Summary unavailable due to context limits. Older messages were truncated.";
export const MAX_TOOL_FAILURES = 8;
export const MAX_TOOL_FAILURE_CHARS = 240;

export interface ToolFailureLine {
  toolName: string;
  text: string;
}

/** Up to 8 failed tool results, newest kept, each one line of at most 240 chars. */
export function collectToolFailures(messages: readonly AgentMessage[]): ToolFailureLine[] {
  const out: ToolFailureLine[] = [];
  for (const m of messages) {
    if (m.role !== "toolResult" || !m.isError) continue;
    const raw = (Array.isArray(m.content) ? m.content : []).map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : "")).join(" ");
    // the summary is kept in the session file and read by every later turn: redacted before the
    // cut (safeGist: a bounded window cut between tokens, redacted, one line, then cut)
    out.push({ toolName: safeGist(m.toolName, 80), text: safeGist(raw, MAX_TOOL_FAILURE_CHARS) });
  }
  return out.slice(-MAX_TOOL_FAILURES);
}

/** File lists from this compaction's fileOps, unioned with the previous compaction's details. */
export function computeFileLists(
  fileOps: FileOperations,
  branchEntries: readonly SessionEntry[],
): { readFiles: string[]; modifiedFiles: string[] } {
  const modified = new Set<string>([...fileOps.written, ...fileOps.edited]);
  const read = new Set<string>(fileOps.read);
  for (let i = branchEntries.length - 1; i >= 0; i--) {
    const entry = branchEntries[i]!;
    if (entry.type !== "compaction") continue;
    const details = entry.details as { readFiles?: unknown; modifiedFiles?: unknown } | undefined;
    for (const f of Array.isArray(details?.modifiedFiles) ? details.modifiedFiles : []) if (typeof f === "string") modified.add(f);
    for (const f of Array.isArray(details?.readFiles) ? details.readFiles : []) if (typeof f === "string") read.add(f);
    break;
  }
  for (const f of modified) read.delete(f);
  return { readFiles: [...read].sort(), modifiedFiles: [...modified].sort() };
}

export function appendSummarySections(
  summary: string,
  failures: readonly ToolFailureLine[],
  files: { readFiles: string[]; modifiedFiles: string[] },
): string {
  const parts = [summary.trim()];
  if (failures.length > 0) {
    parts.push(["## Tool failures", ...failures.map((f) => `- ${f.toolName}: ${f.text}`)].join("\n"));
  }
  if (files.readFiles.length > 0) parts.push(`<read-files>\n${files.readFiles.join("\n")}\n</read-files>`);
  if (files.modifiedFiles.length > 0) parts.push(`<modified-files>\n${files.modifiedFiles.join("\n")}\n</modified-files>`);
  return parts.join("\n\n");
}
