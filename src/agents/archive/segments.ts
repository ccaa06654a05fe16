/**
 * Messages -> archive segments: one per user message, reply text, tool call and result, redacted and
 * bounded (SEGMENT_BOUNDS); a long text becomes overlapping chunks, so an identifier in the middle of a
 * long output stays findable. Never archived: our injected messages and blocks, host `System:` lines,
 * thinking blocks, compaction summaries.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage } from "@mariozechner/pi-ai";
import { boundedJson } from "../text/gist.js";
import { assistantText, contentText, prop, stripHostSystemLines, toolCallsOf, toolPathArg } from "../messages/read.js";
import { RESTORE_END_MARKER, RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "../inject/markers.js";
import { userOrigin } from "../messages/host-provenance.js";
import { RECALL_TOOLS } from "../messages/custom-types.js";
import { redactSecrets } from "../text/redact.js";
import { STASHED_MARKER } from "../artifacts/preview.js";
import { readArtifact } from "../artifacts/store.js";

/** Frame of the recalled-context block (recall-render.ts emits it, stripInjectedBlocks strips it). */
export const RECALL_HEADER = '<recalled-context source="context-manager">';
export const RECALL_END = "</recalled-context>";
/** the frame before the knowledge layer: still stripped from older transcripts */
export const LEGACY_RECALL_HEADER = "[Recalled from the archive of compacted context]";

/** host: a user-role message the host or another session wrote (host-provenance.ts) */
export type SegmentRole = "user" | "host" | "assistant" | "tool_call" | "tool_result" | "bash";

/** A segment before its archive id, seq and time: `t` the message's (0: none), `part` k (1-based) of `parts` chunks. */
export interface SegmentDraft {
  role: SegmentRole;
  t: number;
  tool?: string;
  target?: string;
  error?: boolean;
  part?: number;
  parts?: number;
  text: string;
}

/** Bounds of a segment's text (redacted): chunks of about `chunk` chars share `overlap` (a phrase across a cut is
 * whole in one of them); past `maxChunks` the middle of the (scanned) text is left out. */
export const SEGMENT_BOUNDS = { chunk: 2000, overlap: 200, maxChunks: 32, target: 300, tool: 80 } as const;

/** Text looked at per message before redaction (redaction is linear, but a 10 MB output is not worth it). */
const SCAN_MAX = 64_000;

const ELIDED = "\n…\n";

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 9 || c === 13;

/** Overlapping chunks cut at whitespace; past maxChunks the middle is left out, with a marker. */
export function chunkText(text: string): string[] {
  const { chunk, overlap, maxChunks } = SEGMENT_BOUNDS;
  if (text.length <= chunk) return text ? [text] : [];
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + chunk);
    // cut at the last whitespace in its second half (splitting no token), the next starts after a whitespace
    let cut = end - 1;
    while (end < text.length && cut > start + chunk / 2 && !isSpace(text.charCodeAt(cut))) cut--;
    if (end < text.length && cut > start + chunk / 2) end = cut;
    const piece = text.slice(start, end).trim();
    if (piece) out.push(piece);
    if (end >= text.length) break;
    const from = Math.max(start + 1, end - overlap);
    for (start = from; start < end && !isSpace(text.charCodeAt(start)); ) start++;
    start = start < end ? start + 1 : from;
  }
  if (out.length <= maxChunks) return out;
  const head = Math.ceil(maxChunks / 2);
  return [...out.slice(0, head - 1), `${out[head - 1]}${ELIDED}`, ...out.slice(out.length - (maxChunks - head))];
}

/** Head and tail of a huge text, cut at whitespace: no secret is split past the redactor's recognition. */
function scanWindow(text: string): string {
  if (text.length <= SCAN_MAX) return text;
  const head = dropCutToken(text.slice(0, SCAN_MAX / 2), 0);
  const tail = text.slice(text.length - SCAN_MAX / 2);
  const t = tail.search(/\s/);
  return head + ELIDED + (t >= 0 ? tail.slice(t) : "");
}

/** Text cut at `cap` by an extractor: its last token may be a cut secret, so it goes. */
function dropCutToken(text: string, cap: number): string {
  if (text.length < cap) return text;
  const i = text.search(/\s\S*$/);
  return i >= 0 ? text.slice(0, i) : "";
}

/** Caps of the shared extractors (contentText's is ours to pass, assistantText's is its own). */
const CONTENT_CAP = 4 * SCAN_MAX;
const ASSISTANT_CAP = 200_000;

/** Stricter than redactSecrets, for the archive only: a bare run of 20+ chars mixing upper, lower and digits that
 * switches kind on >= 35% of them is a random token, not an identifier ("computeInvoiceTotal2": 3 in 20). */
const BARE_TOKEN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g;

function looksLikeRandomToken(run: string): boolean {
  let switches = 0;
  let alnum = 0;
  let prev = 0;
  let kinds = 0; // bits: digit 1, upper 2, lower 4
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    const k = c >= 48 && c <= 57 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 97 && c <= 122 ? 4 : 0;
    if (k === 0) continue;
    if (prev !== 0 && k !== prev) switches++;
    kinds |= k;
    prev = k;
    alnum++;
  }
  return kinds === 7 && alnum >= 20 && switches / alnum >= 0.35;
}

/** Redacted, then bounded: a secret cut in half by the bound cannot survive redaction. */
function clean(text: string, head: number): string {
  const t = redact(text);
  return (t.length <= head ? t : `${t.slice(0, head)}…`).trim();
}

function redact(text: string): string {
  const t = redactSecrets(scanWindow(text));
  return t.replace(BARE_TOKEN, (run) => (looksLikeRandomToken(run) ? "[REDACTED:token]" : run)).trim();
}

/** The redacted text as one segment per chunk (`part`/`parts` when there are several). */
function pushChunks(out: SegmentDraft[], base: Omit<SegmentDraft, "text">, raw: string, keepEmpty = false): void {
  const chunks = chunkText(redact(raw));
  if (chunks.length === 0 && keepEmpty) out.push({ ...base, text: "" });
  const parts = chunks.length;
  for (const [i, text] of chunks.entries()) out.push({ ...base, ...(parts > 1 ? { part: i + 1, parts } : {}), text });
}

/** Removes restore and recall blocks (header line .. end marker) from a text. */
export function stripInjectedBlocks(text: string): string {
  let out = text;
  for (const [start, end] of [
    [RESTORE_HEADER_POST_COMPACTION, RESTORE_END_MARKER],
    [RESTORE_HEADER_RESUME, RESTORE_END_MARKER],
    [RECALL_HEADER, RECALL_END],
    [LEGACY_RECALL_HEADER, "[End of recalled context]"],
  ] as const) {
    for (let i = out.indexOf(start); i >= 0; i = out.indexOf(start)) {
      const j = out.indexOf(end, i + start.length);
      out = out.slice(0, i) + (j < 0 ? "" : out.slice(j + end.length));
    }
  }
  return out;
}

/** The thing a tool call acted on: its path, else its command / pattern / query / url. */
export function toolTarget(args: unknown): string {
  const p = toolPathArg(args);
  if (p !== null) return p;
  for (const key of ["command", "pattern", "query", "url"]) {
    const v = prop(args, key);
    if (typeof v === "string" && v.trim()) return v;
  }
  return "";
}

function argsWithoutTarget(args: unknown, target: string): unknown {
  if (!args || typeof args !== "object" || Array.isArray(args)) return args;
  const entries = Object.keys(args).map((key) => [key, prop(args, key)] as const);
  return Object.fromEntries(entries.filter(([, v]) => v !== target));
}

/** Tool and target of the calls seen so far, by call id (their results are archived with them). */
type Calls = Map<string, { tool: string; target: string }>;

/** Segments of `messages` in order (malformed ones skipped); `expand` gives a stashed result's payload. */
export function segmentsOf(messages: readonly AgentMessage[], expand?: ExpandStashed): SegmentDraft[] {
  const out: SegmentDraft[] = [];
  const calls: Calls = new Map();
  for (const msg of messages) pushMessage(out, calls, msg, expand);
  return out;
}

const SLICE_MS = 8;

/** segmentsOf, yielding to the event loop every SLICE_MS (megabytes of output hold up no other chat). */
export async function segmentsOfSliced(messages: readonly AgentMessage[], expand?: ExpandStashed): Promise<SegmentDraft[]> {
  const out: SegmentDraft[] = [];
  const calls: Calls = new Map();
  let since = performance.now();
  for (const msg of messages) {
    pushMessage(out, calls, msg, expand);
    if (performance.now() - since > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
  return out;
}

/** Pushes a message's segments; a hostile message (throwing getter, odd shape) is skipped, the rest archived. */
function pushMessage(out: SegmentDraft[], calls: Calls, msg: AgentMessage, expand?: ExpandStashed): void {
  try {
    if (!msg || typeof msg !== "object") return;
    const time = (msg as { timestamp?: unknown }).timestamp;
    const t = typeof time === "number" && Number.isFinite(time) && time > 0 ? time : 0;
    if (msg.role === "user") {
      // the user's own text: host `System:` lines and our injected blocks removed, no cut token
      const c = (msg as { content?: unknown }).content;
      const raw = typeof c === "string" ? c : dropCutToken(contentText(c, CONTENT_CAP), CONTENT_CAP);
      const own = stripInjectedBlocks(stripHostSystemLines(raw)).trim();
      pushChunks(out, { role: userOrigin(msg) === "user" ? "user" : "host", t }, own);
    } else if (msg.role === "assistant") {
      const a = msg as AssistantMessage;
      pushChunks(out, { role: "assistant", t }, stripInjectedBlocks(dropCutToken(assistantText(a), ASSISTANT_CAP)));
      for (const call of toolCallsOf(a)) {
        // recall output is never archived again (its results would rank their own copies)
        if (RECALL_TOOLS.has(call.name)) {
          calls.set(call.id, { tool: call.name, target: "" });
          continue;
        }
        const rawTarget = toolTarget(call.arguments);
        const tool = clean(call.name, SEGMENT_BOUNDS.tool) || "tool";
        const target = clean(rawTarget.replace(/\s+/g, " "), SEGMENT_BOUNDS.target);
        calls.set(call.id, { tool, target });
        const args = dropCutToken(boundedJson(argsWithoutTarget(call.arguments, rawTarget), SCAN_MAX), SCAN_MAX);
        pushChunks(out, { role: "tool_call", t, tool, ...(target ? { target } : {}) }, args === "{}" ? "" : args, true);
      }
    } else if (msg.role === "toolResult") {
      const r = msg as { toolCallId?: unknown; toolName?: unknown; content?: unknown; isError?: unknown };
      const call = calls.get(String(r.toolCallId ?? ""));
      if (RECALL_TOOLS.has(call?.tool ?? String(r.toolName ?? ""))) return;
      const tool = call?.tool ?? (clean(String(r.toolName ?? ""), SEGMENT_BOUNDS.tool) || "tool");
      const base: Omit<SegmentDraft, "text"> = { role: "tool_result", t, tool };
      if (call?.target) base.target = call.target;
      if (r.isError === true) base.error = true;
      const shown = contentText(r.content, CONTENT_CAP);
      const full = expand?.(shown);
      pushChunks(out, base, dropCutToken(full ? full.slice(0, CONTENT_CAP) : shown, CONTENT_CAP), !!base.target);
    } else if (msg.role === "bashExecution") {
      const b = msg as { command?: unknown; output?: unknown };
      const target = clean(String(b.command ?? "").replace(/\s+/g, " "), SEGMENT_BOUNDS.target);
      pushChunks(out, { role: "bash", t, tool: "bash", ...(target ? { target } : {}) }, String(b.output ?? ""), !!target);
    }
    // custom messages: ours are injected, other extensions' are theirs to keep; summaries: of what is archived
  } catch {
    // skipped
  }
}

/** An offloaded result's handle + preview -> the stashed payload (redacted when stashed), to index in its place; or
 * null (not a replacement, artifact gone). */
export type ExpandStashed = (text: string) => string | null;

const HANDLE_LINE = /^handle: (ocm_artifact:v1:sha256:[0-9a-f]{64})$/m;

export function stashedTextResolver(stateDir: string): ExpandStashed {
  return (text) => {
    if (!text.startsWith(STASHED_MARKER)) return null;
    // the handle line is the replacement's second line (preview.ts replacementText)
    const m = HANDLE_LINE.exec(text.slice(0, 400));
    if (!m) return null;
    try {
      return readArtifact(stateDir, m[1]!);
    } catch {
      return null; // collected or unreadable: the preview is what is left
    }
  };
}
