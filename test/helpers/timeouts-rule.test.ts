/**
 * The suite's timeouts come from one setting (timeouts.ts): a literal per-test timeout is what
 * timed out `display-sanitize.test.ts` at 60 s on a CI machine at load 10, where its seven CLI
 * runs took longer. This reads every test file and names any test or hook with a literal one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith(".test.ts") ? [join(dir, e.name)] : []));
}

describe("test timeouts", () => {
  it("no test or hook carries a literal timeout: they derive from OPENCLAW_TEST_TIMEOUT_MS", () => {
    const literal = /^\s*\}, \d[\d_]*\);$|\{ timeout: \d[\d_]* \}/m;
    const offenders = testFiles(ROOT).filter((f) => literal.test(readFileSync(f, "utf8"))).map((f) => relative(ROOT, f));
    expect(offenders).toEqual([]);
  });
});
