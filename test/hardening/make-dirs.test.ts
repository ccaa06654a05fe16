import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeDirs, makeDirsSync } from "../../src/infra/fs-ops.js";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});
function root(): string {
  const r = mkdtempSync(join(tmpdir(), "make-dirs-"));
  roots.push(r);
  return r;
}

describe.each([
  ["makeDirs", (d: string, m: number) => makeDirs(d, m)],
  ["makeDirsSync", async (d: string, m: number) => makeDirsSync(d, m)],
])("%s (mkdir -p without Node's recursive mkdir)", (_name, make) => {
  it("makes every missing level with the mode, and accepts what exists (a link to a directory too)", async () => {
    const r = root();
    await make(join(r, "a", "b", "c"), 0o700);
    for (const d of ["a", "a/b", "a/b/c"]) expect(statSync(join(r, d)).mode & 0o777).toBe(0o700);
    await make(join(r, "a", "b"), 0o700);
    symlinkSync(join(r, "a"), join(r, "link"));
    await make(join(r, "link", "b", "d"), 0o700);
    expect(existsSync(join(r, "a", "b", "d"))).toBe(true);
  });

  it("a file in the way is a clear ENOTDIR error, at the leaf or above it", async () => {
    const r = root();
    writeFileSync(join(r, "f"), "x");
    await expect(make(join(r, "f"), 0o700)).rejects.toMatchObject({ code: "ENOTDIR" });
    await expect(make(join(r, "f", "g"), 0o700)).rejects.toMatchObject({ code: "ENOTDIR" });
  });

  it.skipIf(!existsSync("/proc/self"))("under /proc: an ENOENT error, where Node's recursive mkdir never returns", async () => {
    await expect(make("/proc/self/cm-x/y", 0o700)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
