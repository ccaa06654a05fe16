/**
 * `knowledge.jsonl` beside `segments.jsonl` (same directory, same modes): the knowledge
 * records of a session key, append-only. Two line shapes: a record, and a supersede mark
 * `{"v":1,"superseded":"<id>","by":"<id>"}` written when a later record of the same subject
 * replaces it, so nothing is rewritten or deleted. Readers take whole lines and skip one that
 * does not parse. Writes go through the archive's `appendLines` (one fsync'd write).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { appendLines, archiveDir } from "./store.js";
import { type KnowledgeDraft, type KnowledgeKind, type KnowledgeRecord, knowledgeId } from "./knowledge-records.js";

export const KNOWLEDGE_FILE = "knowledge.jsonl";

const KINDS: ReadonlySet<string> = new Set(["decision", "implementation", "config", "issue", "task_state", "architecture"]);

export interface KnowledgeEntry extends KnowledgeRecord {
  /** id of the record that replaced it */
  supersededBy?: string;
}

export function knowledgeFile(stateDir: string, sessionKey: string): string {
  return path.join(archiveDir(stateDir, sessionKey), KNOWLEDGE_FILE);
}

function parse(line: string): KnowledgeRecord | { superseded: string; by: string } | null {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (v?.v !== 1) return null;
    if (typeof v.superseded === "string" && typeof v.by === "string") return { superseded: v.superseded, by: v.by };
    if (typeof v.id === "string" && KINDS.has(String(v.kind)) && typeof v.subject === "string" && typeof v.text === "string") {
      return v as unknown as KnowledgeRecord;
    }
  } catch {
    // a torn or foreign line: skipped
  }
  return null;
}

/** The file's records in order, supersede marks applied; empty when there is none. */
export async function readKnowledge(file: string): Promise<KnowledgeEntry[]> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch {
    return [];
  }
  return parseKnowledge(text);
}

/** Records of a knowledge file's text (whole lines only), supersede marks applied. */
export function parseKnowledge(text: string): KnowledgeEntry[] {
  const end = text.lastIndexOf("\n");
  const byId = new Map<string, KnowledgeEntry>();
  for (const line of text.slice(0, end + 1).split("\n")) {
    if (!line) continue;
    const v = parse(line);
    if (!v) continue;
    if ("superseded" in v) {
      const r = byId.get(v.superseded);
      if (r) r.supersededBy = v.by;
    } else if (!byId.has(v.id)) byId.set(v.id, { ...v });
  }
  return [...byId.values()];
}

export interface KnowledgeAppend {
  added: number;
  superseded: number;
}

/**
 * Appends the drafts not recorded yet; a draft whose subject has a live record with other
 * text supersedes it. One write for records and marks.
 */
export async function appendKnowledge(
  file: string,
  drafts: readonly KnowledgeDraft[],
  origin: { checkpoint: string; session: string },
): Promise<KnowledgeAppend> {
  const existing = await readKnowledge(file);
  const ids = new Set(existing.map((r) => r.id));
  const live = new Map<string, string>(); // subject -> live id
  for (const r of existing) if (!r.supersededBy) live.set(`${r.kind}\0${r.subject}`, r.id);
  let lines = "";
  let added = 0;
  let superseded = 0;
  for (const d of drafts) {
    const id = knowledgeId(d);
    if (ids.has(id)) continue;
    ids.add(id);
    const record: KnowledgeRecord = { v: 1, id, kind: d.kind as KnowledgeKind, subject: d.subject, text: d.text, t: d.t, ...origin };
    lines += `${JSON.stringify(record)}\n`;
    added++;
    const subject = `${d.kind}\0${d.subject}`;
    const old = live.get(subject);
    if (old && old !== id) {
      lines += `${JSON.stringify({ v: 1, superseded: old, by: id })}\n`;
      superseded++;
    }
    live.set(subject, id);
  }
  if (lines) await appendLines(file, lines);
  return { added, superseded };
}
