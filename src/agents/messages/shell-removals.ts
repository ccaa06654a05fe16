/**
 * The paths a shell command removed with `rm` or `git rm` (Layer A, work ledger): a deleted
 * scratch file must not be handed on as "changed". Parsed, never guessed: a step with any
 * expansion or redirection names nothing, and a `cd` before the removal ends the scan.
 */
import { cutHead } from "../text/gist.js";

const REMOVERS: ReadonlySet<string> = new Set(["rm", "unlink"]);
const DIRECTORY_CHANGERS: ReadonlySet<string> = new Set(["cd", "pushd", "popd"]);
/** expansion, globbing, redirection: the word's value depends on the shell */
const EXPANDS = /[$`*?[\]{}~<>()]/;
const MAX_PATHS = 64;
const MAX_COMMAND_CHARS = 8_000;

/** Paths as written, deduplicated. */
export function removedPaths(command: string): string[] {
  if (typeof command !== "string" || !/\b(?:rm|unlink)\b/.test(command)) return [];
  const out = new Set<string>();
  for (const words of steps(cutHead(command, MAX_COMMAND_CHARS))) {
    if (words === null) continue;
    let w = words;
    while (w.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]!)) w = w.slice(1); // env assignments
    const prog = (w[0] ?? "").replace(/^.*\//, "");
    if (DIRECTORY_CHANGERS.has(prog)) break;
    const operands = REMOVERS.has(prog) ? operandsOf(w.slice(1)) : prog === "git" ? gitRmOperands(w.slice(1)) : [];
    for (const p of operands) {
      if (out.size >= MAX_PATHS) return [...out];
      out.add(p.replace(/\/+$/, "") || p);
    }
  }
  return [...out];
}

/** Non-option words (options end at `--`). */
function operandsOf(args: readonly string[]): string[] {
  const out: string[] = [];
  let options = true;
  for (const a of args) {
    if (options && a === "--") options = false;
    else if (options && a.startsWith("-") && a.length > 1) continue;
    else if (a !== "" && a !== "." && a !== "..") out.push(a);
  }
  return out;
}

/** `git rm <paths>`; `--cached` keeps the files in the working tree, so it removes nothing there. */
function gitRmOperands(args: readonly string[]): string[] {
  if (args[0] !== "rm") return [];
  const rest = args.slice(1);
  if (rest.some((a) => a === "--cached" || a === "-n" || a === "--dry-run")) return [];
  return operandsOf(rest);
}

/** A quoted span, an unclosed quote, an escape, a step separator, a blank, or any other character. */
const TOKEN = /'([^']*)'|"((?:[^"\\]|\\[\s\S])*)"|(['"])|\\([\s\S]?)|([;|&\n])|([ \t\r])|([\s\S])/g;

/** Simple commands as word lists (quotes removed); null for a step with an expansion or open quote. */
function steps(command: string): (string[] | null)[] {
  const out: (string[] | null)[] = [];
  let words: string[] = [];
  let word: string | null = null;
  let unsafe = false;
  const endWord = (): void => {
    if (word !== null) words.push(word);
    word = null;
  };
  const endStep = (): void => {
    endWord();
    if (words.length > 0 || unsafe) out.push(unsafe ? null : words);
    words = [];
    unsafe = false;
  };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(command); m; m = TOKEN.exec(command)) {
    const [, single, double, open, escaped, separator, blank, c] = m;
    if (open) return [...out, null];
    if (separator) endStep();
    else if (blank) endWord();
    else if (c === "#" && word === null) {
      // a comment runs to the end of its line
      const nl = command.indexOf("\n", TOKEN.lastIndex);
      if (nl < 0) break;
      TOKEN.lastIndex = nl;
    } else if (escaped !== "\n" && escaped !== "") {
      if (/[$`]/.test(double ?? "") || (c !== undefined && EXPANDS.test(c))) unsafe = true;
      word = (word ?? "") + (single ?? double?.replace(/\\([\s\S])/g, "$1") ?? escaped ?? c);
    }
  }
  endStep();
  return out;
}
