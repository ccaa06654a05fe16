// Fetches the pinned pi 1.x tarball with `npm pack` (the npm registry, npm's own client),
// checks its sha512 against pi1.json and unpacks it to .pi1/package. Idempotent.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const pin = JSON.parse(readFileSync(join(HERE, "pi1.json"), "utf8"));
const target = join(HERE, ".pi1");
const stamp = join(target, "integrity");
if (existsSync(stamp) && readFileSync(stamp, "utf8") === pin.integrity) process.exit(0);
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
execFileSync("npm", ["pack", pin.spec, "--pack-destination", target, "--silent"], { cwd: target, stdio: ["ignore", "ignore", "inherit"] });
const tgz = readdirSync(target).find((f) => f.endsWith(".tgz"));
if (!tgz) throw new Error(`npm pack ${pin.spec} produced no tarball`);
const got = `sha512-${createHash("sha512").update(readFileSync(join(target, tgz))).digest("base64")}`;
if (got !== pin.integrity) throw new Error(`${pin.spec}: integrity ${got} does not match the pin ${pin.integrity}`);
execFileSync("tar", ["xzf", tgz], { cwd: target });
rmSync(join(target, tgz));
writeFileSync(stamp, pin.integrity);
console.log(`fetched ${pin.spec}`);
