/**
 * Mines the look-alike corpus (issue 28) from the real sessions in test/fixtures/transcripts/:
 * values a coding agent needs that look like secrets to a length rule (git object ids and commit
 * SHAs, sha256 digests, trace ids, UUIDs, tool-call and request ids, build hashes), each with the
 * line it came in (up to 60 chars either side). Writes test/redact/fixtures/lookalikes.json.
 *   npx tsx bench/mine-lookalikes.ts [transcripts dir]
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const dir = process.argv[2] ?? TRANSCRIPTS_DIR;
const OUT = join(import.meta.dirname, "../test/redact/fixtures/lookalikes.json");
/** Fields that hold provider signatures or ids the agent never reads as text. */
const SKIP = new Set(["thinkingSignature", "signature", "id", "toolCallId", "responseId", "parentId"]);

function* texts(v: unknown): Generator<string> {
  if (typeof v === "string") yield v;
  else if (Array.isArray(v)) for (const x of v) yield* texts(x);
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) if (!SKIP.has(k)) yield* texts(x);
}

const KINDS: ReadonlyArray<[string, RegExp, (v: string) => boolean]> = [
  ["uuid", /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, () => true],
  ["hex", /(?<![0-9A-Za-z])[0-9a-f]{16,}(?![0-9A-Za-z])/g, (v) => /[a-f]/.test(v) && /[0-9]/.test(v)],
  ["mixed id", /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9_-]{20,}(?![A-Za-z0-9+/=_-])/g, (v) => /[0-9]/.test(v) && /[A-Z]/.test(v) && /[a-z]/.test(v)],
];

const seen = new Map<string, { kind: string; value: string; text: string; source: string }>();
for (const f of readdirSync(dir).sort()) {
  if (!f.endsWith(".json") || f === "index.json" || f.includes("llm-summaries")) continue;
  for (const t of texts(JSON.parse(readFileSync(join(dir, f), "utf8")))) {
    for (const [kind, re, ok] of KINDS) {
      for (const m of t.matchAll(re)) {
        const v = m[0];
        if (seen.has(v) || !ok(v)) continue;
        const start = m.index!;
        const lineStart = Math.max(t.lastIndexOf("\n", start) + 1, start - 60);
        const nl = t.indexOf("\n", start + v.length);
        const lineEnd = Math.min(nl < 0 ? t.length : nl, start + v.length + 60);
        seen.set(v, { kind, value: v, text: t.slice(lineStart, lineEnd), source: f });
      }
    }
  }
}
const all = [...seen.values()];
// at most 80 of one kind (the git object listing alone has hundreds), every kind kept
const byKind = new Map<string, typeof all>();
for (const x of all) byKind.set(x.kind, [...(byKind.get(x.kind) ?? []), x]);
const kept = [...byKind.values()].flatMap((xs) => xs.slice(0, 80));
writeFileSync(OUT, `${JSON.stringify(kept, null, 1)}\n`);
console.log(`${kept.length} look-alikes (${[...byKind].map(([k, xs]) => `${k} ${Math.min(80, xs.length)}/${xs.length}`).join(", ")}) -> ${OUT}`);
