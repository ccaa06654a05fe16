/**
 * The content-addressed artifact store (seed 004 §5.2; its layout: docs/artifacts.md#storage). Redacted
 * BEFORE hashing, so a handle names the bytes on disk. Writes are tmp + rename without fsync (a crash
 * loses a blob, never tears one); synchronous: a 50 KB stash is under 1 ms (bench/artifacts.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { BudgetCache } from "../../infra/budget-cache.js";
import { fileStores } from "../../infra/process-services.js";
import { tempPathFor } from "../../infra/atomic-file.js";
import { errorCode, isDirectory, makeDirsSync, tryOr } from "../../infra/fs-ops.js";
import { redactSecrets } from "../text/redact.js";
import { lineCount } from "../messages/tool-outcome.js";
import { sessionDirName } from "../../infra/session-dir.js";
import { formatHandle, parseHandle } from "./handle.js";
import { appendRegularFileSync, readRegularFileSync } from "../../infra/regular-file.js";

export const STASH_SCHEMA = "openclaw-mem.artifact.stash.v1";
export const META_SCHEMA = "openclaw-context.artifact.meta.v1";

export interface ArtifactMeta {
  schema: typeof META_SCHEMA;
  sha256: string;
  /** UTF-8 bytes of the stored (redacted) payload */
  bytes: number;
  chars: number;
  lines: number;
  createdAt: string;
  kind: string;
  contentType: "text" | "json" | "html";
  /** secrets replaced by [REDACTED:…] before the payload reached disk */
  redactions: number;
  meta: { tool?: string; sessionKey?: string; toolCallId?: string };
}

export class ArtifactNotFoundError extends Error {
  override readonly name = "ArtifactNotFoundError";
  constructor(readonly handle: string) {
    super(`no artifact ${handle} in this state dir (never stored, or removed by gc)`);
  }
}

export class ArtifactCorruptError extends Error {
  override readonly name = "ArtifactCorruptError";
  constructor(readonly handle: string) {
    super(`artifact ${handle} is damaged on disk (its content no longer matches its sha256)`);
  }
}

export const artifactsRoot = (stateDir: string): string => path.join(stateDir, "context", "artifacts");
const sharded = (stateDir: string, dir: string, hex: string, ext: string): string =>
  path.join(artifactsRoot(stateDir), dir, "sha256", hex.slice(0, 2), hex.slice(2, 4), `${hex}${ext}`);
export const blobPath = (stateDir: string, hex: string): string => sharded(stateDir, "blobs", hex, ".txt");
export const metaPath = (stateDir: string, hex: string): string => sharded(stateDir, "meta", hex, ".json");
export const refsDir = (stateDir: string): string => path.join(artifactsRoot(stateDir), "refs");
export const refsPath = (stateDir: string, sessionKey: string): string => path.join(refsDir(stateDir), `${sessionDirName(sessionKey)}.log`);

const FILE_MODE = 0o600;
const madeDirs = new Set<string>();

function ensureDirOf(file: string): void {
  const dir = path.dirname(file);
  if (madeDirs.has(dir)) return;
  makeDirsSync(dir, 0o700);
  madeDirs.add(dir);
}

/** Readers see the whole file or none. */
function writeFileReplacing(file: string, data: string): void {
  ensureDirOf(file);
  const tmp = tempPathFor(file);
  writeFileSync(tmp, data, { mode: FILE_MODE, flag: "wx" });
  try {
    renameSync(tmp, file);
  } catch (e) {
    tryOr(() => unlinkSync(tmp), undefined); // nothing left to clean
    throw e;
  }
}

export function sniffContentType(text: string): ArtifactMeta["contentType"] {
  const head = text.slice(0, 200).trimStart();
  const tail = text.trimEnd().slice(-1);
  if ((head.startsWith("{") || head.startsWith("[")) && (tail === "}" || tail === "]")) return "json";
  return /^<(?:!doctype html|html|head|body|div|\?xml)/i.test(head) ? "html" : "text";
}

const countMarkers = (s: string): number => s.split("[REDACTED:").length - 1;
const sha256Of = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");
const isoSeconds = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");
/** the meta fields kept, each redacted and cut to this many chars */
const META_FIELDS = { tool: 200, sessionKey: 500, toolCallId: 200 } as const;

/**
 * Redacts, hashes and stores `text`; idempotent for the same content. Throws on I/O failure.
 * `stored`: the redacted text (previews are cut from it, never from the raw input).
 */
export function stashArtifact(stateDir: string, input: { text: string; kind?: string } & ArtifactMeta["meta"]) {
  const stored = redactSecrets(input.text);
  const hex = sha256Of(stored);
  const blob = blobPath(stateDir, hex);
  const fields: ArtifactMeta["meta"] = {};
  for (const [k, max] of Object.entries(META_FIELDS) as Array<[keyof typeof META_FIELDS, number]>) {
    const v = input[k];
    if (v) fields[k] = redactSecrets(v).slice(0, max);
  }
  let created = false;
  let meta = existsSync(blob) ? readMetaFile(metaPath(stateDir, hex)) : null;
  if (!meta) {
    created = !existsSync(blob);
    if (created) writeFileReplacing(blob, stored);
    const redactions = Math.max(0, countMarkers(stored) - countMarkers(input.text));
    meta = metaOf(hex, stored, isoSeconds(new Date()), input.kind ?? "tool_output", redactions, fields);
    writeFileReplacing(metaPath(stateDir, hex), `${JSON.stringify(meta)}\n`);
  }
  if (input.sessionKey) logRef(refsPath(stateDir, input.sessionKey), hex, created);
  const { bytes, createdAt, kind } = meta;
  // created: false when the same content was already stored
  const receipt = { schema: STASH_SCHEMA, handle: formatHandle(hex), sha256: hex, bytes, createdAt, kind, meta: meta.meta, created };
  return { receipt, stored, meta };
}

/** One line per handle (a re-judged aged output is not logged again), unless written anew. */
function logRef(refs: string, hex: string, created: boolean): void {
  let known = refsCache().get(refs);
  if (!known) {
    known = new Set(refLines(tryOr(() => readRegularFileSync(refs), "")).map((l) => l.hex)); // "": no log yet
    refsCache().set(refs, known);
  }
  if (!created && known.has(hex)) return;
  const line = `${new Date().toISOString()} ${hex}\n`;
  if (refsBatch) {
    if (!refsBatch.has(refs)) refsBatch.set(refs, []);
    refsBatch.get(refs)!.push({ line, hex });
  } else {
    ensureDirOf(refs);
    appendRegularFileSync(refs, line, FILE_MODE);
  }
  known.add(hex);
  refsCache().reweigh(refs);
}

type RefsBatch = Map<string, Array<{ line: string; hex: string }>>;
let refsBatch: RefsBatch | null = null;

/**
 * Runs `fn`, a batch of stashes, with one refs append per log at its end (the catch-up's were ~14
 * per turn, bench/gateway.ts). A failed append's handles are forgotten, so a later stash logs them.
 */
export function withBatchedRefs<T>(fn: () => T, onError: (e: unknown) => void): T {
  if (refsBatch) return fn();
  const batch: RefsBatch = (refsBatch = new Map());
  try {
    return fn();
  } finally {
    refsBatch = null;
    for (const [refs, held] of batch) {
      try {
        ensureDirOf(refs);
        appendRegularFileSync(refs, held.map((h) => h.line).join(""), FILE_MODE);
      } catch (e) {
        for (const h of held) refsCache().peek(refs)?.delete(h.hex);
        onError(e);
      }
    }
  }
}

declare module "../../infra/process-services.js" {
  interface FileStores { artifactRefs?: BudgetCache<string, Set<string>> } // by refs log, the handles it names
}

/** The handles each refs log names, read once, then kept up with this process's appends. */
export const refsCache = (): BudgetCache<string, Set<string>> =>
  (fileStores().artifactRefs ??= new BudgetCache<string, Set<string>>("artifact refs", 8 * 2 ** 20, (s) => 256 + s.size * 96));

/** A refs log's "<ISO time> <hex>" lines (`at`: NaN when the time does not parse); a torn line is skipped. */
export function refLines(text: string): Array<{ at: number; hex: string }> {
  const out: Array<{ at: number; hex: string }> = [];
  for (const m of text.matchAll(/^(\S+) ([0-9a-f]{64})$/gm)) out.push({ at: Date.parse(m[1]!), hex: m[2]! });
  return out;
}

function readMetaFile(file: string): ArtifactMeta | null {
  const m = tryOr(() => JSON.parse(readRegularFileSync(file)) as ArtifactMeta | null, null);
  return m && m.schema === META_SCHEMA && typeof m.sha256 === "string" ? m : null;
}

/** The stored payload of `handle`, verified against its digest. Throws ArtifactHandleError / NotFound / Corrupt. */
export function readArtifact(stateDir: string, handle: string): string {
  const hex = parseHandle(handle);
  let text: string;
  try {
    text = readRegularFileSync(blobPath(stateDir, hex));
  } catch (e) {
    throw errorCode(e) === "ENOENT" ? new ArtifactNotFoundError(handle) : e;
  }
  if (sha256Of(text) !== hex) throw new ArtifactCorruptError(handle);
  return text;
}

/** Metadata of `handle`; rebuilt from the blob when the meta file is missing or damaged. */
export function readArtifactMeta(stateDir: string, handle: string): ArtifactMeta {
  const hex = parseHandle(handle);
  const meta = readMetaFile(metaPath(stateDir, hex));
  if (meta && meta.sha256 === hex) return meta;
  const text = readArtifact(stateDir, handle);
  // the blob was just read: only a gc racing us leaves no mtime (then the epoch)
  const mtime = statSync(blobPath(stateDir, hex), { throwIfNoEntry: false })?.mtime ?? new Date(0);
  return metaOf(hex, text, isoSeconds(mtime), "unknown", 0, {});
}

function metaOf(hex: string, text: string, createdAt: string, kind: string, redactions: number, meta: ArtifactMeta["meta"]): ArtifactMeta {
  const bytes = Buffer.byteLength(text, "utf8");
  return { schema: META_SCHEMA, sha256: hex, bytes, chars: text.length, lines: lineCount(text), createdAt, kind, contentType: sniffContentType(text), redactions, meta };
}

export function unlinkIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if (errorCode(e) !== "ENOENT") throw e;
  }
}

/** Removes a blob and its meta (gc, forget). */
export function removeArtifact(stateDir: string, hex: string): void {
  for (const f of [blobPath(stateDir, hex), metaPath(stateDir, hex)]) unlinkIfPresent(f);
}

/** Drops the lines naming `hexes` from every refs log, read afresh (a stash may have appended since). */
export function dropFromRefs(stateDir: string, hexes: ReadonlySet<string>): void {
  if (hexes.size === 0) return;
  const names = isDirectory(refsDir(stateDir)) ? readdirSync(refsDir(stateDir)) : [];
  for (const name of names.filter((n) => n.endsWith(".log"))) {
    const file = path.join(refsDir(stateDir), name);
    const lines = tryOr(() => readRegularFileSync(file), "").split("\n").filter((l) => l !== "");
    const keep = lines.filter((l) => !hexes.has(l.slice(-64)));
    if (keep.length !== lines.length) writeFileReplacing(file, keep.map((l) => `${l}\n`).join(""));
  }
}
