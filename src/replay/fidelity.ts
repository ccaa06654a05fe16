/**
 * Ground truth from the transcript itself, compared with what a checkpoint holds.
 * Only tool results the replay actually delivered count (so a compaction is
 * judged on what had happened before it). Paths are normalized with the
 * capture's own rule (normalizeToolPath) so that "src/a.ts" and "./src/a.ts" match.
 */
import type { Checkpoint } from "../agents/checkpoint/schema.js";
import { extractToolResult, normalizeToolPath } from "../agents/state/capture-rules.js";
import { gist } from "../agents/text/gist.js";
import { redactSecrets } from "../agents/text/redact.js";
import type { ToolDelivery } from "./replay-tools.js";
import { isEmptySearch } from "../agents/messages/tool-outcome.js";
import { textOf } from "./transcript.js";

const MODIFY_TOOLS = new Set(["write", "edit"]);

export interface Recall {
  expected: number;
  found: number;
  recall: number;
  missing: string[];
}

export interface Fidelity {
  modifiedFiles: Recall;
  toolsUsed: Recall;
  toolFailures: Recall;
}

export interface GroundTruth {
  modifiedFiles: string[];
  toolsUsed: string[];
  /** distinct "tool target" keys, oldest first */
  failures: string[];
}

function pathArg(input: Record<string, unknown>): string | null {
  const p = input.path ?? input.file_path;
  return typeof p === "string" && p.trim() !== "" ? p : null;
}

export function groundTruth(delivered: readonly ToolDelivery[], cwd: string): GroundTruth {
  const modified = new Set<string>();
  const tools = new Set<string>();
  const failures = new Map<string, true>();
  for (const { result, input } of delivered) {
    tools.add(result.toolName);
    const p = pathArg(input);
    if (!result.isError && MODIFY_TOOLS.has(result.toolName) && p) modified.add(normalizeToolPath(p, cwd));
    // a grep/rg that only found nothing is not a failure (the capture's rule, tool-outcome.ts)
    if (result.isError && !isEmptySearch(result.toolName, input, textOf(result.content))) {
      const cap = extractToolResult({ toolName: result.toolName, input, content: result.content, isError: true }, cwd);
      const key = failureKeyOf(cap.failure!.tool, cap.failure!.target);
      failures.delete(key); // most recent last
      failures.set(key, true);
    }
  }
  return { modifiedFiles: [...modified], toolsUsed: [...tools], failures: [...failures.keys()] };
}

function failureKeyOf(tool: string, target: string): string {
  return `${tool} ${target}`.trim();
}

function recall(expected: readonly string[], have: ReadonlySet<string>): Recall {
  const missing = expected.filter((e) => !have.has(e));
  const found = expected.length - missing.length;
  return { expected: expected.length, found, recall: expected.length === 0 ? 1 : found / expected.length, missing };
}

/** Recall of the ground truth in a checkpoint; failures only up to the cap (the most recent ones). */
export function checkpointFidelity(gt: GroundTruth, cp: Checkpoint, caps: { maxErrors: number; maxFiles: number; maxTools: number }): Fidelity {
  const failures = new Set(cp.thread.errors.map((f) => failureKeyOf(f.tool, f.target)));
  return {
    modifiedFiles: recall(gt.modifiedFiles.slice(-caps.maxFiles), new Set(cp.resources.files_modified)),
    toolsUsed: recall(gt.toolsUsed.slice(-caps.maxTools), new Set(cp.resources.tools_used)),
    toolFailures: recall(gt.failures.slice(-caps.maxErrors), failures),
  };
}

/** The gist of a user request as the capture keeps it, minus the ellipsis, for a containment check. */
export function requestGist(text: string, chars = 60): string {
  return gist(redactSecrets(text), chars).replace(/…$/, "").trim();
}

export function restoreMentions(restoreText: string, request: string): boolean {
  const needle = requestGist(request);
  if (!needle) return true;
  return gist(restoreText, 1_000_000).includes(needle);
}
