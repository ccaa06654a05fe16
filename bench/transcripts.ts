/** The real sessions the benches replay: the tests' fixtures (test/fixtures/transcripts/, sources and licences in its README). */
import { resolve } from "node:path";

export const TRANSCRIPTS_DIR = resolve(import.meta.dirname, "../test/fixtures/transcripts");
