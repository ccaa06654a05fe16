/**
 * Redaction figures (issue 28, docs/security.md): on the secret-shape corpus (generated,
 * test/redact/fixtures/secret-shapes.ts) how many are caught (no 8 characters of the secret
 * survive), on the look-alikes (mined from test/fixtures/transcripts by bench/mine-lookalikes.ts, plus
 * known formats) how many are altered, and the cost per KB of real session text.
 *   npx tsx bench/redaction-corpus.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { redactOwnRulesOnly, redactSecrets } from "../src/agents/text/redact.js";
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
const dir = TRANSCRIPTS_DIR;
let corpus = "";
for (const f of readdirSync(dir).sort()) if (f.endsWith(".json") && f !== "index.json") corpus += readFileSync(join(dir, f), "utf8");
corpus = corpus.slice(0, 1 << 20);
const pieces: string[] = [];
for (let i = 0; i < corpus.length; i += 4096) pieces.push(corpus.slice(i, i + 4096));
for (const p of pieces.slice(0, 32)) redactSecrets(p); // warm-up
const rounds = 3;
const cost = (f: (s: string) => unknown): number => {
  let best = Infinity;
  for (let k = 0; k < rounds; k++) {
    const t0 = process.hrtime.bigint();
    for (const p of pieces) f(p);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best / (corpus.length / 1024);
};
const kb = corpus.length / 1024;
const costAll = cost(redactSecrets);
const costOwn = cost(redactOwnRulesOnly);
const costPreset = cost(secretRuleRanges);

console.log(`secret samples: ${secrets.length} (${new Set(secrets.map((s) => s.shape)).size} shapes), caught ${secrets.length - missed.length}, missed ${missed.length}`);
console.log(`  our rules alone: caught ${secrets.length - missedOwn.length}; the secretlint preset alone: caught ${secrets.length - missedPreset.length}`);
console.log(`  caught only with the preset: ${[...new Set(missedOwn.filter((s) => !missed.includes(s)).map((s) => s.shape))].join(", ") || "none"}`);
for (const m of missed) console.log(`  missed: ${m.shape}`);
console.log(`look-alikes: ${looks.length} (${mined.length} mined, ${looks.length - mined.length} by format), altered ${altered.length} (by the preset alone: ${alteredPreset.length})`);
for (const a of altered) console.log(`  altered: ${a.kind}: ${a.text.slice(0, 100)}`);
console.log(`cost per KB: ${costAll.toFixed(4)} ms (ours ${costOwn.toFixed(4)} + preset ${costPreset.toFixed(4)}); ${kb.toFixed(0)} KB of transcript text in 4 KB pieces, best of ${rounds}`);
