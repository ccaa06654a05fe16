/**
 * Compares two live-heap profiles (the sampling heap profiler's `.heapprofile`, taken without the
 * collected objects: what was live when it was taken), as bench/gateway-soak.ts writes them:
 * the bytes live at each of the project's allocation sites (the innermost frame in src/, or the
 * innermost frame when none is), largest growth first.
 *
 * `npx tsx bench/heap-compare.ts <early.heapprofile> <end.heapprofile> [--top 25]`
 */
import { readFileSync } from "node:fs";

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}

/** Live bytes by allocation site. */
export function liveBySite(root: Node): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (n: Node, site: string | null) => {
    const f = n.callFrame;
    const ours = f.url.includes("/src/") && !f.url.includes("node_modules");
    const here = ours ? `${f.functionName || "(anonymous)"} ${f.url.slice(f.url.indexOf("/src/") + 1)}:${f.lineNumber + 1}` : null;
    const s = here ?? site;
    if (n.selfSize > 0) {
      const key = s ?? `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/") || "(native)"}`;
      out.set(key, (out.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, s);
  };
  walk(root, null);
  return out;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;

if (process.argv[1]?.endsWith("heap-compare.ts")) {
  const [a, b] = process.argv.slice(2).filter((x) => !x.startsWith("--"));
  const i = process.argv.indexOf("--top");
  const top = i >= 0 ? Number(process.argv[i + 1]) : 25;
  if (!a || !b) {
    console.error("usage: npx tsx bench/heap-compare.ts <early.heapprofile> <end.heapprofile> [--top 25]");
    process.exit(2);
  }
  const early = liveBySite((JSON.parse(readFileSync(a, "utf8")) as { head: Node }).head);
  const end = liveBySite((JSON.parse(readFileSync(b, "utf8")) as { head: Node }).head);
  console.log(`live (sampled): ${mib(total(early))} MiB -> ${mib(total(end))} MiB`);
  const sites = [...new Set([...early.keys(), ...end.keys()])].map((s) => ({ s, a: early.get(s) ?? 0, b: end.get(s) ?? 0 }));
  sites.sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a));
  for (const x of sites.slice(0, top)) console.log(`${String(mib(x.a)).padStart(8)} -> ${String(mib(x.b)).padStart(8)} MiB  ${x.s}`);
}
