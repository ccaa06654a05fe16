/**
 * `npx tsx bench/offload-replay.ts [--cache DIR] [--out bench/offload-replay.json]`:
 * regenerates bench/offload-replay.json. Runs the replay (src/replay/main.ts) ONE AT A TIME
 * under `nice -n 10`: every transcript at 32k and 64k with offload off and on (the config
 * defaults), a sweep of the aged-offload settings on the long transcripts at 32k, and the
 * long transcripts at 200k (the window of the models that recorded them). Each run's JSON is
 * cached in --cache (a rerun only runs what is missing). `--table` prints the markdown
 * tables of docs/artifacts.md from the output file and exits.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { FRESH_STASH } from "../src/agents/artifacts/offload.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../src/agents/config/context-manager-config.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i === -1 ? dflt : argv[i + 1]!;
};
const TRANSCRIPTS = resolve(opt("--transcripts", TRANSCRIPTS_DIR));
const CACHE = resolve(opt("--cache", "/tmp/ocm-offload-replay"));
const OUT = resolve(opt("--out", "bench/offload-replay.json"));

const LONG = ["badlogic__pi-mono__before-compaction", "badlogic__pi-mono__large-session", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04"];

interface Spec {
  group: "matrix" | "sweep" | "window200k";
  transcript: string;
  window: number;
  offload: "on" | "off";
  config?: Record<string, number | boolean>;
}

const SWEEP: Array<Record<string, number | boolean>> = [
  { offloadAgeTurns: 0 },
  { offloadAgeToolArgs: false },
  { offloadAgeTurns: 2 },
  { offloadAgeTurns: 8 },
  { offloadAgedMinChars: 4000 },
  { offloadAgedMinChars: 2000 },
];

function specs(): Spec[] {
  const all = readdirSync(TRANSCRIPTS)
    .filter((f) => f.endsWith(".json") && f !== "index.json" && !f.includes("llm-summaries"))
    .map((f) => basename(f, ".json"))
    .sort();
  const out: Spec[] = [];
  for (const transcript of all)
    for (const window of [32_000, 64_000]) for (const offload of ["off", "on"] as const) out.push({ group: "matrix", transcript, window, offload });
  for (const transcript of LONG) for (const config of SWEEP) out.push({ group: "sweep", transcript, window: 32_000, offload: "on", config });
  for (const transcript of LONG) for (const offload of ["off", "on"] as const) out.push({ group: "window200k", transcript, window: 200_000, offload });
  return out;
}

function argsOf(s: Spec): string[] {
  const a = [join(TRANSCRIPTS, `${s.transcript}.json`), "--window", String(s.window), "--offload", s.offload];
  if (s.config) a.push("--config", JSON.stringify(s.config));
  return a;
}

function run(s: Spec): Record<string, any> {
  const args = argsOf(s);
  const key = createHash("sha256").update(JSON.stringify([args.slice(1), s.transcript, DEFAULT_CONTEXT_MANAGER_CONFIG])).digest("hex").slice(0, 16);
  const file = join(CACHE, `${s.transcript}-${s.window}-${s.offload}-${key}.json`);
  if (!existsSync(file)) {
    const t0 = Date.now();
    const r = spawnSync("nice", ["-n", "10", "npx", "tsx", "src/replay/main.ts", ...args, "--json", file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    if (!existsSync(file)) throw new Error(`replay failed (${args.join(" ")}): ${r.stderr}`);
    console.error(`ran ${s.transcript} ${s.window} ${s.offload} ${JSON.stringify(s.config ?? {})} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  return JSON.parse(readFileSync(file, "utf8"));
}

function row(s: Spec, r: Record<string, any>) {
  const o = r.offload;
  return {
    group: s.group,
    transcript: s.transcript,
    window: s.window,
    offload: s.offload,
    config: s.config ?? {},
    inputTokensTotal: r.inputTokensTotal,
    compactionCount: r.compactionCount,
    chatRequests: r.replay.chatRequests,
    overflowRejections: r.replay.overflowRejections,
    offloadStashed: o.stashed,
    offloadAged: o.aged,
    offloadBytes: o.bytes,
    previewTokens: o.previewTokens,
    originalTokens: o.originalTokens,
    fetchToolTokensPerRequest: o.fetchToolTokensPerRequest,
    fetchToolTokensTotal: o.fetchToolTokensTotal,
    agedCalls: o.agedCalls,
    agedCallTokens: o.agedCallTokens,
    agedCallOriginalTokens: o.agedCallOriginalTokens,
    fetchNeed: { stashed: o.fetchNeed.stashed, needed: o.fetchNeed.needed, rate: o.fetchNeed.rate, fresh: o.fetchNeed.fresh, aged: o.fetchNeed.aged, agedArgs: o.fetchNeed.agedArgs },
    contextHandlerMs: { median: r.handler.median, p99: r.handler.p99, n: r.handler.n },
  };
}

type Row = ReturnType<typeof row>;

const short = (t: string) =>
  t.replace("SWE-agent__SWE-agent__", "").replace("marshmallow-code__", "").replace("pydicom__", "").replace("badlogic__pi-mono__", "pi-mono ").replace(/marot__spotter__(\w{8}).*/, "spotter $1");
const n = (v: number) => v.toLocaleString("en-US");
const delta = (off: number, on: number) => `${on >= off ? "+" : "−"}${(Math.abs(on / off - 1) * 100).toFixed(1)}%`;
const cfg = (c: Record<string, number | boolean>) =>
  c.offloadAgeTurns === 0
    ? "aging off (fresh stash only)"
    : `N ${c.offloadAgeTurns ?? DEFAULT_CONTEXT_MANAGER_CONFIG.offloadAgeTurns}, > ${c.offloadAgedMinChars ?? DEFAULT_CONTEXT_MANAGER_CONFIG.offloadAgedMinChars} chars${(c.offloadAgeToolArgs ?? DEFAULT_CONTEXT_MANAGER_CONFIG.offloadAgeToolArgs) ? "" : ", results only (no call arguments)"}`;

const needs = (r: Row) => {
  const f = r.fetchNeed;
  const a = r.offload === "on" && (r.config.offloadAgeToolArgs ?? DEFAULT_CONTEXT_MANAGER_CONFIG.offloadAgeToolArgs) ? `${f.agedArgs.needed}/${f.agedArgs.stashed}` : "–";
  return `${f.fresh.needed}/${f.fresh.stashed} / ${f.aged.needed}/${f.aged.stashed} / ${a}`;
};

function tables(rows: Row[]): string {
  const out: string[] = [];
  const offOf = (r: Row) => rows.find((x) => x.transcript === r.transcript && x.window === r.window && x.offload === "off")!;
  out.push("| transcript | window | input tokens off → on | Δ | compactions off → on | Δ | stashed (aged) | original → preview tokens | aged calls: tokens before → after | fetch-need fresh / aged / call args | context handler median / p99 on |");
  out.push("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows.filter((x) => x.group !== "sweep" && x.offload === "on")) {
    const off = offOf(r);
    out.push(
      `| ${short(r.transcript)} | ${r.window / 1000}k | ${n(off.inputTokensTotal)} → ${n(r.inputTokensTotal)} | ${delta(off.inputTokensTotal, r.inputTokensTotal)} | ${off.compactionCount} → ${r.compactionCount} | ${off.compactionCount ? delta(off.compactionCount, r.compactionCount) : "–"} | ${r.offloadStashed} (${r.offloadAged}) | ${n(r.originalTokens)} → ${n(r.previewTokens)} | ${r.agedCalls}: ${n(r.agedCallOriginalTokens)} → ${n(r.agedCallTokens)} | ${needs(r)} | ${r.contextHandlerMs.median.toFixed(2)} / ${r.contextHandlerMs.p99.toFixed(1)} ms |`,
    );
  }
  out.push("");
  out.push("| transcript (32k) | aged-offload setting | input tokens vs off | compactions off → on | stashed (aged) | aged calls | fetch-need fresh / aged / call args |");
  out.push("|---|---|---|---|---|---|---|");
  for (const r of rows.filter((x) => x.group === "sweep")) {
    const off = offOf(r);
    out.push(
      `| ${short(r.transcript)} | ${cfg(r.config)} | ${delta(off.inputTokensTotal, r.inputTokensTotal)} | ${off.compactionCount} → ${r.compactionCount} | ${r.offloadStashed} (${r.offloadAged}) | ${r.agedCalls} | ${needs(r)} |`,
    );
  }
  return out.join("\n");
}

if (argv.includes("--table")) {
  console.log(tables(JSON.parse(readFileSync(OUT, "utf8")).runs));
  process.exit(0);
}

mkdirSync(CACHE, { recursive: true });
const rows: Row[] = [];
for (const s of specs()) rows.push(row(s, run(s)));
const d = DEFAULT_CONTEXT_MANAGER_CONFIG;
writeFileSync(
  OUT,
  `${JSON.stringify(
    {
      date: new Date().toISOString().slice(0, 10),
      generator: "npx tsx bench/offload-replay.ts",
      command: "nice -n 10 npx tsx src/replay/main.ts test/fixtures/transcripts/<t>.json --window <32000|64000|200000> --offload <on|off> [--config <sweep setting>] --json out.json",
      config: `defaults: offloadMinChars ${FRESH_STASH.minChars}, offloadMinLines ${FRESH_STASH.minLines}, offloadStructuredMinChars ${FRESH_STASH.structuredMinChars}, offloadPreviewChars ${FRESH_STASH.previewChars}, offloadAgeTurns ${d.offloadAgeTurns}, offloadAgedMinChars ${d.offloadAgedMinChars}, offloadAgedPreviewChars ${d.offloadAgedPreviewChars}, offloadAgeToolArgs ${d.offloadAgeToolArgs}`,
      note: "faux replay of recorded replies: the recorded agent never calls artifact_fetch, so fetchNeed estimates the fetches a real agent would add; the model rejects over-window requests (overflowRejections). group: matrix (every transcript, 32k/64k, defaults), sweep (aged-offload settings, long transcripts, 32k), window200k (long transcripts at 200k)",
      runs: rows,
    },
    null,
    1,
  )}\n`,
);
console.log(tables(rows));
