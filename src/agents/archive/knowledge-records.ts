/**
 * The knowledge layer, LLM-free: a checkpoint's facts as typed records, the kind given by the
 * checkpoint field a fact comes from (for config, the file name's syntax), never by words in it
 * (the table: docs/archive.md#knowledge-layer). A later record of the same `subject` (file, failing
 * tool and target, command family, decision id) with other text supersedes it; superseded records
 * are marked, never deleted.
 */
import type { Checkpoint, ToolFailure } from "../checkpoint/schema.js";
import { redactSecrets } from "../text/redact.js";
import { hashId } from "./store.js";

export const KNOWLEDGE_KINDS = ["decision", "implementation", "config", "issue", "task_state", "architecture"] as const;
export type KnowledgeKind = (typeof KNOWLEDGE_KINDS)[number];

export interface KnowledgeDraft {
  kind: KnowledgeKind;
  /** what the fact is about: records of one subject supersede each other */
  subject: string;
  text: string;
  /** when the fact was true (ms) */
  t: number;
}

export interface KnowledgeRecord extends KnowledgeDraft {
  v: 1;
  /** 16 hex of sha256(kind, subject, text): dedup */
  id: string;
  /** the checkpoint it came from */
  checkpoint: string;
  session: string;
}

const TEXT_MAX = 400;
/** config formats, by file name syntax */
const CONFIG_FILE = /(^|\/)(\.[^/]+|[^/]+\.(json|jsonc|json5|ya?ml|toml|ini|cfg|conf|env|properties))$/i;

export const knowledgeId = (d: Pick<KnowledgeDraft, "kind" | "subject" | "text">): string =>
  hashId(d.kind, d.subject, d.text);

const ms = (iso: string | undefined, fallback: number): number => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : fallback;
};

const clean = (s: string): string => redactSecrets(s.replace(/\s+/g, " ").trim()).slice(0, TEXT_MAX);

const failureKey = (f: ToolFailure): string => `${f.tool}\0${f.target}`;

/** The checkpoint's facts as knowledge drafts, in field order. Total: a missing section gives none. */
export function knowledgeOf(cp: Checkpoint): KnowledgeDraft[] {
  const out: KnowledgeDraft[] = [];
  const at = ms(cp.meta?.created_at, 0);
  const push = (kind: KnowledgeKind, subject: string, text: string, t = at) => {
    const body = clean(text);
    if (body) out.push({ kind, subject: subject.slice(0, 300), text: body, t });
  };
  for (const d of cp.decisions ?? []) push("decision", `decision:${d.id}`, d.what, ms(d.when, at));
  const work = cp.work;
  for (const f of work?.files ?? []) {
    const names = f.names?.length ? ` (declares ${f.names.slice(0, 8).join(", ")})` : "";
    const kind: KnowledgeKind = CONFIG_FILE.test(f.path) ? "config" : f.edits === 0 && f.writes > 0 && f.names?.length ? "architecture" : "implementation";
    push(kind, `file:${f.path}`, `${f.path}: ${f.change}${names}; ${f.edits} edits, ${f.writes} writes`, ms(f.last, at));
  }
  const open = new Set((work?.open_failures ?? []).map(failureKey));
  const seen = new Set<string>();
  for (const f of [...(work?.open_failures ?? []), ...(cp.thread?.errors ?? [])]) {
    const k = failureKey(f);
    if (seen.has(k)) continue;
    seen.add(k);
    // a failure the ledger no longer holds open was fixed (a later run of the same target succeeded)
    const state = work ? (open.has(k) ? "open" : "fixed") : "seen";
    push("issue", `failure:${f.tool}:${f.target}`, `${f.tool} ${f.target} failed: ${f.error} [${state}]`, ms(f.when, at));
  }
  for (const c of work?.commands ?? []) {
    const outcome = c.ok ? "ok" : `failed${c.exit === null ? "" : ` (exit ${c.exit})`}`;
    push("task_state", `command:${c.family}`, `ran ${c.command}: ${outcome}; ${c.runs} runs, ${c.failures} failed`, ms(c.when, at));
  }
  for (const r of work?.requests ?? []) push("task_state", `request:${knowledgeId({ kind: "task_state", subject: "", text: r })}`, `user asked: ${r}`);
  const w = cp.working;
  if (w?.topic || w?.next_action) push("task_state", "working", `${w.topic} [${w.status}]${w.next_action ? `; next: ${w.next_action}` : ""}`);
  for (const item of cp.open_items ?? []) push("task_state", `open:${knowledgeId({ kind: "task_state", subject: "", text: item })}`, `open: ${item}`);
  for (const l of cp.learnings ?? []) push("architecture", `learning:${knowledgeId({ kind: "architecture", subject: "", text: l })}`, l);
  return out;
}
