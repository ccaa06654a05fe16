/**
 * `verify`: every checkpoint file validates (schema, id = file name, key = directory), the
 * `_latest.json` pointer is well formed and names the newest valid checkpoint, and each
 * `previous_checkpoint` points back to an older file that exists (or was pruned by retention).
 * Exit 1 and one line per problem when anything is wrong.
 */
import { join } from "node:path";
import { parseCheckpointId } from "../agents/checkpoint/ids.js";
import { POINTER_FILE, MAX_POINTER_BYTES, readPointerInDir } from "../agents/checkpoint/files.js";
import { FileTooLargeError, NotAFileError, readTextCapped } from "../infra/regular-file.js";
import { nodeFsOps } from "../infra/fs-ops.js";
import type { CliArgs } from "./args.js";
import type { Output } from "./output.js";
import { displayLine } from "./display.js";
import { type FileResult, readSessionFiles, type SessionRef, selectSessions } from "./sessions.js";

export interface SessionVerdict {
  session_key: string | null;
  dir: string;
  checkpoints: number;
  latest: string | null;
  problems: string[];
}

async function pointerProblems(s: SessionRef, files: FileResult[]): Promise<string[]> {
  const file = join(s.path, POINTER_FILE);
  let raw: string;
  try {
    // capped and regular files only: a FIFO planted there must not hang verify
    raw = await readTextCapped(nodeFsOps, file, MAX_POINTER_BYTES);
  } catch (e) {
    if (e instanceof FileTooLargeError || e instanceof NotAFileError) return [`${file}: ${e.message}`];
    return files.length > 0 ? [`${file}: missing (checkpoints exist)`] : [];
  }
  try {
    JSON.parse(raw);
  } catch {
    return [`${file}: not valid JSON`];
  }
  const pointer = await readPointerInDir(s.path, s.sessionKey, nodeFsOps);
  if (!pointer) return [`${file}: malformed (needs checkpoint_id, path "<id>.yaml", session_key of this session)`];
  const named = files.find((f) => f.id === pointer.checkpoint_id);
  if (!named) return [`${file}: points at ${pointer.checkpoint_id}, which does not exist`];
  if (!named.checkpoint) return [`${file}: points at ${pointer.checkpoint_id}, which is invalid`];
  const newest = [...files].reverse().find((f) => f.checkpoint);
  if (newest && newest.n > named.n) return [`${file}: points at ${pointer.checkpoint_id} but ${newest.id} is newer`];
  return [];
}

function chainProblems(files: FileResult[]): string[] {
  const problems: string[] = [];
  const byId = new Map(files.map((f) => [f.id, f]));
  const oldest = files[0]?.n ?? 0;
  for (const f of files) {
    const prev = f.checkpoint?.meta.previous_checkpoint;
    if (!f.checkpoint || prev === null || prev === undefined) continue;
    const where = `${f.path}: meta.previous_checkpoint`;
    const prevN = parseCheckpointId(prev);
    if (prevN === null || prevN >= f.n) {
      problems.push(`${where}: "${prev}" is not an older checkpoint`);
      continue;
    }
    const target = byId.get(prev);
    if (!target) {
      if (prevN >= oldest) problems.push(`${where}: ${prev} is missing (not removed by retention: newer files exist)`);
    } else if (!target.checkpoint) problems.push(`${where}: ${prev} is invalid, the chain is broken there`);
  }
  return problems;
}

export async function verifySession(s: SessionRef): Promise<SessionVerdict> {
  const files = await readSessionFiles(s);
  const problems = files.filter((f) => f.error).map((f) => `${f.path}: ${f.error!.replace(/^[^:]*\.yaml: /, "")}`);
  problems.push(...(await pointerProblems(s, files)), ...chainProblems(files));
  const latest = [...files].reverse().find((f) => f.checkpoint)?.id ?? null;
  // problem lines quote file content (a bad value): sanitised as the restore block is
  return { session_key: s.sessionKey === null ? null : displayLine(s.sessionKey), dir: s.path, checkpoints: files.length, latest, problems: problems.map(displayLine) };
}

export async function runVerify(args: CliArgs, out: Output): Promise<number> {
  const sessions = await selectSessions(args.stateDir, args.sessionKey);
  const verdicts: SessionVerdict[] = [];
  for (const s of sessions) verdicts.push(await verifySession(s));
  const total = verdicts.reduce((n, v) => n + v.problems.length, 0);
  if (args.json) out.json({ state_dir: args.stateDir, ok: total === 0, problems: total, sessions: verdicts });
  else {
    if (verdicts.length === 0) out.line(`no checkpoint sessions in ${args.stateDir}`);
    for (const v of verdicts) {
      const name = v.session_key ?? v.dir;
      if (v.problems.length === 0) out.line(`ok    ${name} (${v.checkpoints} checkpoints, latest ${v.latest ?? "none"})`);
      else {
        out.line(`FAIL  ${name}`);
        for (const p of v.problems) out.line(`  problem: ${p}`);
      }
    }
    if (total > 0) out.warn(`verify: ${total} problem(s) found`);
  }
  return total === 0 ? 0 : 1;
}
