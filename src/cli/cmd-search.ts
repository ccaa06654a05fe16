/**
 * `openclaw-context search <query> --session-key K` and `openclaw-context archive stats`:
 * the archive of compacted context (docs/archive.md), human and --json. Parsed here (not in
 * args.ts) because the options are their own.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { SessionArchive } from "../agents/archive/archive.js";
import { formatTime, renderSearchResult, snippetOf } from "../agents/archive/recall-render.js";
import { SEARCH_LIMITS } from "../agents/archive/search-params.js";
import { ARCHIVE_FILE, archiveDir, archiveRoot } from "../agents/archive/store.js";
import { defaultStateDir } from "./args.js";
import { runArchiveForget } from "./cmd-archive-forget.js";
import { CliError, EXIT_USAGE } from "./errors.js";
import type { Output } from "./output.js";

export const SEARCH_USAGE = `Usage: openclaw-context search <query> --session-key <key> [--limit N] [--max-chars N] [--full] [--json]
       openclaw-context archive stats [--session-key <key>] [--json]
       openclaw-context archive rm --session-key <key> [--dry-run] [--json]
       openclaw-context archive prune [--retention-days N] [--dry-run] [--json]

The archive of compacted context (docs/archive.md).

  search <query>            ranked archived fragments (BM25 x recency), as the agent's context_search
                            returns them: a snippet around the best match, matched terms marked «», the
                            segment id; --full for whole fragments; --limit 1..20 (default 5),
                            --max-chars 200..20000 (default 4000)
  archive stats             segments, bytes, sessions, compactions, time span and roles of one key's
                            archive (--session-key), or of every archive in the state dir
  archive rm                remove one key's archive (segments and index) now
  archive prune             drop records older than --retention-days (default: the config's archiveRetentionDays, 30)
                            from every archive; an archive with nothing younger goes whole

Options: --state-dir <dir> (default: $OPENCLAW_STATE_DIR, else ~/.openclaw), --json, -h/--help`;

function intOpt(v: string | undefined, flag: string, min: number, max: number, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new CliError(`${flag} expects a whole number ${min}..${max}, got ${JSON.stringify(v)}`, EXIT_USAGE);
  return n;
}

export async function runArchiveCli(argv: string[], out: Output, env: NodeJS.ProcessEnv): Promise<number> {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        "state-dir": { type: "string" },
        "session-key": { type: "string" },
        limit: { type: "string" },
        "max-chars": { type: "string" },
        json: { type: "boolean" },
        full: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        "dry-run": { type: "boolean" },
        "retention-days": { type: "string" },
      },
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (e) {
    throw new CliError((e as Error).message, EXIT_USAGE);
  }
  const v = parsed.values;
  if (v.help) {
    out.line(SEARCH_USAGE);
    return 0;
  }
  const stateDir = typeof v["state-dir"] === "string" ? resolve(v["state-dir"]) : defaultStateDir(env);
  const key = typeof v["session-key"] === "string" ? v["session-key"] : null;
  const [command, ...rest] = parsed.positionals;
  if (command === "search") {
    const query = rest.join(" ").trim();
    if (!query) throw new CliError("search: missing query", EXIT_USAGE);
    if (key === null) throw new CliError("search: --session-key is required", EXIT_USAGE);
    const limit = intOpt(v.limit as string | undefined, "--limit", 1, SEARCH_LIMITS.limit.max, SEARCH_LIMITS.limit.default);
    const maxChars = intOpt(v["max-chars"] as string | undefined, "--max-chars", SEARCH_LIMITS.maxChars.min, SEARCH_LIMITS.maxChars.max, SEARCH_LIMITS.maxChars.default);
    const archive = await openArchive(stateDir, key);
    const t0 = performance.now();
    const hits = archive.search(query, { limit });
    const ms = performance.now() - t0;
    if (v.json) {
      out.json({
        state_dir: stateDir,
        session_key: key,
        query,
        segments: archive.size,
        search_ms: Math.round(ms * 100) / 100,
        hits: hits.map((h, i) => ({
          rank: i + 1,
          score: round(h.score),
          bm25: round(h.bm25),
          time: h.record.t ? new Date(h.record.t).toISOString() : null,
          role: h.record.role,
          tool: h.record.tool ?? null,
          target: h.record.target ?? null,
          error: h.record.error === true,
          session: h.record.session,
          compaction: h.record.compaction,
          id: h.record.id,
          terms: h.terms,
          snippet: snippetOf(h.record.text, h.terms),
          text: h.record.text,
        })),
      });
    } else {
      out.line(renderSearchResult(query, hits, archive.size, maxChars, { full: v.full === true }));
    }
    return 0;
  }
  if (command === "archive" && rest[0] === "stats" && rest.length === 1) {
    const dirs = key !== null ? [archiveDir(stateDir, key)] : listArchiveDirs(stateDir);
    if (key !== null && !existsSync(join(dirs[0]!, ARCHIVE_FILE))) throw new CliError(`no archive for session key ${JSON.stringify(key)} in ${stateDir}`);
    const report = [];
    for (const dir of dirs) {
      const a = new SessionArchive(stateDir, key ?? "", undefined, Date.now, dir);
      await a.load();
      const s = a.stats();
      report.push({ dir, ...(key !== null ? { session_key: key } : {}), ...s, oldest: iso(s.oldest), newest: iso(s.newest) });
    }
    if (v.json) {
      out.json({ state_dir: stateDir, archives: report });
      return 0;
    }
    if (report.length === 0) out.line(`no archives in ${stateDir}`);
    for (const r of report) {
      out.line(`${r.session_key ?? r.dir}`);
      out.line(
        `  ${r.segments} segments · ${r.bytes} bytes · ${r.sessions} sessions · ${r.compactions} compactions${r.badLines ? ` · ${r.badLines} unreadable lines` : ""}`,
      );
      out.line(`  ${r.oldest ? formatTime(Date.parse(r.oldest)) : "?"} .. ${r.newest ? formatTime(Date.parse(r.newest)) : "?"}`);
      out.line(`  ${Object.entries(r.byRole).map(([role, n]) => `${n} ${role}`).join(" · ")}`);
    }
    return 0;
  }
  if (command === "archive" && (rest[0] === "rm" || rest[0] === "prune") && rest.length === 1) {
    return runArchiveForget(rest[0], { stateDir, key, dryRun: v["dry-run"] === true, json: v.json === true, retentionDays: v["retention-days"] as string | undefined }, out);
  }
  throw new CliError(`unknown archive command ${JSON.stringify(parsed.positionals.join(" "))} (try search --help)`, EXIT_USAGE);
}

async function openArchive(stateDir: string, key: string): Promise<SessionArchive> {
  const archive = new SessionArchive(stateDir, key);
  if (!existsSync(archive.file)) throw new CliError(`no archive for session key ${JSON.stringify(key)} in ${stateDir}`);
  await archive.load();
  return archive;
}

function listArchiveDirs(stateDir: string): string[] {
  const root = archiveRoot(stateDir);
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names
    .filter((n) => !n.startsWith("."))
    .map((n) => join(root, n))
    .filter((d) => existsSync(join(d, ARCHIVE_FILE)))
    .sort();
}

const round = (n: number) => Math.round(n * 1000) / 1000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
