/**
 * `npx tsx bench/cost-matrix.ts [--transcripts <dir>] [--windows 200000,64000] [--jobs 3]
 *   [--only <name substring>] [--prompt-cache anthropic|openai|none] [--modes host,defaults,...] [--out bench/cost-results.json] [--md bench/cost-results.md]`
 *
 * What a session costs under each provider's prompt caching (issue 37), as ratios against the
 * host alone in the same run: every transcript × window × mode is replayed through
 * `npm run replay` (src/replay/main.ts, the real host runner on the faux model), each in its
 * own process, `--jobs` at a time; the host-alone replay (`--host-alone`: our manager off,
 * pi's own compaction) of the same transcript and window is the baseline of every ratio.
 * Modes: defaults, offload off, `compaction: checkpoint`, smart trim on. Models: the replay's
 * `cost.models` (src/replay/billing/models.ts). Only the replay CLI is used, so the script
 * runs unchanged on any branch whose replay reports `cost`.
 * `--aggregate <dir>`: no replay; the tables from the per-run JSON files a run left in <dir>
 * (`--keep <dir>` keeps them there), e.g. to tabulate an interrupted run. A `--keep` run reads
 * the runs already in <dir> instead of replaying them again (resuming an interrupted run).
 * `--prompt-cache`: the caching family the manager runs assume (config promptCache; the faux model's
 * provider is unknown to the rules, so `auto` would pick openai): bill each model against the
 * behaviour it would get.
 * Transcripts: the in-repo fixtures (bench/transcripts.ts), or --transcripts <dir>.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const REPO = resolve(import.meta.dirname, "..");
const MODES = {
  host: ["--host-alone"],
  defaults: [],
  "offload off": ["--offload", "off"],
  "compaction: checkpoint": ["--compaction", "checkpoint"],
  "smart trim on": ["--smart-trim", "on"],
} as const;
type Mode = keyof typeof MODES;
const TABLE_MODELS = ["anthropic-pi", "anthropic-openclaw", "anthropic-pi-1h", "anthropic-any-prefix", "openai", "none"];

interface ModelCost {
  dollars: number;
  readTokens: number;
  writeTokens: number;
  uncachedTokens: number;
  summarizerInputTokens: number;
  reuse: number;
  breaks: Record<string, number>;
}
interface Run {
  transcript: string;
  window: number;
  mode: Mode;
  ms: number;
  clock: string;
  requests: number;
  compactions: number;
  inputTokensWithSummarizer: number;
  models: Record<string, ModelCost>;
  error?: string;
}

function fail(msg: string): never {
  console.error(`cost-matrix: ${msg}`);
  process.exit(2);
}

function args(argv: string[]) {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const dir = resolve(get("--transcripts") ?? TRANSCRIPTS_DIR);
  if (!existsSync(dir)) fail(`no transcripts at ${dir}`);
  const windows = (get("--windows") ?? "200000,64000").split(",").map(Number);
  if (windows.some((w) => !Number.isInteger(w) || w <= 0)) fail("--windows expects positive whole numbers, comma-separated");
  const jobs = Number(get("--jobs") ?? Math.max(2, cpus().length + 1));
  const unknownMode = get("--modes")?.split(",").find((m) => !(m in MODES));
  if (unknownMode !== undefined) fail(`--modes: unknown mode ${unknownMode} (${Object.keys(MODES).join(", ")})`);
  const family = get("--prompt-cache");
  if (family !== undefined && !["anthropic", "openai", "none"].includes(family)) fail("--prompt-cache expects anthropic, openai or none");
  return {
    dir,
    windows,
    jobs,
    only: get("--only"),
    promptCache: get("--prompt-cache"),
    modes: (get("--modes")?.split(",") ?? Object.keys(MODES)) as Mode[],
    aggregate: get("--aggregate"),
    keep: get("--keep"),
    out: resolve(get("--out") ?? join(REPO, "bench/cost-results.json")),
    md: resolve(get("--md") ?? join(REPO, "bench/cost-results.md")),
  };
}

function transcriptFiles(dir: string, only?: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json") && f !== "index.json" && !f.endsWith(".llm-summaries.json"))
    .filter((f) => !only || f.includes(only))
    .sort()
    .map((f) => join(dir, f));
}

const runFile = (tmp: string, name: string, window: number, mode: Mode) => join(tmp, `${name}-${window}-${mode.replace(/\W+/g, "_")}.json`);

function replay(file: string, window: number, mode: Mode, tmp: string, promptCache?: string, resume = false): Promise<Run> {
  const name = file.split("/").pop()!.replace(/\.json$/, "");
  const out = runFile(tmp, name, window, mode);
  // a run an interrupted `--keep` run finished is read, not replayed again (its time: 0)
  if (resume && existsSync(out)) return Promise.resolve(readRun(out, name, window, mode, 0));
  const started = performance.now();
  const tsx = join(REPO, "node_modules/.bin/tsx");
  return new Promise((done) => {
    const child = spawn(tsx, [join(REPO, "src/replay/main.ts"), file, "--window", String(window), "--json", out, ...MODES[mode], ...(promptCache && mode !== "host" ? ["--config", JSON.stringify({ promptCache })] : [])], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr = (stderr + String(d)).slice(-2000)));
    child.on("close", () => done(readRun(out, name, window, mode, Math.round(performance.now() - started), stderr)));
  });
}

function readRun(out: string, name: string, window: number, mode: Mode, ms: number, stderr = ""): Run {
      const base = { transcript: name, window, mode, ms };
      try {
        const r = JSON.parse(readFileSync(out, "utf8")) as {
          cost: { clock: string; requests: number; models: Record<string, ModelCost> };
          compactionCount: number;
          inputTokensWithSummarizer: number;
          errors: string[];
        };
        const models = Object.fromEntries(Object.entries(r.cost.models).map(([k, m]) => [k, { dollars: m.dollars, readTokens: m.readTokens, writeTokens: m.writeTokens, uncachedTokens: m.uncachedTokens, summarizerInputTokens: m.summarizerInputTokens, reuse: m.reuse, breaks: Object.fromEntries(Object.entries(m.breaks).filter(([, n]) => n > 0)) }]));
        return { ...base, clock: r.cost.clock, requests: r.cost.requests, compactions: r.compactionCount, inputTokensWithSummarizer: r.inputTokensWithSummarizer, models, ...(r.errors.length ? { error: r.errors.join("; ").slice(0, 300) } : {}) };
      } catch (e) {
        return { ...base, clock: "none", requests: 0, compactions: 0, inputTokensWithSummarizer: 0, models: {}, error: `${(e as Error).message}: ${stderr.trim().split("\n").slice(-3).join(" | ")}` };
      }
}

async function pool<T>(tasks: Array<() => Promise<T>>, jobs: number, onDone: (t: T) => void): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, tasks.length) }, async () => {
      while (next < tasks.length) {
        const t = await tasks[next++]!();
        results.push(t);
        onDone(t);
      }
    }),
  );
  return results;
}

const r3 = (x: number) => Math.round(x * 100) / 100;

function ratioRows(runs: Run[], windows: number[]) {
  const rows: Array<{ window: number; mode: Mode; model: string; mean: number; min: number; max: number; n: number; perTranscript: Record<string, number> }> = [];
  for (const window of windows) {
    for (const mode of Object.keys(MODES) as Mode[]) {
      if (mode === "host") continue;
      for (const model of TABLE_MODELS) {
        const per: Record<string, number> = {};
        for (const run of runs.filter((r) => r.window === window && r.mode === mode && !r.error)) {
          const host = runs.find((h) => h.window === window && h.mode === "host" && h.transcript === run.transcript && !h.error);
          const a = run.models[model]?.dollars;
          const b = host?.models[model]?.dollars;
          if (a !== undefined && b) per[run.transcript] = a / b;
        }
        const xs = Object.values(per);
        if (!xs.length) continue;
        rows.push({ window, mode, model, mean: r3(xs.reduce((s, x) => s + x, 0) / xs.length), min: r3(Math.min(...xs)), max: r3(Math.max(...xs)), n: xs.length, perTranscript: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, r3(v)])) });
      }
    }
  }
  return rows;
}

function markdown(rows: ReturnType<typeof ratioRows>, runs: Run[], windows: number[]): string {
  const cell = (r?: (typeof rows)[number]) => (r ? `${r.mean.toFixed(2)}× (${r.min.toFixed(2)}–${r.max.toFixed(2)})` : "–");
  const out = [`| window | mode | ${TABLE_MODELS.join(" | ")} |`, `|---|---|${TABLE_MODELS.map(() => "---:").join("|")}|`];
  for (const window of windows)
    for (const mode of Object.keys(MODES) as Mode[]) {
      if (mode === "host") continue;
      out.push(`| ${window / 1000}k | ${mode} | ${TABLE_MODELS.map((m) => cell(rows.find((r) => r.window === window && r.mode === mode && r.model === m))).join(" | ")} |`);
    }
  out.push("", "Cache breaks under anthropic-pi, summed over the transcripts (requests that reused less than the previous one left cached):", "", "| window | mode | breaks by cause | reuse (mean) |", "|---|---|---|---:|");
  for (const window of windows)
    for (const mode of Object.keys(MODES) as Mode[]) {
      const rs = runs.filter((r) => r.window === window && r.mode === mode && !r.error);
      const sum: Record<string, number> = {};
      for (const r of rs) for (const [c, n] of Object.entries(r.models["anthropic-pi"]?.breaks ?? {})) sum[c] = (sum[c] ?? 0) + n;
      const reuse = rs.length ? rs.reduce((s, r) => s + (r.models["anthropic-pi"]?.reuse ?? 0), 0) / rs.length : 0;
      out.push(`| ${window / 1000}k | ${mode} | ${Object.entries(sum).map(([c, n]) => `${c} ${n}`).join(", ") || "none"} | ${Math.round(reuse * 100)}% |`);
    }
  return `${out.join("\n")}\n`;
}

async function main() {
  const a = args(process.argv.slice(2));
  const files = transcriptFiles(a.dir, a.only);
  if (!files.length) fail(`no transcripts in ${a.dir}`);
  if (a.aggregate) {
    const runs: Run[] = [];
    for (const f of files) {
      const name = f.split("/").pop()!.replace(/\.json$/, "");
      for (const w of a.windows) for (const m of Object.keys(MODES) as Mode[]) if (existsSync(runFile(a.aggregate, name, w, m))) runs.push(readRun(runFile(a.aggregate, name, w, m), name, w, m, 0));
    }
    const rows = ratioRows(runs, a.windows);
    writeFileSync(a.out, `${JSON.stringify({ command: `npx tsx bench/cost-matrix.ts ${process.argv.slice(2).join(" ")}`, aggregatedFrom: runs.length, ratios: rows, runs }, null, 1)}\n`);
    const md = markdown(rows, runs, a.windows);
    writeFileSync(a.md, md);
    console.log(md);
    return;
  }
  const tmp = a.keep ? resolve(a.keep) : mkdtempSync(join(tmpdir(), "cost-matrix-"));
  mkdirSync(tmp, { recursive: true });
  const tasks: Array<() => Promise<Run>> = [];
  // longest first, so the pool ends together
  const sized = files.map((f) => ({ f, size: readFileSync(f).length })).sort((x, y) => y.size - x.size);
  for (const { f } of sized) for (const w of a.windows) for (const m of a.modes) tasks.push(() => replay(f, w, m, tmp, a.promptCache, a.keep !== undefined));
  const loadBefore = loadavg().map(r3);
  const started = performance.now();
  let done = 0;
  const runs = await pool(tasks, a.jobs, (r) => console.error(`  ${++done}/${tasks.length} ${r.transcript} ${r.window} ${r.mode}: ${Math.round(r.ms / 1000)} s${r.error ? ` ERROR ${r.error}` : ""}`));
  if (!a.keep) rmSync(tmp, { recursive: true, force: true });
  const wallMs = Math.round(performance.now() - started);
  const rows = ratioRows(runs, a.windows);
  const result = { command: `npx tsx bench/cost-matrix.ts ${process.argv.slice(2).join(" ")}`.trim(), transcripts: files.map((f) => f.split("/").pop()), windows: a.windows, jobs: a.jobs, wallMs, loadBefore, loadAfter: loadavg().map(r3), ratios: rows, runs };
  writeFileSync(a.out, `${JSON.stringify(result, null, 1)}\n`);
  const md = markdown(rows, runs, a.windows);
  writeFileSync(a.md, md);
  console.log(md);
  console.log(`wall ${Math.round(wallMs / 1000)} s with ${a.jobs} jobs; ${a.out}, ${a.md}`);
  if (runs.some((r) => r.error)) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`cost-matrix failed: ${(e as Error).message}`);
  process.exit(1);
});
