/** Paths folded under common prefixes (`src/{core/{a.ts, b.ts}, cli.ts}`); the caller quotes the others. */

/** Characters a path may have to be printed bare (no space, quote, comma, brace, colon). */
export const BARE_PATH = /^[A-Za-z0-9._\-/@+~%=]+$/;

/** Longest common directory prefix (ending in "/") of at least two paths, or null. */
export function commonRoot(paths: readonly string[]): string | null {
  if (paths.length < 2) return null;
  let prefix = paths[0]!;
  for (const p of paths) {
    let i = 0;
    while (i < prefix.length && i < p.length && prefix[i] === p[i]) i++;
    prefix = prefix.slice(0, i);
    if (!prefix) return null;
  }
  const cut = prefix.lastIndexOf("/");
  if (cut <= 0) return null;
  const root = prefix.slice(0, cut + 1);
  // a root must leave every path a name of its own
  return paths.every((p) => p.length > root.length) ? root : null;
}

interface Node {
  children: Map<string, Node>;
  terminal: boolean;
}

const node = (): Node => ({ children: new Map(), terminal: false });

/** Paths in the given order (a group sits where its first path was); a single child joined with "/". */
export function foldPaths(paths: readonly string[]): string {
  const root = node();
  for (const p of paths) {
    let n = root;
    for (const seg of p.split("/")) {
      let c = n.children.get(seg);
      if (!c) n.children.set(seg, (c = node()));
      n = c;
    }
    n.terminal = true;
  }
  return render(root).join(", ");
}

function render(n: Node): string[] {
  const out: string[] = [];
  for (const [seg, child] of n.children) {
    if (child.terminal) out.push(seg);
    if (child.children.size === 0) continue;
    const inner = render(child);
    out.push(inner.length === 1 ? `${seg}/${inner[0]}` : `${seg}/{${inner.join(", ")}}`);
  }
  return out;
}
