/**
 * Per state file, its `data` from the accumulators, and back (the shape and key order are the
 * on-disk format). A failed apply clears what it added: never half-merged.
 */
import { WorkLedger } from "./work-ledger.js";
import { type CapturedState, workCaps } from "./captured-state.js";
import { StateDataError, asObject, asRecords, asString, asStringArray, type StateFileName } from "./state-files.js";
import { emptyThread, parseThreadData, type ThreadData } from "./thread-data.js";

interface StateFileCodec {
  data(s: CapturedState): unknown;
  clear(s: CapturedState): void;
  apply(s: CapturedState, d: Record<string, unknown>): void;
}

const CODEC: { readonly [N in StateFileName]: StateFileCodec } = {
  decisions: {
    data: (s) => ({ items: s.decisions.values() }),
    clear: (s) => s.decisions.clear(),
    apply: (s, d) => {
      const items = asRecords(d.items, "items", { what: asString, when: asString });
      for (const { what, when } of items) s.addDecision(what, when);
    },
  },
  thread: {
    data: (s) => ({ ...s.thread, errors: s.errors.values() }) satisfies ThreadData,
    clear: (s) => {
      s.errors.clear();
      s.thread = emptyThread();
    },
    apply: (s, d) => {
      const { errors, ...thread } = parseThreadData(d, s.caps.maxExchanges);
      s.thread = thread;
      for (const e of errors) s.addError(e);
    },
  },
  resources: {
    data: (s) => s.resources.snapshot(),
    clear: (s) => s.resources.clear(),
    apply: (s, d) => s.resources.applyData(d),
  },
  open_items: {
    data: (s) => s.items.toData(),
    clear: (s) => s.items.clear(),
    apply: (s, d) => s.items.applyData(d),
  },
  learnings: {
    data: (s) => ({ items: s.learnings.values() }),
    clear: (s) => s.learnings.clear(),
    apply: (s, d) => {
      for (const text of asStringArray(d.items, "items")) s.addLearning(text);
    },
  },
  work: {
    data: (s) => s.work.toData(),
    clear: (s) => (s.work = new WorkLedger(workCaps(s.caps))),
    apply: (s, d) => {
      s.work = WorkLedger.fromData(d, workCaps(s.caps));
    },
  },
};

/** The `data` of state file `name`. */
export function stateFileData(s: CapturedState, name: StateFileName): unknown {
  return CODEC[name].data(s);
}

/** Applies one file's data; on a bad shape clears it and returns `invalid data: <field>: ...`. */
export function applyStateFile(s: CapturedState, name: StateFileName, raw: unknown): string | null {
  try {
    CODEC[name].apply(s, asObject(raw, "data"));
    return null;
  } catch (err) {
    CODEC[name].clear(s);
    return `invalid data: ${err instanceof StateDataError ? err.message : String(err)}`;
  }
}
