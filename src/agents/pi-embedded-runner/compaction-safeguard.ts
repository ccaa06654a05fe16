/**
 * HOST STAND-IN for OpenClaw core's compaction-safeguard (openclaw@2026.9.6
 * `src/agents/agent-hooks/compaction-safeguard.ts`): its `session_before_compact` handler FIRST
 * awaits the context manager's seam (`compactWithCheckpoint`, the one line this project adds to
 * core) so the checkpoint is on disk even when summarization fails, then summarizes with pi's
 * generateSummary and appends tool failures and the read/modified file lists. "checkpoint" mode
 * returns the seam's compaction (no model call); in "host" mode it replaces a summary that fails
 * or is late. Simplified: a fixed fallback summary where 2026.9 cancels; its quality guard,
 * staged summaries and workspace sections are not modelled.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import {
  type ExtensionFactory,
  type FileOperations,
  generateSummary,
  type SessionEntry,
} from "@mariozechner/pi-coding-agent";
import { safeGist } from "../text/gist.js";
import { compactWithCheckpoint } from "../pi-extensions/context-manager.js";

export interface CompactionSafeguardOptions {
  /** where summarization errors go (never thrown into pi) */
  onSummaryError?: (error: unknown) => void;
}

export function createCompactionSafeguardExtension(opts: CompactionSafeguardOptions = {}): ExtensionFactory {
  return (pi) => {
    pi.on("session_before_compact", async (event, ctx) => {
      // --- the lines OpenClaw core adds (spec §8.1): never throw ---
      const cm = await compactWithCheckpoint(event, ctx);
      if (cm.compaction) return { compaction: cm.compaction };

      const { preparation, branchEntries, customInstructions, signal } = event;
      const allMessages: AgentMessage[] = [...preparation.messagesToSummarize, ...preparation.turnPrefixMessages];
      const failures = collectToolFailures(allMessages);
      const files = computeFileLists(preparation.fileOps, branchEntries);

      let summary = FALLBACK_SUMMARY;
      const model = ctx.model;
      if (model) {
        try {
          const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model);
          if (auth.ok && auth.apiKey) {
            summary = await withDeadline(cm.deadlineMs, signal, (summarySignal) =>
              generateSummary(
                allMessages,
                model,
                preparation.settings.reserveTokens,
                auth.apiKey!,
                auth.headers,
                summarySignal,
                customInstructions,
                preparation.previousSummary,
              ),
            );
          }
        } catch (error) {
          if (signal.aborted) return { cancel: true };
          opts.onSummaryError?.(error);
          // --- the checkpoint compaction stands in for the failed or late summary ---
          const fallback = cm.fallback();
          if (fallback) return { compaction: fallback };
          summary = FALLBACK_SUMMARY;
        }
      }
      return {
        compaction: {
          summary: appendSummarySections(summary, failures, files),
          firstKeptEntryId: preparation.firstKeptEntryId,
          tokensBefore: preparation.tokensBefore,
          details: files,
        },
      };
    });
  };
}

/** Runs `fn` with a signal aborted by `signal` or after `ms` (none: no deadline); rejects on the deadline. */
async function withDeadline<T>(ms: number | null, signal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (ms === null) return fn(signal);
  const ac = new AbortController();
  const onAbort = () => ac.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort(new Error(`summary past the ${ms} ms deadline`));
      reject(new Error(`summary past the ${ms} ms deadline`));
    }, ms);
  });
  try {
    return await Promise.race([fn(ac.signal), late]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}

// the non-LLM parts of the summary (seed 001 §2 "Fallback Summary")
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
    // kept in the session file and read by every later turn: redacted before the cut (safeGist)
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
