/**
 * `npx tsx src/replay/fidelity-table.ts <transcripts-dir> <replay.json>...`
 * Recomputes fidelity v2 for every compaction of replay JSON reports from the transcript
 * alone (its first `deliveredMessages` messages) and the recorded `restoreText`, and prints
 * one markdown row per report. Reports written by an older revision of the code are scored
 * by the same, current measure: that is how the before/after table of docs/benchmarks.md is made.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fidelityV2, type FidelityV2, type RecordedMsg } from "./fidelity-v2.js";

interface ReportLike {
  transcript: string;
  contextWindow: number;
  compactions: Array<{ final: boolean; restoreText: string | null; deliveredMessages?: number }>;
}

const pct = (n: number, d: number) => (d === 0 ? "–" : `${((100 * n) / d).toFixed(0)}%`);

export function scoreReport(report: ReportLike, messages: readonly RecordedMsg[]): FidelityV2[] {
  return report.compactions
    .filter((c) => c.restoreText && typeof c.deliveredMessages === "number")
    .map((c) => fidelityV2(messages, c.deliveredMessages!, c.restoreText!));
}

export function row(report: ReportLike, v: readonly FidelityV2[]): string {
  const files = v.reduce((a, f) => [a[0]! + f.modifiedFiles.found, a[1]! + f.modifiedFiles.expected], [0, 0]);
  const minRecall = v.length ? Math.min(...v.map((f) => f.modifiedFiles.recall)) : 1;
  const upTo30 = v.filter((f) => f.modifiedFiles.expected <= 30);
  const upTo30Full = upTo30.filter((f) => f.modifiedFiles.recall === 1).length;
  const listed = v.reduce((n, f) => n + f.failures.listed, 0);
  const unresolved = v.reduce((n, f) => n + f.failures.unresolved, 0);
  const stale = v.filter((f) => f.nextAction.stale).length;
  const last3 = v.filter((f) => f.lastRequests.found === f.lastRequests.expected).length;
  const tokens = v.map((f) => f.tokens).sort((a, b) => a - b);
  const median = tokens.length ? tokens[Math.floor((tokens.length - 1) / 2)]! : 0;
  return `| ${report.transcript} | ${report.contextWindow / 1000}k | ${v.length} | ${pct(files[0]!, files[1]!)} (${files[0]}/${files[1]}), min ${pct(minRecall, 1)}, full in ${upTo30Full}/${upTo30.length} | ${pct(unresolved, listed)} (${unresolved}/${listed}) | ${stale} | ${last3}/${v.length} | ${median} / ${tokens.at(-1) ?? 0} |`;
}

function main(argv: string[]) {
  const [dir, ...files] = argv;
  if (!dir || files.length === 0) {
    console.error("usage: npx tsx src/replay/fidelity-table.ts <transcripts-dir> <replay.json>...");
    process.exit(2);
  }
  console.log("| transcript | window | blocks | modified files in text (all blocks), min per block, blocks with all (≤30 files) | listed failures still unresolved | stale next actions | blocks with the last 3 requests | tokens median / max |");
  console.log("|---|---:|---:|---|---|---:|---:|---:|");
  for (const f of files) {
    const report = JSON.parse(readFileSync(f, "utf8")) as ReportLike;
    const messages = JSON.parse(readFileSync(join(dir, `${report.transcript}.json`), "utf8")) as RecordedMsg[];
    console.log(row(report, scoreReport(report, messages)));
  }
}

if (process.argv[1] && /fidelity-table\.ts$/.test(process.argv[1])) main(process.argv.slice(2));
