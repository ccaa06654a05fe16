/**
 * The turn log (each request with the agent's last text of its turn: the first and the newest
 * MAX_TURNS) and the sub-agent / task calls, in work.json. Strings arrive redacted and gisted.
 */
import type { WorkTask, WorkTurn } from "../checkpoint/schema.js";
import { declaredNames } from "./declared-names.js";
import { LruMap } from "./lru.js";
import { asBoolean, asNumber, asObject, record } from "./state-files.js";
import { asString, asStringArray, orNull, records } from "./state-files.js";

const MAX_TURNS = 40;
const MAX_TASKS = 20;
const MAX_TURN_NAMES = 32;

type TurnEntry = WorkTurn & { seq: number };

export class TurnLog {
  private first: TurnEntry | null = null;
  /** newest last, without the first turn */
  private recent: TurnEntry[] = [];
  private readonly tasks = new LruMap<string, WorkTask>(MAX_TASKS);

  onRequest(seq: number, request: string, isFirstRealRequest: boolean): void {
    const entry: TurnEntry = { seq, request, outcome: "" };
    if (this.first === null && isFirstRealRequest) {
      this.first = entry;
      return;
    }
    this.recent.push(entry);
    if (this.recent.length > MAX_TURNS) this.recent.shift();
  }

  currentTurn(): object | null {
    return this.recent.at(-1) ?? this.first;
  }

  holds(turn: object): boolean {
    return turn === this.first || this.recent.includes(turn as TurnEntry);
  }

  /** The agent's text in `turn`: the latest text of a turn stands for it. */
  onText(outcome: string, names: readonly string[], turn: object): void {
    const cur = turn as TurnEntry;
    cur.outcome = outcome;
    if (names.length > 0) cur.names = names.slice(0, MAX_TURN_NAMES);
    else delete cur.names;
  }

  onTaskCall(id: string, tool: string, ask: string): void {
    if (id) this.tasks.touch(id, { tool, id, ask, outcome: "", ok: null });
  }

  /** True when `id` is a task call this log knows (its result is recorded). */
  onTaskResult(id: string, outcome: string, ok: boolean): boolean {
    const t = this.tasks.get(id);
    if (!t) return false;
    this.tasks.touch(id, { ...t, outcome, ok });
    return true;
  }

  /** Turns newest first, the first turn last. */
  turns(): WorkTurn[] {
    const all = [...this.recent].reverse();
    if (this.first) all.push(this.first);
    return all.map(({ seq: _s, ...t }) => ({ ...t, ...(t.names ? { names: [...t.names] } : {}) }));
  }

  taskList(): WorkTask[] {
    return this.tasks.list().reverse().map((t) => ({ ...t }));
  }

  toData(): unknown {
    return { first: this.first, recent: this.recent, tasks: this.tasks.list() };
  }

  static fromData(raw: unknown): TurnLog {
    const d = asObject(raw, "turns");
    const log = new TurnLog();
    log.first = orNull(record(TURN_DATA))(d.first, "turns.first");
    log.recent = records(TURN_DATA)(d.recent, "turns.recent").slice(-MAX_TURNS);
    for (const t of records(TASK_DATA)(d.tasks, "turns.tasks")) log.tasks.touch(t.id, t);
    return log;
  }
}

const TURN_DATA = {
  seq: asNumber,
  request: asString,
  outcome: asString,
  names: (v: unknown, f: string) => (v === undefined ? undefined : asStringArray(v, f)),
};
const TASK_DATA = {
  tool: asString,
  id: asString,
  ask: asString,
  outcome: asString,
  ok: orNull(asBoolean),
};

/** A request that is only a slash command, a URL or an @path (syntax, not words): not a goal by itself. */
export function isBareReference(request: string): boolean {
  const r = request.trim().replace(/^"|"$/g, "");
  return /^(\/[\w:.-]+|(https?|file):\/\/\S+|www\.\S+|@\S+)$/.test(r);
}

/** Sub-agent and task tool names across hosts (Claude Code's `Task`, pi-subagents, OpenClaw's `sessions_spawn`). */
const TASK_TOOLS = /^(task|agent|subagent|sub_agent|spawn_agent|sessions_spawn|dispatch_agent|delegate|delegate_task)$/i;

export function isTaskTool(name: string): boolean {
  return TASK_TOOLS.test(name);
}

/** What a task call asked: its prompt-like argument, else its description. */
export function taskAsk(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  const o = args as Record<string, unknown>;
  for (const k of ["description", "prompt", "task", "message", "instructions", "query"]) {
    const v = o[k];
    if (typeof v === "string" && v.trim()) return k === "description" && typeof o.prompt === "string" ? `${v}: ${o.prompt}` : v;
  }
  return "";
}

/** Code names in the agent's Markdown: inline code spans and what its fenced blocks declare, in order, bounded. */
export function backtickNames(text: string, max = MAX_TURN_NAMES): string[] {
  const out: string[] = [];
  const add = (name: string): void => {
    if (out.length < max && !out.includes(name)) out.push(name);
  };
  const bounded = text.length > 40_000 ? text.slice(0, 40_000) : text;
  // spans and fences both start with a backtick: most replies have none (no closures, no scans)
  if (!bounded.includes("`")) return out;
  const spans = (prose: string): void => {
    for (const m of prose.matchAll(/`([^`\n]{2,80})`/g)) {
      const name = m[1]!.trim();
      // a name, a path, a call: no spaces beyond a short call's arguments
      if (!/[A-Za-z_]/.test(name) || /\s/.test(name.replace(/\(.*\)$/, ""))) continue;
      add(name);
    }
  };
  // in document order: prose spans, and a fenced block's declared names where the block stands
  const fences = /^```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)^```/gm;
  let at = 0;
  for (const m of bounded.matchAll(fences)) {
    spans(bounded.slice(at, m.index));
    // the fence's language picks the declaration syntax; none: read it as TypeScript-like code
    for (const n of declaredNames(m[2]!, `block.${m[1] || "ts"}`)) add(n);
    at = m.index! + m[0].length;
  }
  spans(bounded.slice(at));
  return out;
}
