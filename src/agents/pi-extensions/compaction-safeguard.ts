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
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type ExtensionFactory, generateSummary } from "@mariozechner/pi-coding-agent";
import { writeCompactionCheckpoint } from "./context-manager-compaction-hook.js";
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
      // --- the one line OpenClaw core adds (spec §8.1): never throws ---
      await writeCompactionCheckpoint(event, ctx);

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
            summary = await generateSummary(
              allMessages,
              model,
              preparation.settings.reserveTokens,
              auth.apiKey,
              auth.headers,
              signal,
              customInstructions,
              preparation.previousSummary,
            );
          }
        } catch (error) {
          if (signal.aborted) return { cancel: true };
          opts.onSummaryError?.(error);
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
