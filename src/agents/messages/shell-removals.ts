/**
 * The paths a shell command line removed with `rm` or `git rm` (Layer A, work ledger): a
 * session that wrote a scratch file and then deleted it must not hand the next context a
 * "changed" file that no longer exists. Shell syntax, not user text: parsed, never guessed.
 *
 * Conservative by construction: a step whose words carry any expansion (`$`, backticks, globs,
 * braces, `~`) or redirection names nothing, and a directory change (`cd`, `pushd`) before the
 * removal ends the scan (the later paths would be relative to a directory we do not know).
 */
import { cutHead } from "../text/cut.js";

/** Programs that remove their operands from the working tree. */
const REMOVERS: ReadonlySet<string> = new Set(["rm", "unlink"]);
const DIRECTORY_CHANGERS: ReadonlySet<string> = new Set(["cd", "pushd", "popd"]);
/** Characters that make a word's value depend on the shell (expansion, globbing, redirection). */
const EXPANDS = /[$`*?[\]{}~<>()]/;
const MAX_PATHS = 64;
const MAX_COMMAND_CHARS = 8_000;

/** Paths as written (relative to the command's working directory, or absolute), deduplicated. */
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

/**
 * The command's simple commands as word lists (quotes removed), split at `;`, `&&`, `||`, `|`,
 * `&` and newlines. A step with an expansion or an unterminated quote is `null` (names nothing).
 */
function steps(command: string): (string[] | null)[] {
  const out: (string[] | null)[] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  let unsafe = false;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endStep = (): void => {
    endWord();
    if (words.length > 0 || unsafe) out.push(unsafe ? null : words);
    words = [];
    unsafe = false;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const j = command.indexOf("'", i + 1);
      if (j < 0) return [...out, null];
      word += command.slice(i + 1, j);
      inWord = true;
      i = j;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === "\\" && j + 1 < command.length) text += command[++j];
        else text += command[j];
      }
      if (j >= command.length) return [...out, null];
      if (/[$`]/.test(text)) unsafe = true;
      word += text;
      inWord = true;
      i = j;
    } else if (c === "\\") {
      if (command[i + 1] === "\n") i++;
      else if (i + 1 < command.length) {
        word += command[++i];
        inWord = true;
      }
    } else if (c === ";" || c === "|" || c === "&" || c === "\n") {
      endStep();
    } else if (c === "#" && !inWord) {
      const j = command.indexOf("\n", i);
      if (j < 0) break;
      i = j - 1;
    } else if (c === " " || c === "\t" || c === "\r") {
      endWord();
    } else {
      if (EXPANDS.test(c)) unsafe = true;
      word += c;
      inWord = true;
    }
  }
  endStep();
  return out;
}
