/**
 * `openclaw-context artifact stash|fetch|peek|list|gc`: the seed 004 CLI over the
 * artifact store, with JSON receipts (`--json`): openclaw-mem.artifact.stash.v1,
 * openclaw-mem.artifact.fetch.v1, and this project's peek/list/gc schemas
 * (docs/artifacts.md). Parsed here (not in args.ts) because its options are its own.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ArtifactHandleError, formatHandle } from "../agents/artifacts/handle.js";
import { gcArtifacts, listArtifactDigests, removeArtifactByHandle } from "../agents/artifacts/gc.js";
import { previewParts } from "../agents/artifacts/preview.js";
import { FETCH_MODES, type FetchMode, FetchSelectorError, selectFromArtifact } from "../agents/artifacts/select.js";
import {
  ArtifactCorruptError,
  ArtifactNotFoundError,
  readArtifact,
  readArtifactMeta,
  stashArtifact,
} from "../agents/artifacts/store.js";
import { defaultStateDir } from "./args.js";
import { CliError, EXIT_PROBLEM, EXIT_USAGE } from "./errors.js";
import type { Output } from "./output.js";

export const FETCH_SCHEMA = "openclaw-mem.artifact.fetch.v1";
export const PEEK_SCHEMA = "openclaw-context.artifact.peek.v1";
export const LIST_SCHEMA = "openclaw-context.artifact.list.v1";
export const RM_SCHEMA = "openclaw-context.artifact.rm.v1";

export const ARTIFACT_USAGE = `Usage: openclaw-context artifact <stash|fetch|peek|list|gc|rm> [options]

Large tool outputs stored off the prompt (docs/artifacts.md).

  stash [<file>|-]          store a file (or stdin) redacted and content-addressed; prints the handle
  fetch <handle>            a bounded excerpt: --mode headtail|range|grep|json, --max-chars N (default 8000, max 20000),
                            --start-line/--end-line, --pattern RE [--ignore-case] [--context N], --path items[0].id
  peek <handle>             metadata and a tiny head/tail preview (--preview-chars N, default 400, max 800)
  list                      every stored artifact (--session-key K: only those stashed by that session)
  gc                        remove artifacts no kept checkpoint or live session refers to
                            (--dry-run, --min-age SECONDS: keep younger ones, default 3600)
  rm <handle>               remove one artifact (blob, metadata, refs lines) now, whoever refers to it (--dry-run)

Options: --state-dir <dir>, --json, --tool <name> and --session-key <key> (stash), -h/--help.
Exit codes: 0 ok, 1 not found / damaged, 2 bad command line or malformed handle.`;

const OPTIONS = {
  "state-dir": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  tool: { type: "string" },
  "session-key": { type: "string" },
  kind: { type: "string" },
  mode: { type: "string" },
  "max-chars": { type: "string" },
  "start-line": { type: "string" },
  "end-line": { type: "string" },
  pattern: { type: "string" },
  "ignore-case": { type: "boolean" },
  context: { type: "string" },
  path: { type: "string" },
  "preview-chars": { type: "string" },
  "dry-run": { type: "boolean" },
  "min-age": { type: "string" },
} as const;

type Values = Record<string, string | boolean | undefined>;

function int(values: Values, name: string, min = 0): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== "string" || v.trim() === "" || !Number.isSafeInteger(n) || n < min) throw new CliError(`--${name} expects a whole number >= ${min}, got "${String(v)}"`, EXIT_USAGE);
  return n;
}

function oneHandle(rest: string[], sub: string): string {
  if (rest.length !== 1) throw new CliError(`artifact ${sub} expects exactly one handle (ocm_artifact:v1:sha256:<64 hex>)`, EXIT_USAGE);
  return rest[0]!;
}

/** Store errors as CLI errors: a malformed handle is a usage error, a missing/damaged artifact a problem. */
function mapErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ArtifactHandleError || e instanceof FetchSelectorError) throw new CliError(e.message, EXIT_USAGE);
    if (e instanceof ArtifactNotFoundError || e instanceof ArtifactCorruptError) throw new CliError(e.message, EXIT_PROBLEM);
    throw e;
  }
}

export async function runArtifact(argv: string[], out: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true }));
  } catch (e) {
    throw new CliError(`${(e as Error).message} (try artifact --help)`, EXIT_USAGE);
  }
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined) {
    out.line(ARTIFACT_USAGE);
    return sub === undefined && !values.help ? EXIT_USAGE : 0;
  }
  const rawDir = values["state-dir"] as string | undefined;
  if (rawDir !== undefined && rawDir.trim() === "") throw new CliError("--state-dir expects a path", EXIT_USAGE);
  const stateDir = rawDir !== undefined ? resolve(rawDir) : defaultStateDir(env);
  const json = values.json === true;

  switch (sub) {
    case "stash": {
      if (rest.length > 1) throw new CliError("artifact stash takes at most one file (or - for stdin)", EXIT_USAGE);
      const src = rest[0] ?? "-";
      let text: string;
      try {
        text = readFileSync(src === "-" ? 0 : src, "utf8");
      } catch (e) {
        throw new CliError(`cannot read ${src === "-" ? "stdin" : src}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      const { receipt } = stashArtifact(stateDir, {
        text,
        kind: (values.kind as string | undefined) ?? "tool_output",
        tool: values.tool as string | undefined,
        sessionKey: values["session-key"] as string | undefined,
      });
      if (json) out.json(receipt);
      else out.line(`${receipt.handle}  ${receipt.bytes} bytes${receipt.created ? "" : " (already stored)"}`);
      return 0;
    }
    case "fetch": {
      const handle = oneHandle(rest, sub);
      const mode = values.mode as string | undefined;
      if (mode !== undefined && !(FETCH_MODES as readonly string[]).includes(mode)) throw new CliError(`--mode expects ${FETCH_MODES.join("|")}, got "${mode}"`, EXIT_USAGE);
      const sel = mapErrors(() =>
        selectFromArtifact(handle, readArtifact(stateDir, handle), {
          mode: mode as FetchMode | undefined,
          maxChars: int(values, "max-chars", 1),
          startLine: int(values, "start-line", 1),
          endLine: int(values, "end-line", 1),
          pattern: values.pattern as string | undefined,
          ignoreCase: values["ignore-case"] === true,
          context: int(values, "context"),
          path: values.path as string | undefined,
        }),
      );
      if (json) out.json({ schema: FETCH_SCHEMA, handle, selector: sel.selector, text: sel.text, truncated: sel.truncated, totalChars: sel.totalChars, totalLines: sel.totalLines });
      else out.line(sel.text);
      return 0;
    }
    case "peek": {
      const handle = oneHandle(rest, sub);
      const previewChars = Math.min(800, int(values, "preview-chars") ?? 400);
      const { meta, text } = mapErrors(() => ({ meta: readArtifactMeta(stateDir, handle), text: readArtifact(stateDir, handle) }));
      const p = previewParts(text, previewChars);
      const receipt = {
        schema: PEEK_SCHEMA,
        handle,
        bytes: meta.bytes,
        chars: meta.chars,
        lines: meta.lines,
        createdAt: meta.createdAt,
        kind: meta.kind,
        contentType: meta.contentType,
        redactions: meta.redactions,
        meta: meta.meta,
        preview: { head: p.head, tail: p.tail, omittedChars: p.omittedChars, omittedLines: p.omittedLines },
      };
      if (json) out.json(receipt);
      else {
        out.line(`${handle}\n${meta.bytes} bytes, ${meta.lines} lines, ${meta.contentType}, ${meta.kind}${meta.meta.tool ? ` from ${meta.meta.tool}` : ""}, stored ${meta.createdAt}`);
        out.line(p.head);
        if (p.omittedChars > 0) out.line(`[… ${p.omittedLines} lines (${p.omittedChars} chars) not shown …]`);
        if (p.tail) out.line(p.tail);
      }
      return 0;
    }
    case "list": {
      if (rest.length) throw new CliError("artifact list takes no arguments", EXIT_USAGE);
      const key = values["session-key"] as string | undefined;
      const items = [];
      for (const hex of await listArtifactDigests(stateDir)) {
        const handle = formatHandle(hex);
        let meta;
        try {
          meta = readArtifactMeta(stateDir, handle);
        } catch {
          items.push({ handle, damaged: true });
          continue;
        }
        if (key !== undefined && meta.meta.sessionKey !== key) continue;
        items.push({ handle, bytes: meta.bytes, lines: meta.lines, createdAt: meta.createdAt, kind: meta.kind, contentType: meta.contentType, tool: meta.meta.tool ?? null, sessionKey: meta.meta.sessionKey ?? null });
      }
      if (json) out.json({ schema: LIST_SCHEMA, stateDir, artifacts: items });
      else if (items.length === 0) out.line("no artifacts");
      else for (const i of items) out.line("damaged" in i ? `${i.handle}  DAMAGED` : `${i.handle}  ${i.bytes} bytes  ${i.lines} lines  ${i.createdAt}  ${i.tool ?? "-"}`);
      return 0;
    }
    case "gc": {
      if (rest.length) throw new CliError("artifact gc takes no arguments", EXIT_USAGE);
      const receipt = await gcArtifacts(stateDir, { dryRun: values["dry-run"] === true, minAgeSeconds: int(values, "min-age") });
      if (json) out.json(receipt);
      else
        out.line(
          `${receipt.dryRun ? "would remove" : "removed"} ${receipt.removed.length} of ${receipt.scanned} artifacts (${receipt.bytesFreed} bytes); kept ${receipt.kept}: ` +
            `${receipt.keptBecause.checkpoint} named by a kept checkpoint, ${receipt.keptBecause.liveSession} by a live session, ${receipt.keptBecause.young} younger than --min-age`,
        );
      return 0;
    }
    case "rm": {
      const receipt = mapErrors(() => removeArtifactByHandle(stateDir, oneHandle(rest, "rm"), { dryRun: values["dry-run"] === true }));
      if (json) out.json({ schema: RM_SCHEMA, ...receipt });
      else if (!receipt.removed) throw new CliError(`artifact not found: ${receipt.handle}`, EXIT_PROBLEM);
      else out.line(`${receipt.dryRun ? "would remove" : "removed"} ${receipt.handle} (${receipt.bytes} bytes)`);
      return receipt.removed ? 0 : EXIT_PROBLEM;
    }
    default:
      throw new CliError(`unknown artifact command "${sub}" (stash, fetch, peek, list, gc, rm)`, EXIT_USAGE);
  }
}
