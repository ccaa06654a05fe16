/** Where command output goes (stdout lines, JSON) — injectable for tests, process streams by default. */
import { writable } from "./closed-pipe.js";

export interface Output {
  line(text: string): void;
  json(value: unknown): void;
  /** one warning line on stderr (the command still succeeds) */
  warn(text: string): void;
}

/** Writes stop once the stream is closed (a reader like `head` went away): see closed-pipe.ts. */
export const processOutput: Output = {
  line: (text) => void (writable(process.stdout) && process.stdout.write(`${text}\n`)),
  json: (value) => void (writable(process.stdout) && process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)),
  warn: (text) => void (writable(process.stderr) && process.stderr.write(`openclaw-context: ${text}\n`)),
};

/** "3m ago", "2h ago", "5d ago" from an ISO time. */
export function formatAge(iso: string, now = Date.now()): string {
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return "unknown age";
  if (ms < 0) return "in the future";
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}
