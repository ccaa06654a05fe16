/**
 * Tests that pass anywhere: what the tests, benches and tools read is in the repository. A test
 * that read a directory beside the clone skipped (or failed) on every machine but the one it was
 * written on, and the fidelity tests never ran for anyone else. This names every file that still
 * points outside the repository, and every test that skips when a fixture is absent.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const REPO = join(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules" || e.name === "fixtures") return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? sources(path) : /\.(ts|js|mjs|cjs|sh)$/.test(e.name) ? [path] : [];
  });
}

// this file names the patterns it looks for
const files = ["src", "test", "bench", "compat", ".ci"].filter((d) => existsSync(join(REPO, d))).flatMap((d) => sources(join(REPO, d))).filter((f) => f !== import.meta.filename);

describe("test fixtures", () => {
  it("nothing in src, test, bench, compat or .ci reads a directory beside the clone (../shared)", () => {
    const outside = /\.\.\/shared\b|["']shared["'],\s*["']transcripts["']/;
    const offenders = files.filter((f) => outside.test(readFileSync(f, "utf8"))).map((f) => relative(REPO, f));
    expect(files.length).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
  });

  it("no test skips when a fixture is absent: a missing fixture fails (test/helpers/transcripts.ts)", () => {
    // a skip whose condition is a fixture's presence: `skipIf(!available)`, `skipIf(!existsSync(FIXTURE))`, `skipIf(FILES.length === 0)`
    const fixtureSkip = /skipIf\(\s*(!\s*available|!\s*existsSync\((?!["']\/proc)|\w+\.length === 0)/;
    const offenders = files.filter((f) => f.endsWith(".test.ts") && fixtureSkip.test(readFileSync(f, "utf8"))).map((f) => relative(REPO, f));
    expect(offenders).toEqual([]);
  });

  it("every transcript index.json names is in test/fixtures/transcripts/", () => {
    const index = JSON.parse(readFileSync(join(TRANSCRIPTS_DIR, "index.json"), "utf8")) as Array<{ file: string; license: string }>;
    expect(index.length).toBe(5);
    for (const t of index) {
      expect(existsSync(join(TRANSCRIPTS_DIR, t.file)), t.file).toBe(true);
      expect(t.license).toBe("MIT");
    }
  });
});
