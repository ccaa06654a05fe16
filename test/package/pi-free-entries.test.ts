/**
 * The store API and the CLI run where pi is not installed (its packages are optional peers): no
 * module they reach, statically or through a dynamic import, may import a value from pi. The
 * heavy pack test proves it on the built package; this walk catches it in the fast suite.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO } from "../cli/run.js";

const PI_PACKAGE = /^@(mariozechner|earendil-works)\//;

/** The module specifiers a file imports values from (type-only imports and exports left out). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause && !clause.name && named && ts.isNamedImports(named) && named.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) out.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteral(arg)) out.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every pi value import reachable from `entries`, as "importing file -> package". */
function piImportsReachedFrom(entries: string[]): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const queue = entries.map((e) => join(REPO, e));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of valueImports(file)) {
      if (PI_PACKAGE.test(spec)) found.push(`${file.slice(REPO.length + 1)} -> ${spec}`);
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
      if (existsSync(target)) queue.push(target);
    }
  }
  expect(seen.size).toBeGreaterThan(entries.length); // the walk followed imports
  return found;
}

describe("entries that run without pi", () => {
  it("the store API and every CLI command reach no value import from pi", () => {
    expect(piImportsReachedFrom(["src/store.ts", "src/cli/main.ts"])).toEqual([]);
  });

  it("the walk sees a value import from pi where there is one", () => {
    expect(piImportsReachedFrom(["src/agents/archive/search-tool.ts"])).toContain(
      "src/agents/archive/search-tool.ts -> @mariozechner/pi-ai",
    );
  });
});
