/**
 * A maintained secret-rule set beside ours (issue 28): the rules of secretlint's recommended
 * preset (`@secretlint/secretlint-rule-preset-recommend`: code hosts, clouds, model hubs,
 * registries, SaaS tokens; kept up to date upstream), run synchronously on one string.
 *
 * secretlint's own engine is async and file-oriented; its rules are not: each rule's `file`
 * handler scans `source.content` and calls `context.report({ range })` synchronously. We give
 * them a minimal context and collect the ranges. The `.p12` rule (the only one that reads a file
 * or awaits) never runs: the source is never named `.p12`. A rule that throws is skipped, so a
 * bug upstream can only cost coverage, never a capture.
 */
import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";

interface Report {
  range?: readonly [number, number];
}
interface RuleContext {
  report(d: Report): void;
  ignore(d: Report): void;
  createTranslator(messages: unknown): (id: string, data?: unknown) => { message: string; data?: unknown };
  registerRule(): void;
}
interface RuleCreator {
  meta: { id: string };
  create(context: RuleContext, options: unknown): { file?: (source: unknown) => unknown };
}

/** Rules that are not about secrets in text (comment directives). */
const SKIPPED = new Set(["@secretlint/secretlint-rule-filter-comments"]);

interface Scanner {
  ranges: Array<readonly [number, number]>;
  file: Array<(source: unknown) => unknown>;
}

let scanner: Scanner | null = null;

/** Built once: each rule's handlers close over one shared report sink. */
function build(): Scanner {
  const ranges: Array<readonly [number, number]> = [];
  const context: RuleContext = {
    report: (d) => {
      if (d.range && d.range[1] > d.range[0]) ranges.push(d.range);
    },
    ignore: () => {},
    createTranslator: () => (id, data) => ({ message: id, data }),
    registerRule: () => {},
  };
  const file: Array<(source: unknown) => unknown> = [];
  for (const rule of presetRules as unknown as RuleCreator[]) {
    if (SKIPPED.has(rule.meta.id)) continue;
    try {
      const h = rule.create(context, {});
      if (typeof h.file === "function") file.push(h.file);
    } catch {
      // a rule that cannot be built costs its coverage only
    }
  }
  return { ranges, file };
}

/** Character ranges of `text` the preset reports as secrets, sorted and merged. */
export function secretRuleRanges(text: string): Array<[number, number]> {
  scanner ??= build();
  const { ranges, file } = scanner;
  ranges.length = 0;
  const source = { content: text, filePath: "captured.txt", ext: ".txt", contentType: "text" };
  for (const f of file) {
    try {
      const r = f(source);
      // never awaited: no handler is async for a .txt source; a promise would only be a rejection to swallow
      if (r && typeof (r as Promise<unknown>).catch === "function") (r as Promise<unknown>).catch(() => {});
    } catch {
      // a throwing rule is skipped (see the header)
    }
  }
  const sorted = ranges.map(([a, b]) => [Math.max(0, a), Math.min(text.length, b)] as [number, number]).sort((x, y) => x[0] - y[0]);
  const merged: Array<[number, number]> = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push(r);
  }
  ranges.length = 0;
  return merged;
}
