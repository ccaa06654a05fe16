/** Layer A into state (spec §7.2, docs/capture-rules.md), by the rules of tool-result-rules.ts. */
import { prop, toolPathArg } from "../messages/read.js";
import { asText } from "../text/gist.js";
import { safeGist } from "../text/safe-gist.js";
import { changeGist, commandFamily, exitCodeOf, isEmptySearch } from "../messages/tool-outcome.js";
import { removedPaths } from "../messages/shell-removals.js";
import { GIST } from "./capture-sizes.js";
import { contentHeadTail, extractToolResult, normalizeToolPath, type ToolResultEventLike } from "./tool-result-rules.js";
import { changedText, declaredNames } from "./declared-names.js";
import type { CaptureTarget } from "./capture-target.js";

/**
 * A tool result's tool, file access and failure (thread.errors), and the work ledger: file
 * changes, command outcomes, the failure lifecycle. A search that found nothing is not a failure.
 */
export function captureToolResult(t: CaptureTarget, ev: ToolResultEventLike, cwd: string, now: Date = new Date()): void {
  const command = prop(ev.input, "command");
  const family = typeof command === "string" ? safeGist(commandFamily(command), 60) : "";
  // read once: a failure's error line and the command's outcome come from the same head and tail
  const output = ev.isError || family ? contentHeadTail(ev.content) : "";
  const cap = extractToolResult(ev, cwd, now, ev.isError ? output : undefined);
  t.touchTool(cap.tool);
  const emptySearch = ev.isError && isEmptySearch(asText(ev.toolName), ev.input, output);
  let workChanged = false;
  if (cap.failure && !emptySearch) {
    const f = cap.failure;
    t.acc.addError(f);
    t.mark("thread");
    t.acc.work.onFailure(f, family);
    workChanged = true;
  } else {
    workChanged = t.acc.work.onSuccess(cap.tool, cap.target, family);
  }
  if (family && typeof command === "string") {
    const exit = exitCodeOf(output) ?? (ev.isError ? null : 0);
    // without a path argument the capture's target is this command's gist already
    const commandGist = toolPathArg(ev.input) === null ? cap.target : safeGist(command, GIST.command);
    t.acc.work.onCommand(family, commandGist, !cap.failure || emptySearch, exit, now);
    workChanged = true;
    // a removal that certainly ran: the changed files it deleted are no longer there
    if (!cap.failure && exit === 0) {
      for (const p of removedPaths(command)) workChanged = t.acc.work.onPathRemoved(normalizeToolPath(p, cwd), now) || workChanged;
    }
  }
  if (cap.file) {
    t.touchFile(cap.file.path, cap.file.access);
    if (cap.file.access === "modified" && (cap.tool === "edit" || cap.tool === "write")) {
      const names = declaredNames(changedText(cap.tool, ev.input), cap.file.path).map((n) => safeGist(n, GIST.name)).filter(Boolean);
      onFileChanged(t, cap.file.path, cap.tool, ev.input, now, names);
      workChanged = true;
    }
  }
  if (workChanged) t.mark("work");
}

/** In a pass, a file's change gist is taken at the end for the latest change that says something. */
function onFileChanged(t: CaptureTarget, path: string, tool: "edit" | "write", input: unknown, now: Date, names: string[]): void {
  if (!t.inPass) return t.acc.work.onFileChanged(path, tool, safeGist(changeGist(tool, input), GIST.change), now, names);
  const changes = t.deferred.changes;
  let list = t.acc.work.hasFile(path) ? changes.get(path) : undefined;
  if (!list) changes.set(path, (list = []));
  list.push({ tool, input });
  t.acc.work.onFileChanged(path, tool, "", now, names);
}
