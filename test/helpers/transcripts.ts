/**
 * The real sessions the tests replay, in the repository (test/fixtures/transcripts/: sources and
 * licences in its README). A missing fixture is an error, never a skip: a test that proves
 * fidelity on real sessions must run for everyone who runs `npm test`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const TRANSCRIPTS_DIR = resolve(import.meta.dirname, "../fixtures/transcripts");

/** The fixture's path; throws when it is absent (a broken checkout, not a reason to skip). */
export function transcriptPath(file: string): string {
  const path = join(TRANSCRIPTS_DIR, file);
  if (!existsSync(path)) throw new Error(`test fixture missing: ${path} (test/fixtures/transcripts/ is part of the repository)`);
  return path;
}

/** A fixture's parsed JSON. */
export function readTranscriptJson<T = unknown>(file: string): T {
  return JSON.parse(readFileSync(transcriptPath(file), "utf8")) as T;
}

/** The fixture files with this ending (".json" lists the transcripts, index.json and the LLM summaries). */
export function transcriptFiles(ending = ".json"): string[] {
  const files = readdirSync(TRANSCRIPTS_DIR).filter((f) => f.endsWith(ending)).sort();
  if (files.length === 0) throw new Error(`no ${ending} fixtures in ${TRANSCRIPTS_DIR}`);
  return files;
}
