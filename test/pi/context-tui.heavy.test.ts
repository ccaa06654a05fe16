/**
 * `/context` in pi's interactive TUI, in a real terminal: pi runs under tmux (a detached
 * session of a fixed size), the test types a prompt, then `/context`, and asserts on the
 * captured screen: the one-line bar and the breakdown table are drawn. Skipped where tmux is
 * not installed. Polls the screen (no wall-clock assertions; generous overall timeout).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { makePiHome, PI, type PiHome } from "./pi-env.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const HAS_TMUX = spawnSync("tmux", ["-V"]).status === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!HAS_TMUX)("/context in pi's TUI (tmux)", () => {
  let home: PiHome;
  const name = `cm-tui-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
  const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", name);
  async function waitFor(re: RegExp, timeoutMs = 90_000): Promise<string> {
    for (let waited = 0; ; waited += 250) {
      const s = screen();
      if (re.test(s)) return s;
      if (waited > timeoutMs) throw new Error(`screen never matched ${re}:\n${s}`);
      await sleep(250);
    }
  }
  afterAll(() => {
    spawnSync("tmux", ["kill-session", "-t", name]);
    home?.cleanup();
  });

  it("draws the bar and the table", async () => {
    home = await makePiHome({ window: 4000, replyChars: 200, settings: { compaction: { enabled: false } } });
    const env = Object.entries(home.env)
      .filter(([k]) => /^(PI_CODING_AGENT_DIR|OPENCLAW_STATE_DIR|FAUX_\w+|PATH|HOME)$/.test(k))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(" ");
    const cmd = `cd ${JSON.stringify(home.cwd)} && env ${env} TERM=xterm-256color ${JSON.stringify(PI)} ${home.baseArgs().map((a) => JSON.stringify(a)).join(" ")}`;
    tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "60", cmd);
    await waitFor(/tiny/);
    tmux("send-keys", "-t", name, "-l", `Review: ${"check every module boundary ".repeat(40)}`);
    tmux("send-keys", "-t", name, "Enter");
    await waitFor(/faux reply|Review:/);
    await sleep(500);
    for (let i = 0; i < 200 && home.requests().length === 0; i++) await sleep(250);
    tmux("send-keys", "-t", name, "-l", "/context");
    await sleep(300);
    tmux("send-keys", "-t", name, "Enter");
    const s = await waitFor(/Context breakdown: .* tokens/);
    expect(s).toMatch(/\[[A-Za-z?]+\.+\] [A-Za-z?] [a-z]+/);
    expect(s).toMatch(/system prompt +\d+ +\d+%/);
    expect(s).toMatch(/user messages +\S+ +\d+%/);
    expect(s).toMatch(/Largest:/);
    expect(s).toMatch(/Headroom: 80% checkpoint/);
  }, 3 * TEST_TIMEOUT_MS);
});
