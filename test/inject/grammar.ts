import { expect } from "vitest";

/** A JSON-style quoted string as the renderer emits it. */
const Q = /"(?:[^"\\\n]|\\.)*"/g;
const T = String.raw`(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2} [A-Za-z0-9_+\-/]+|unknown time)`;

/**
 * Every line the renderer may produce, with each quoted string replaced by `Q`. If a line
 * of the block matches none of these once its quoted strings are blanked out, some of its
 * structure came from captured text.
 */
const SKELETONS: RegExp[] = [
  /^\[Post-compaction checkpoint restore\]$/,
  /^\[Session resume checkpoint restore\]$/,
  new RegExp(String.raw`^This is the state a previous session (?:on this key )?left at ${T}(?:; verify it before acting on it)?\.$`),
  new RegExp(
    String.raw`^Checkpoint (?:cp_\d+|Q) \((?:(?:[a-z0-9-]+|Q), )?${T}\)(?:(?: · context \d+% of [0-9.kM]+)? · compactions (?:this|in that) session: \d+)?$`,
  ),
  /^Working on: (?:Q|\(not recorded\))$/,
  /^Status: (?:[a-z_]+|Q)$/,
  /^Next action: (?:Q|\(not recorded\))$/,
  /^Interrupted: yes(?: — last tool call: Q Q)?$/,
  /^$/,
  /^Decisions made \(newest first\):$/,
  /^Agent's last report: Q$/,
  /^Goal \(first request\): Q(?: → agent: Q)?$/,
  // issue 25: an earlier request with the agent's own outcome of that turn
  /^- Q → agent: Q$/,
  /^Earlier requests \(newest first\):$/,
  // bare paths only from [A-Za-z0-9._-/@+~%=] (section-model.ts BARE_PATH) plus brace folds; quoted otherwise
  /^Files changed \(\d+(?:, root [A-Za-z0-9._\-/@+~%=]+\/)?\): (?:[A-Za-z0-9._\-/@+~%={}, ]|Q)+$/,
  /^Main changes \(most important first\):$/,
  /^- (?:[A-Za-z0-9._\-/@+~%=]+|Q): (?:\d+ writes?|\d+ edits?|named in \d+ requests?|last (?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2})(?:, (?:\d+ edits?|named in \d+ requests?|last (?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}))*(?:; defines Q)?(?:: Q)?$/,
  /^Commands \(latest outcome\): Q (?:ok|failed(?: \(exit \d+\))?)(?: ×\d+(?: \(\d+ failed\))?)?(?:; Q (?:ok|failed(?: \(exit \d+\))?)(?: ×\d+(?: \(\d+ failed\))?)?)*$/,
  /^Open failures \(unresolved at this point; do not retry blindly\):$/,
  /^- (?:[A-Za-z_][A-Za-z0-9_.-]*|Q)(?: Q)?: Q$/,
  /^[A-Za-z][A-Za-z0-9 ()',.-]{0,60}:$|^Q:$/,
  /^- Q(?: \((?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}\))?$/,
  /^Thread: Q$/,
  /^Key exchanges:$/,
  /^- (?:user|agent): Q$/,
  /^Files modified: Q(?:, Q)*$/,
  /^Files read: Q(?:, Q)*$/,
  /^Tools used: Q(?:, Q)*$/,
  /^Tool failures \(do not retry blindly\):$/,
  /^- Q(?: Q)?: Q$/,
  /^Open items:$/,
  /^Learnings \(consider storing to long-term memory via memory_store\):$/,
  /^Note: \d+ compactions this session \(more than \d+\)\. A long session compacts often; only if compactions now come every turn or two, finish the current step and suggest \/new to the user\.$/,
  /^Note: \d+ compactions this session \(more than \d+\)\.$/,
  /^\(not shown: [a-z0-9 ,]+; `openclaw-context show` prints the full checkpoint\)$/,
  /^\(more not shown: `openclaw-context show` prints the full checkpoint\)$/,
  /^\[End of checkpoint restore\]$/,
];

export const HEADERS = ["[Post-compaction checkpoint restore]", "[Session resume checkpoint restore]"];
export const END_MARKER = "[End of checkpoint restore]";

/** Asserts the structural invariants of a non-empty restore block. */
export function expectWellFormedBlock(text: string, kind: "post-compaction" | "resume"): void {
  const lines = text.split("\n");
  expect(lines[0]).toBe(kind === "resume" ? HEADERS[1] : HEADERS[0]);
  expect(lines[lines.length - 1]).toBe(END_MARKER);
  // Only "\n" separates lines: no other line or paragraph break, no control or bidi char.
  expect(text).not.toMatch(/[\r\u0085\u2028\u2029\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/);
  for (const [i, line] of lines.entries()) {
    expect(line.startsWith("System")).toBe(false);
    if (i > 0) expect(HEADERS.includes(line)).toBe(false);
    if (i < lines.length - 1) expect(line).not.toBe(END_MARKER);
    const skeleton = line.replace(Q, "Q");
    const ok = SKELETONS.some((re) => re.test(skeleton));
    if (!ok) throw new Error(`line ${i} has an unknown shape: ${JSON.stringify(line)} -> ${JSON.stringify(skeleton)}`);
  }
}
