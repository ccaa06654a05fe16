/**
 * What a session's latest requests had aged (breakdown/compute.ts agedKeys): each key kept once, each request
 * a sorted Int32Array of ids (~4 bytes per aged result per request instead of ~110 for a Set of strings).
 */
import type { AgedSet } from "../breakdown/compute.js";

export interface AgedRequest {
  seq: number;
  /** messageKey of the request's last message: the one its reply follows */
  end: string | null;
  /** the request's aged keys, as ids of the history's table, ascending */
  ids: Int32Array;
}

/** Requests remembered per session: replies aborted in a row beyond this fall back to the request before. */
const AGED_KEPT = 16;

export class AgedHistory {
  seq = 0;
  /** the latest requests, oldest first */
  readonly recent: AgedRequest[] = [];
  private readonly idOf = new Map<string, number>();
  /** chars of the keys in idOf (their weight) */
  private chars = 0;
  /** ids are never reused: a forgotten one is in no kept request */
  private nextId = 0;

  /** Remembers what request `seq` aged (the caller remembers a seq > 0 once). */
  remember(seq: number, end: string | null, keys: ReadonlySet<string>): void {
    const ids = new Int32Array(keys.size);
    let i = 0;
    for (const k of keys) {
      let id = this.idOf.get(k);
      if (id === undefined) {
        id = this.nextId++;
        this.idOf.set(k, id);
        this.chars += k.length;
      }
      ids[i++] = id;
    }
    ids.sort();
    this.recent.push({ seq, end, ids });
    this.recent.sort((a, b) => a.seq - b.seq);
    if (this.recent.length > AGED_KEPT) this.recent.splice(0, this.recent.length - AGED_KEPT);
    this.forget();
  }

  keysOf(r: AgedRequest): AgedSet {
    return { has: (key) => contains(r.ids, this.idOf.get(key)) };
  }

  /** Estimated bytes held (cache budget): the table (an entry and its key) and each request's ids. */
  approxBytes(): number {
    let n = 160 + this.idOf.size * 48 + this.chars * 2;
    for (const r of this.recent) n += 64 + 2 * (r.end?.length ?? 0) + r.ids.byteLength;
    return n;
  }

  /** Drops the keys no kept request holds, once they may be as many as the ones held. */
  private forget(): void {
    let most = 0;
    for (const r of this.recent) most = Math.max(most, r.ids.length);
    if (this.idOf.size <= 64 + 2 * most) return;
    const live = new Set<number>();
    for (const r of this.recent) for (const id of r.ids) live.add(id);
    for (const [k, id] of this.idOf) {
      if (live.has(id)) continue;
      this.idOf.delete(k);
      this.chars -= k.length;
    }
  }
}

function contains(ids: Int32Array, id: number | undefined): boolean {
  if (id === undefined) return false;
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = ids[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
