/**
 * Redaction figures (issue 28, docs/security.md): on the secret-shape corpus (generated,
 * test/redact/fixtures/secret-shapes.ts) how many are caught (no 8 characters of the secret
 * survive), on the look-alikes (mined from test/fixtures/transcripts by bench/mine-lookalikes.ts, plus
 * known formats) how many are altered, and the cost per KB of real session text.
 *   npx tsx bench/redaction-corpus.ts [transcripts dir]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { redactOwnRulesOnly, redactSecrets, redactSecretsUncached } from "../src/agents/text/redact.js";
import { secretRuleRanges } from "../src/agents/text/secret-rules.js";
import { formatLookalikes } from "../test/redact/fixtures/format-lookalikes.js";
import { secretCorpus } from "../test/redact/fixtures/secret-shapes.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const leaks = (out: string, secret: string): boolean => {
  for (let i = 0; i + 8 <= secret.length; i++) if (out.includes(secret.slice(i, i + 8))) return true;
  return false;
};

const secrets = secretCorpus(3); // 3 samples of each shape
const missed = secrets.filter((s) => leaks(redactSecrets(s.text), s.secret));
const missedOwn = secrets.filter((s) => leaks(redactOwnRulesOnly(s.text), s.secret));
const presetOnly = (t: string): string => {
  let out = t;
  for (const [a, b] of secretRuleRanges(t).reverse()) out = `${out.slice(0, a)}#${out.slice(b)}`;
  return out;
};
const missedPreset = secrets.filter((s) => leaks(presetOnly(s.text), s.secret));
const mined = JSON.parse(readFileSync(join(import.meta.dirname, "../test/redact/fixtures/lookalikes.json"), "utf8")) as Array<{ kind: string; value: string; text: string }>;
const looks = [...mined, ...formatLookalikes()];
const altered = looks.filter((l) => !redactSecrets(l.text).includes(l.value));
const alteredPreset = looks.filter((l) => !presetOnly(l.text).includes(l.value));

// cost: real session text (the transcripts' strings), 1 MB of it, redacted in 4 KB pieces like the capture paths do
// the transcripts: the argument, or the in-repo fixtures
const dir = process.argv[2] ?? TRANSCRIPTS_DIR;
let files = "";
const strings: string[] = [];
const collect = (v: unknown): void => {
  if (typeof v === "string") strings.push(v);
  else if (Array.isArray(v)) v.forEach(collect);
  else if (v && typeof v === "object") Object.values(v).forEach(collect);
};
for (const f of readdirSync(dir).sort()) {
  if (!f.endsWith(".json") || f === "index.json") continue;
  const raw = readFileSync(join(dir, f), "utf8");
  files += raw;
  collect(JSON.parse(raw));
}
/** 1 MB of `text` in 4 KB pieces, the capture paths' size */
const piecesOf = (text: string): string[] => {
  const out: string[] = [];
  for (let i = 0; i < Math.min(text.length, 1 << 20); i += 4096) out.push(text.slice(i, i + 4096));
  return out;
};
// the files as they are (JSON: quotes and newlines escaped, a tool call's arguments escaped twice), and
// the strings they hold (what a capture path gets from a message: escaped only where the text itself is JSON)
const asFiles = piecesOf(files);
const asStrings = piecesOf(strings.join("\n"));
for (const p of asFiles.slice(0, 32)) redactSecrets(p); // warm-up
const rounds = 3;
const cost = (f: (s: string) => unknown, pieces: string[]): number => {
  let best = Infinity;
  let chars = 0;
  for (const p of pieces) chars += p.length;
  for (let k = 0; k < rounds; k++) {
    const t0 = process.hrtime.bigint();
    for (const p of pieces) f(p);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best / (chars / 1024);
};
// uncached: redactSecrets keeps its latest results, and every round after the first would be a memo hit
const costAll = cost(redactSecretsUncached, asFiles);
const costOwn = cost(redactOwnRulesOnly, asFiles);
const costPreset = cost(secretRuleRanges, asFiles);
const costStrings = cost(redactSecretsUncached, asStrings);

console.log(`secret samples: ${secrets.length} (${new Set(secrets.map((s) => s.shape)).size} shapes), caught ${secrets.length - missed.length}, missed ${missed.length}`);
console.log(`  our rules alone: caught ${secrets.length - missedOwn.length}; the secretlint preset alone: caught ${secrets.length - missedPreset.length}`);
console.log(`  caught only with the preset: ${[...new Set(missedOwn.filter((s) => !missed.includes(s)).map((s) => s.shape))].join(", ") || "none"}`);
for (const m of missed) console.log(`  missed: ${m.shape}`);
console.log(`look-alikes: ${looks.length} (${mined.length} mined, ${looks.length - mined.length} by format), altered ${altered.length} (by the preset alone: ${alteredPreset.length})`);
for (const a of altered) console.log(`  altered: ${a.kind}: ${a.text.slice(0, 100)}`);
console.log(`cost per KB of the transcript files: ${costAll.toFixed(4)} ms (ours ${costOwn.toFixed(4)}, preset ${costPreset.toFixed(4)}); of the strings they hold: ${costStrings.toFixed(4)} ms; 1 MB each in 4 KB pieces, best of ${rounds}`);
