// `npm pack` of the package as a release would make it (prepack builds dist/), from a copy of the
// repository so the build leaves no dist/ in the working tree; the tarball goes to compat/.pack/
// and is unpacked to compat/.pack/package. Prints the tarball's path, size and file count.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = dirname(HERE);
const OUT = join(HERE, ".pack");
const SOURCES = ["src", "bin", "docs", "scripts", "package.json", "package-lock.json", "openclaw.plugin.json", "pi-extension.ts", "README.md", "tsconfig.json", "tsconfig.build.json"];

const copy = mkdtempSync(join(tmpdir(), "cm-pack-"));
try {
  for (const f of SOURCES) cpSync(join(REPO, f), join(copy, f), { recursive: true });
  symlinkSync(join(REPO, "node_modules"), join(copy, "node_modules"), "dir");
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", OUT], { cwd: copy, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const [info] = JSON.parse(out.slice(out.indexOf("[")));
  execFileSync("tar", ["xzf", info.filename], { cwd: OUT });
  console.log(`packed ${join(OUT, info.filename)}: ${info.size} bytes, ${info.unpackedSize} unpacked, ${info.entryCount} files`);
} finally {
  rmSync(copy, { recursive: true, force: true });
}
