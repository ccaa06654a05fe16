/**
 * Pure rules on one tool call's arguments and output (Layer A). Tool output is program text, not
 * user text: matching error markers in it is not a heuristic on what users write.
 */
import { cutHead, gist } from "../text/gist.js";
import { redactSecrets } from "../text/redact.js";
import { prop } from "./read.js";

/** Redact BEFORE cutting: a token the cut would split is no longer recognisable afterwards. */
function redactedGist(text: string, maxChars: number): string {
  return gist(redactSecrets(text), maxChars);
}

/** Programs whose first non-flag argument is a subcommand (`git push`, `npm test`). */
const RUNNERS: ReadonlySet<string> = new Set(["npm", "pnpm", "yarn", "bun"]);
/** Leading words that set up a command rather than name it. */
const PRELUDE: ReadonlySet<string> = new Set(["cd", "export", "source", ".", "set", "pushd"]);
const SEARCH_PROGRAMS: ReadonlySet<string> = new Set(["grep", "rg", "egrep", "fgrep", "ag"]);

/**
 * Program + subcommand of a command's LAST step (what it was run for): `cd /x && git push -u o b`
 * -> "git push", `npm run check 2>&1 | tail` -> "npm run check". Quoted strings are blanked
 * first; env assignments, comments and prelude steps (cd, export) are skipped.
 */
export function commandFamily(command: string): string {
  const unquoted = cutHead(command, 4000).replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '""');
  const parts = unquoted.split(/&&|\|\||;|\n/);
  for (let i = parts.length - 1; i >= 0; i--) {
    const step = stepOf(parts[i]!);
    if (!step) continue;
    const words = step.split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
    if (!words[0]) continue;
    const prog = words[0].replace(/^.*\//, "");
    if (PRELUDE.has(prog) && parts.slice(0, i).some((p) => stepOf(p) !== "")) continue;
    const args = words.slice(1);
    const sub = args.find((w) => !w.startsWith("-"));
    if (RUNNERS.has(prog) && sub === "run") {
      const script = args.slice(args.indexOf("run") + 1).find((w) => !w.startsWith("-"));
      return redactedGist(`${prog} run ${script ?? ""}`, 60);
    }
    return redactedGist(sub && /^[A-Za-z][\w:.-]*$/.test(sub) ? `${prog} ${sub}` : prog, 60);
  }
  return redactedGist(cutHead(command, 4096), 60);
}

/** A step's command before its first pipe, trimmed; "" for an empty step or a comment. */
function stepOf(part: string): string {
  const bar = part.indexOf("|");
  const s = (bar < 0 ? part : part.slice(0, bar)).trim();
  return s.startsWith("#") ? "" : s;
}

const EXIT_LINE = /^(?:Command exited with code|Exit code|exit code:?|exited with code) (\d+)\s*$/i;

/** The exit code a shell tool reported ("Command exited with code N"), or null. */
export function exitCodeOf(output: string): number | null {
  const lines = lastLines(output, 6);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = EXIT_LINE.exec(lines[i]!.trim());
    if (m) return Number(m[1]);
  }
  return null;
}

/** The last `n` lines of `text` (split at \r\n, \r or \n), without splitting the lines before them. */
function lastLines(text: string, n: number): string[] {
  let start = 0;
  let breaks = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c !== 10 && c !== 13) continue;
    if (++breaks === n) {
      start = i + 1;
      break;
    }
    // "\r\n" is one break
    if (c === 10 && i > 0 && text.charCodeAt(i - 1) === 13) i--;
  }
  return text.slice(start).split(/\r\n|\r|\n/);
}

/** Lines that carry no information about the failure itself: npm's script banner ("> pkg@1.0.0 check"), rules. */
const NOISE = [EXIT_LINE, /^\(no output\)$/, /^>\s/, /^[\s\-=_~*#|┃━─│╭╰╮╯^.·•]+$/, /^<\/?[a-z_-]+>$/];
function isNoiseLine(line: string): boolean {
  const t = line.trim();
  return !t || NOISE.some((re) => re.test(t));
}

/** Error-prefix shapes: `TypeError:`, `error TS2339:`, `fatal:`, `npm ERR!`, `FAIL`, `E999 SyntaxError:`. */
const STRONG = /(?:^|[\s(\[:])(?:(?:[A-Z][A-Za-z]*)?(?:Error|Exception)|error(?: TS\d+)?|fatal|FATAL|ERROR|FAIL(?:ED)?|panic|npm ERR!)(?:\[[^\]]*\])?(?::|!|\s|$)/;
const STRONG_GLOBAL = new RegExp(STRONG.source, "g");
const LONG_LINE = 300;
const WEAK = /error|fail|not found|no such|denied|cannot|can't|could not|couldn't|invalid|unexpected|missing|refused|abort/i;

/**
 * The LAST line with an error prefix (where git, tsc, Python and npm put the cause), else the
 * first with an error word, else the last that is not noise. Gisted.
 */
export function informativeErrorLine(output: string, maxChars: number): string {
  const lines = (jsonErrorMessage(output) ?? output)
    .split(/\r\n|\r|\n/)
    .map((l) => l.replace(/<\/?[a-z_-]+>/g, "").trim())
    .filter((l) => !isNoiseLine(l));
  if (lines.length === 0) {
    const code = exitCodeOf(output);
    return code === null ? "" : `exit code ${code}`;
  }
  // a very long line is minified code or data, not a message
  const short = lines.filter((l) => l.length <= LONG_LINE);
  const pool = short.length > 0 ? short : lines;
  // a line that is only the prefix (`:error`, `FAILED`) names no cause: passed over
  const telling = pool.filter((l) => !isBarePrefix(l));
  let strong: string | undefined;
  for (const l of telling) if (STRONG.test(l)) strong = l;
  const pick = strong ?? telling.find((l) => WEAK.test(l)) ?? pool[pool.length - 1]!;
  // a heading ("… failed:") takes the first source location after it (`file.ext:line`, by shape)
  const location = pick.endsWith(":") ? pool.slice(pool.indexOf(pick) + 1).find((l) => SOURCE_LOCATION.test(l)) : undefined;
  return redactedGist(location ? `${pick} ${location}` : pick, maxChars);
}

/** `path/file.ext:12` or `file.ext:12:5` at the start of a line. */
const SOURCE_LOCATION = /^[\w./\\-]+\.\w+:\d+/;

/** The line is an error prefix and nothing else (fewer than 3 letters or digits beside it). */
function isBarePrefix(line: string): boolean {
  return STRONG.test(line) && !saysSomething(line.replace(STRONG_GLOBAL, " "));
}

/** At least 3 letters or digits: a line that can say something. */
const saysSomething = (text: string): boolean => (text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= 3;

/** A failure reported as one JSON object (OpenClaw's tools: `{"status":"error","error":"…"}`). */
function jsonErrorMessage(output: string): string | null {
  const t = output.trim();
  if (t.length > JSON_ERROR_MAX || !t.startsWith("{") || !t.endsWith("}")) return null;
  try {
    const o = JSON.parse(t) as Record<string, unknown>;
    for (const field of ["error", "message"]) {
      const v = o[field];
      if (typeof v === "string" && v.trim()) return v;
      const nested = v && typeof v === "object" ? (v as { message?: unknown }).message : undefined;
      if (typeof nested === "string" && nested.trim()) return nested;
    }
  } catch {
    // not JSON after all: the lines are read as text
  }
  return null;
}
const JSON_ERROR_MAX = 64_000;

/** A failed search: grep/rg (tool or shell program) with exit 1 and nothing else in its output. */
export function isEmptySearch(toolName: string, input: unknown, output: string): boolean {
  const cmd = prop(input, "command");
  const searchTool = SEARCH_PROGRAMS.has(toolName);
  const program = typeof cmd === "string" ? commandFamily(cmd).split(" ")[0]! : "";
  if (!searchTool && !SEARCH_PROGRAMS.has(program)) return false;
  const code = exitCodeOf(output);
  if (!searchTool && code !== 1) return false;
  return output.split(/\r\n|\r|\n/).every((l) => isNoiseLine(l));
}

/** The first text pair of an edit call: pi's `edits: [{oldText, newText}]`, else the legacy pair. */
function firstEdit(input: unknown): { oldText: string; newText: string } | undefined {
  const edits = prop(input, "edits");
  for (const e of [...(Array.isArray(edits) ? edits.slice(0, 20) : []), input]) {
    const o = prop(e, "oldText") ?? prop(e, "old_string");
    const n = prop(e, "newText") ?? prop(e, "new_string");
    if (typeof o === "string" || typeof n === "string") return { oldText: typeof o === "string" ? o : "", newText: typeof n === "string" ? n : "" };
  }
  return undefined;
}

const LINE_SPLIT = /\r\n|\r|\n/;
const SIDE = 48;

/** Number of lines of a text (a trailing newline does not start a line). */
export function lineCount(text: string): number {
  if (!text) return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}

/**
 * What one edit/write changed, in one line: the first differing line `old → new` (`+ new`,
 * `- old`), "wrote N lines" for a write; "" when nothing can be said.
 */
export function changeGist(toolName: string, input: unknown): string {
  if (toolName === "write") {
    const content = prop(input, "content");
    if (typeof content !== "string") return "";
    const n = lineCount(content);
    return `wrote ${n} line${n === 1 ? "" : "s"}`;
  }
  const pair = firstEdit(input);
  if (!pair) return "";
  const a = cutHead(pair.oldText, 20_000).split(LINE_SPLIT);
  const b = cutHead(pair.newText, 20_000).split(LINE_SPLIT);
  let i = 0;
  while (i < a.length && i < b.length && a[i]!.trim() === b[i]!.trim()) i++;
  const pick = (r: string[]): string => r.find(saysSomething) ?? r.find((l) => l.trim()) ?? "";
  const [oldLine, newLine] = [pick(a.slice(i)), pick(b.slice(i))];
  if (oldLine && newLine) return `${redactedGist(oldLine, SIDE)} → ${redactedGist(newLine, SIDE)}`;
  if (newLine) return `+ ${redactedGist(newLine, SIDE * 2)}`;
  if (oldLine) return `- ${redactedGist(oldLine, SIDE * 2)}`;
  return "";
}

const REMOVERS: ReadonlySet<string> = new Set(["rm", "unlink"]);
const DIRECTORY_CHANGERS: ReadonlySet<string> = new Set(["cd", "pushd", "popd"]);
/** expansion, globbing, redirection: the word's value depends on the shell */
const EXPANDS = /[$`*?[\]{}~<>()]/;
const MAX_PATHS = 64;
const MAX_COMMAND_CHARS = 8_000;

/**
 * The paths a shell command removed with `rm` or `git rm`, as written, deduplicated (work ledger: a deleted
 * scratch file must not be handed on as "changed"). Parsed, never guessed: a step with any expansion or
 * redirection names nothing, and a `cd` before the removal ends the scan.
 */
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
