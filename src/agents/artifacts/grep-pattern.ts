/**
 * The grep mode's pattern, compiled for a linear-time engine (RE2, through re2js). The pattern
 * comes from the model: with JavaScript's backtracking RegExp, `(a+)+$` against a line of 28
 * `a`s ran for seconds and against the 10,000 chars a line is scanned to, for ever, on the
 * event loop (on OpenClaw: every chat of the gateway). RE2 syntax: no lookaround, no
 * backreferences; a pattern using them is refused with RE2's message.
 */
import { RE2JS } from "re2js";

export interface LinePattern {
  /** true when the pattern matches anywhere in `line` */
  test(line: string): boolean;
}

/** Throws (RE2's syntax error) for a pattern RE2 cannot compile. */
export function compileGrepPattern(pattern: string, ignoreCase: boolean): LinePattern {
  return RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
}
