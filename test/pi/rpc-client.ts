/** A minimal client for `pi --mode rpc` (JSON lines on stdin/stdout), for tests. */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";

type Json = Record<string, unknown>;

export class PiRpc {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly events: Json[] = [];
  private waiters: Array<() => void> = [];
  private nextId = 1;
  stderr = "";

  constructor(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn(cmd, [...args, "--mode", "rpc"], { cwd: opts.cwd, env: opts.env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (d) => (this.stderr += d));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      try {
        this.events.push(JSON.parse(line) as Json);
      } catch {
        return; // not protocol output
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }

  get eventCount(): number {
    return this.events.length;
  }

  /** Waits for the first event after index `from` matching `pred`. */
  async waitFor(pred: (e: Json) => boolean, from = 0, timeoutMs = CHILD_TIMEOUT_MS): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.events.slice(from).find(pred);
      if (hit) return hit;
      if (Date.now() > deadline || this.child.exitCode !== null) throw new Error(`rpc: no matching event (stderr: ${this.stderr.slice(-500)})`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  /** Sends a command and waits for its response (and, for a prompt, for the run to end). */
  async command(cmd: Json): Promise<Json> {
    const id = `t${this.nextId++}`;
    const from = this.events.length;
    this.child.stdin.write(`${JSON.stringify({ ...cmd, id })}\n`);
    const response = await this.waitFor((e) => e.type === "response" && e.id === id, from);
    if (response.success !== true) throw new Error(`rpc ${String(cmd.type)} failed: ${JSON.stringify(response)}`);
    // an extension command ("/context") runs no agent
    if (cmd.type === "prompt" && !String(cmd.message).startsWith("/")) await this.waitFor((e) => e.type === "agent_end", from);
    return response;
  }

  /** Kills the process with `signal` (SIGKILL: a crash, no handler runs) and waits until it is gone. */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    await new Promise<void>((r) => {
      this.child.on("close", () => r());
      this.child.kill(signal);
    });
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await new Promise<void>((r) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return r();
      const t = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
      this.child.on("close", () => {
        clearTimeout(t);
        r();
      });
    });
  }
}
