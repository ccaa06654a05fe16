/** Seeds the demo's temp workspace: a tiny project with a bug, its test, and design notes to read. */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const BUGGY_AVERAGE = "return total / (xs.length - 1);";
export const FIXED_AVERAGE = "return total / xs.length;";

/** Number of docs/design-NN.md files; the script reads them in turn. */
export const DESIGN_DOCS = 20;

function designDoc(n: number): string {
  const topics = ["tokenizer", "parser", "evaluator", "error reporting", "number formatting"];
  const topic = topics[n % topics.length]!;
  const lines = [`# Design note ${n}: ${topic}`, ""];
  for (let i = 1; lines.join("\n").length < 6400; i++) {
    lines.push(
      `${i}. The ${topic} keeps its state in plain objects; rule ${n}.${i} says every public function validates its input, ` +
        `returns a new value instead of mutating, and reports failures with the offending position.`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export function seedWorkspace(dir: string): void {
  mkdirSync(join(dir, "src"), { recursive: true });
  mkdirSync(join(dir, "test"), { recursive: true });
  mkdirSync(join(dir, "docs"), { recursive: true });
  writeFileSync(join(dir, "README.md"), "# calc\n\nA tiny calculator library. `average` is reported to be wrong for short lists.\n");
  writeFileSync(
    join(dir, "src", "math.ts"),
    `export function sum(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n\nexport function average(xs: number[]): number {\n  const total = sum(xs);\n  ${BUGGY_AVERAGE}\n}\n`,
  );
  writeFileSync(join(dir, "src", "format.ts"), "export const formatNumber = (n: number) => n.toFixed(2);\n");
  writeFileSync(
    join(dir, "test", "math.test.mjs"),
    "import assert from 'node:assert';\n// average([2, 4]) must be 3\nassert.equal((2 + 4) / 2, 3);\n",
  );
  for (let n = 1; n <= DESIGN_DOCS; n++) writeFileSync(join(dir, "docs", `design-${String(n).padStart(2, "0")}.md`), designDoc(n));
}

/** The file the demo changes behind the agent's back between /new and the resume. */
export const OUTSIDE_EDIT_FILE = "src/math.ts";

/** A change made outside any session (a colleague, the user's editor): the resume block must notice it. */
export function editOutsideSession(dir: string): void {
  appendFileSync(join(dir, OUTSIDE_EDIT_FILE), "\nexport function median(xs: number[]): number {\n  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;\n}\n");
}

