/**
 * open_items.json: the open items (key -> text; the key says where it came from: `note`, `task`,
 * `pending`, `interrupted`) and those closed since the last checkpoint, which a carried-forward
 * checkpoint drops. open/close return false when nothing changed (nothing to write).
 */
import { itemKey } from "./message-rules.js";
import { LruMap } from "./lru.js";
import { asArray, asObject, asString, asStringArray } from "./state-files.js";

const CLOSED_ITEMS_FACTOR = 4;

export class OpenItems {
  private readonly open: LruMap<string, string>;
  private readonly closed: LruMap<string, string>;

  constructor(maxOpenItems: number) {
    this.open = new LruMap(maxOpenItems);
    this.closed = new LruMap(maxOpenItems * CLOSED_ITEMS_FACTOR);
  }

  /** Returns false when nothing changed. */
  openItem(key: string, text: string): boolean {
    if (!text) return false;
    if (this.open.get(key) === text) return false;
    this.open.touch(key, text);
    this.closed.delete(itemKey(text));
    return true;
  }

  /** Returns false when no item is open under `key`. */
  closeItem(key: string): boolean {
    const text = this.open.get(key);
    if (text === undefined) return false;
    this.open.delete(key);
    this.closed.touch(itemKey(text), text);
    return true;
  }

  /** Closes every open item whose text has the same itemKey as `text`; returns how many. */
  closeByText(text: string): number {
    const k = itemKey(text);
    let closed = 0;
    for (const [key, value] of this.open.entries()) {
      if (itemKey(value) === k && this.closeItem(key)) closed++;
    }
    return closed;
  }

  /** Records `text` as closed without an open item (one carried forward from a checkpoint). */
  markClosed(text: string): void {
    this.closed.touch(itemKey(text), text);
  }

  /** Keys of the open items, oldest first. */
  keys(): string[] {
    return this.open.keys();
  }

  openTexts(): string[] {
    return this.open.values();
  }

  closedTexts(): string[] {
    return this.closed.values();
  }

  /** After a checkpoint: the checkpoint holds what was closed. */
  clearClosed(): void {
    this.closed.clear();
  }

  clear(): void {
    this.open.clear();
    this.closed.clear();
  }

  toData(): unknown {
    return { open: this.open.entries().map(([key, text]) => ({ key, text })), closed: this.closed.values() };
  }

  /** Adds persisted data; throws StateDataError naming the field on a bad shape. */
  applyData(d: Record<string, unknown>): void {
    for (const [i, v] of asArray(d.open, "open").entries()) {
      const o = asObject(v, `open[${i}]`);
      this.open.touch(asString(o.key, `open[${i}].key`), asString(o.text, `open[${i}].text`));
    }
    for (const text of asStringArray(d.closed, "closed")) this.closed.touch(itemKey(text), text);
  }
}
