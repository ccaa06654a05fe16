/**
 * resources.json: files read, files modified, tools used, each an LRU list. A file is in one
 * list (a modification moves it to modified, where it stays). Returns false when nothing changed.
 */
import type { Resources } from "../checkpoint/schema.js";
import { LruMap } from "./lru.js";
import { asStringArray } from "./state-files.js";

export class ResourceLists {
  private readonly filesRead: LruMap<string, true>;
  private readonly filesModified: LruMap<string, true>;
  private readonly toolsUsed: LruMap<string, true>;

  constructor(maxFiles: number, maxTools: number) {
    this.filesRead = new LruMap(maxFiles);
    this.filesModified = new LruMap(maxFiles);
    this.toolsUsed = new LruMap(maxTools);
  }

  touchTool(tool: string): boolean {
    if (this.toolsUsed.isNewest(tool)) return false;
    this.toolsUsed.touch(tool, true);
    return true;
  }

  touchFile(p: string, access: "read" | "modified"): boolean {
    if (this.filesModified.isNewest(p) || (access === "read" && this.filesRead.isNewest(p))) return false;
    if (access === "modified") {
      this.filesRead.delete(p);
      this.filesModified.touch(p, true);
    } else if (this.filesModified.has(p)) {
      this.filesModified.touch(p, true);
    } else {
      this.filesRead.touch(p, true);
    }
    return true;
  }

  clear(): void {
    this.filesRead.clear();
    this.filesModified.clear();
    this.toolsUsed.clear();
  }

  /** The lists in checkpoint form; also the file's data. */
  snapshot(): Resources {
    return { files_read: this.filesRead.keys(), files_modified: this.filesModified.keys(), tools_used: this.toolsUsed.keys() };
  }

  /** Adds persisted data; throws StateDataError naming the field on a bad shape. */
  applyData(d: Record<string, unknown>): void {
    for (const p of asStringArray(d.files_read, "files_read")) this.filesRead.touch(p, true);
    for (const p of asStringArray(d.files_modified, "files_modified")) this.filesModified.touch(p, true);
    for (const p of asStringArray(d.tools_used, "tools_used")) this.toolsUsed.touch(p, true);
  }
}
