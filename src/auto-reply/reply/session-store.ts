/**
 * HOST STAND-IN for OpenClaw's session store (`src/config/sessions/`): maps a
 * session key to its current session id and transcript file, with the
 * per-session compaction count. Persisted atomically as JSON, so a second
 * runner process on the same key sees the same session.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic, ensurePrivateDir } from "../../infra/atomic-file.js";

export interface SessionStoreEntry {
  sessionId: string;
  sessionFile: string;
  updatedAt: number;
  compactionCount: number;
  /** the resume check (checkpoint of an earlier session on this key) has run for this session id */
  resumeChecked: boolean;
}

export type SessionStoreData = Record<string, SessionStoreEntry>;

export class SessionStore {
  readonly path: string;

  constructor(readonly sessionsDir: string) {
    this.path = join(sessionsDir, "sessions.json");
  }

  async load(): Promise<SessionStoreData> {
    try {
      const parsed = JSON.parse(await readFile(this.path, "utf8")) as unknown;
      return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as SessionStoreData) : {};
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw new Error(`session store ${this.path} is unreadable: ${(e as Error).message}`);
    }
  }

  async get(sessionKey: string): Promise<SessionStoreEntry | undefined> {
    const data = await this.load();
    return Object.prototype.hasOwnProperty.call(data, sessionKey) ? data[sessionKey] : undefined;
  }

  /** Read-modify-write of one entry (OpenClaw serializes these with a session lock). */
  async set(sessionKey: string, entry: SessionStoreEntry): Promise<void> {
    await ensurePrivateDir(this.sessionsDir);
    const data = await this.load();
    data[sessionKey] = entry;
    await writeFileAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`);
  }
}
