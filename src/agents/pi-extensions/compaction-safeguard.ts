/**
 * HOST STAND-IN for OpenClaw core `src/agents/pi-extensions/compaction-safeguard.ts`.
 *
 * A faithful minimal safeguard: its `session_before_compact` handler
 *   1. FIRST awaits the context manager's checkpoint hook (the one line the spec
 *      adds to core, spec §8.1), before any early return, so the structured state
 *      is on disk even when summarization later fails;
 *   2. summarizes with the session's model and key (pi's generateSummary);
 *   3. falls back to a fixed summary when there is no model/key or the call fails;
 *   4. appends tool failures and the read/modified file lists, and returns a
 *      CompactionResult with details { readFiles, modifiedFiles }.
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
