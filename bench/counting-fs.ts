/** An FsOps that counts calls and the time spent in each, to explain where a write's latency goes. */
import { type FsOps, nodeFsOps } from "../src/infra/fs-ops.js";

export interface OpTally {
  calls: number;
  ms: number;
}

export function countingFs(base: FsOps = nodeFsOps): { fs: FsOps; tally: Map<string, OpTally>; reset(): void } {
  const tally = new Map<string, OpTally>();
  const add = (op: string, ms: number) => {
    const t = tally.get(op) ?? { calls: 0, ms: 0 };
    t.calls++;
    t.ms += ms;
    tally.set(op, t);
  };
  const timed = async <T>(op: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      add(op, performance.now() - t0);
    }
  };
  const fs: FsOps = {
    mkdir: (p, o) => timed("mkdir", () => base.mkdir(p, o)),
    open: async (p, flags, mode) => {
      const fh = await timed("open", () => base.open(p, flags, mode));
      return {
        writeFile: (d) => timed("fh.writeFile", () => fh.writeFile(d)),
        sync: () => timed("fh.sync (fsync)", () => fh.sync()),
        close: () => timed("fh.close", () => fh.close()),
      };
    },
    writeFile: (p, d, o) => timed("writeFile", () => base.writeFile(p, d, o)),
    readFile: (p, e) => timed("readFile", () => base.readFile(p, e)),
    rename: (a, b) => timed("rename", () => base.rename(a, b)),
    link: (a, b) => timed("link", () => base.link(a, b)),
    unlink: (p) => timed("unlink", () => base.unlink(p)),
    readdir: (p) => timed("readdir", () => base.readdir(p)),
    stat: (p) => timed("stat", () => base.stat(p)),
    chmod: (p, m) => timed("chmod", () => base.chmod(p, m)),
    rm: (p, o) => timed("rm", () => base.rm(p, o)),
  };
  return { fs, tally, reset: () => tally.clear() };
}

/** Per-operation calls and milliseconds, averaged over `n` writes. */
export function perWrite(tally: Map<string, OpTally>, n: number): Record<string, { calls: number; ms: number }> {
  const out: Record<string, { calls: number; ms: number }> = {};
  for (const [op, t] of [...tally].sort((a, b) => b[1].ms - a[1].ms)) {
    out[op] = { calls: Math.round((t.calls / n) * 100) / 100, ms: Math.round((t.ms / n) * 1000) / 1000 };
  }
  return out;
}
