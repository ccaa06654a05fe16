/**
 * HOST STAND-IN for OpenClaw core (openclaw@2026.9.6)
 * `src/agents/agent-hooks/compaction-safeguard.ts` (before 2026.9:
 * `src/agents/pi-extensions/compaction-safeguard.ts`, the path this file keeps).
 *
 * A faithful minimal safeguard: its `session_before_compact` handler
 *   1. FIRST awaits the context manager's checkpoint hook (the one line this
 *      project adds to core), before any early return, so the structured state
 *      is on disk even when summarization later fails;
 *   2. summarizes with the session's model and key (pi's generateSummary);
 *   3. appends tool failures and the read/modified file lists, and returns a
 *      CompactionResult with details { readFiles, modifiedFiles }.
 * Simplified: on a missing model/key or a failed summary this stand-in uses a
 * fixed fallback summary, where 2026.9 returns `{ cancel: true }` (history
 * kept); its quality guard, staged summaries, preserved recent turns and
 * workspace sections are not modelled. The checkpoint is written either way.
 *
 * Issue 25: the seam line is `compactWithCheckpoint` (it writes the same checkpoint). In
 * "checkpoint" mode its compaction is returned at once (no model call); in "host" mode a
 * summary that fails or runs past `compactionDeadlineMs` is replaced by the checkpoint
 * compaction (before the fixed fallback / cancel).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type ExtensionFactory, generateSummary } from "@mariozechner/pi-coding-agent";
import { compactWithCheckpoint } from "./context-manager-compaction-hook.js";
import {
  appendSummarySections,
  collectToolFailures,
  computeFileLists,
  FALLBACK_SUMMARY,
} from "./compaction-safeguard-summary.js";

export interface CompactionSafeguardOptions {
  /** where summarization errors go (never thrown into pi) */
  onSummaryError?: (error: unknown) => void;
}

export function createCompactionSafeguardExtension(opts: CompactionSafeguardOptions = {}): ExtensionFactory {
  return (pi) => {
    pi.on("session_before_compact", async (event, ctx) => {
      // --- the lines OpenClaw core adds (spec §8.1, issue 25): never throw ---
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
          // --- issue 25: the checkpoint compaction stands in for the failed or late summary ---
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
