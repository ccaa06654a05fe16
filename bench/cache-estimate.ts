/**
 * A small prompt-cache bill of replayed sessions (issue 37), until the replay's own `cost` report
 * lands: every request the provider received, hashed block by block, billed under
 *   - Anthropic's breakpoint rules as pi-ai places them (the system prompt and the last block of
 *     the last user message; an entry only at a breakpoint; a hit only within 20 blocks before
 *     the request's breakpoint; write 1.25x, read 0.1x; every request inside the TTL),
 *   - any shared prefix at Anthropic's prices, OpenAI's automatic prefix caching (>= 1,024
 *     tokens, 128-token steps, read 0.5x), and no cache.
 * Input only (chars/4), summarizer requests uncached. Ratios against the host alone, same run.
 *   npx tsx bench/cache-estimate.ts <transcript.json>... [--window N] [--modes none,anthropic,openai]
 */
import { createHash } from "node:crypto";
import type { Context } from "@mariozechner/pi-ai";
import { isSummarizerRequest } from "../src/faux/faux-model.js";
import { replayTranscript } from "../src/replay/replayer.js";
import { loadTranscript } from "../src/replay/transcript.js";

interface Block {
  hash: string;
  tokens: number;
}
interface Req {
  ctx: Context;
  blocks: Block[];
  /** index of the message breakpoint's block (-1: none) */
  bp: number;
  summarizer: boolean;
}

const tok = (s: string) => Math.ceil(s.length / 4);

function blocksOf(ctx: Context): Req {
  const raw: Array<{ text: string; user: boolean; msgEnd: boolean }> = [{ text: `system:${ctx.systemPrompt ?? ""}`, user: false, msgEnd: true }];
  const msgs = ctx.messages as Array<{ role: string; content?: unknown; toolCallId?: string }>;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!;
    const user = m.role !== "assistant";
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? (m.content as unknown[]) : [];
    const parts = content.length > 0 ? content : [{ type: "empty" }];
    for (let j = 0; j < parts.length; j++) {
      const last = j === parts.length - 1;
      // consecutive tool results are one user message (pi-ai anthropic.js)
      const merged = m.role === "toolResult" && msgs[i + 1]?.role === "toolResult";
      raw.push({ text: `${m.role}:${m.toolCallId ?? ""}:${JSON.stringify(parts[j])}`, user, msgEnd: last && !merged });
    }
  }
  const blocks: Block[] = [];
  let h = "";
  for (const r of raw) {
    h = createHash("sha1").update(h).update(r.text).digest("hex");
    blocks.push({ hash: h, tokens: tok(r.text) });
  }
  const lastMsg = msgs[msgs.length - 1];
  const bp = lastMsg && lastMsg.role !== "assistant" ? blocks.length - 1 : -1;
  return { ctx, blocks, bp, summarizer: isSummarizerRequest(ctx) };
}

interface Bill {
  anthropicBp: number;
  anthropicPrefix: number;
  openai: number;
  none: number;
  inputTokens: number;
  requests: number;
  fullRewrites: number;
}

/** The first message where a request differs from the previous one (debug). */
function whyBroken(a: Context, b: Context): string {
  const ma = a.messages as Array<{ role: string; content?: unknown }>;
  const mb = b.messages as Array<{ role: string; content?: unknown }>;
  if (a.systemPrompt !== b.systemPrompt) return "system prompt";
  for (let i = 0; i < Math.min(ma.length, mb.length); i++) {
    const x = JSON.stringify(ma[i]);
    const y = JSON.stringify(mb[i]);
    if (x !== y) return `message ${i}/${ma.length}->${mb.length} ${ma[i]!.role}->${mb[i]!.role}: ${x.slice(0, 90)} | ${y.slice(0, 90)}`;
  }
  return `prefix kept, ${ma.length}->${mb.length} messages (lookback: ${mb.length - ma.length} new)`;
}

function bill(reqs: Req[]): Bill {
  const out: Bill = { anthropicBp: 0, anthropicPrefix: 0, openai: 0, none: 0, inputTokens: 0, requests: 0, fullRewrites: 0 };
  const entries = new Set<string>();
  const seen = new Set<string>();
  let prevChat: Req | null = null;
  for (const r of reqs) {
    const total = r.blocks.reduce((a, b) => a + b.tokens, 0);
    out.none += total;
    out.inputTokens += total;
    if (r.summarizer) {
      out.anthropicBp += total;
      out.anthropicPrefix += total;
      out.openai += total;
      continue;
    }
    out.requests++;
    const prevChatNow = prevChat;
    prevChat = r;

    // Anthropic, breakpoints: system prompt (block 0) and the last user block
    let cost = 0;
    const sys = r.blocks[0]!;
    cost += entries.has(sys.hash) ? 0.1 * sys.tokens : 1.25 * sys.tokens;
    entries.add(sys.hash);
    if (r.bp > 0) {
      let hit = 0;
      for (let k = r.bp; k >= Math.max(1, r.bp - 20); k--) {
        if (entries.has(r.blocks[k]!.hash)) {
          hit = k;
          break;
        }
      }
      if (hit === 0 && r.bp > 21) {
        out.fullRewrites++;
        if (process.env.CACHE_ESTIMATE_DEBUG && prevChatNow) console.log("  rewrite:", whyBroken(prevChatNow.ctx, r.ctx));
      }
      for (let k = 1; k <= r.bp; k++) cost += (k <= hit ? 0.1 : 1.25) * r.blocks[k]!.tokens;
      for (let k = r.bp + 1; k < r.blocks.length; k++) cost += r.blocks[k]!.tokens;
      entries.add(r.blocks[r.bp]!.hash);
    } else for (let k = 1; k < r.blocks.length; k++) cost += r.blocks[k]!.tokens;
    out.anthropicBp += cost;
    // any shared prefix with an earlier request
    let shared = 0;
    let sharedTokens = 0;
    for (let k = 0; k < r.blocks.length && seen.has(r.blocks[k]!.hash); k++) {
      shared = k + 1;
      sharedTokens += r.blocks[k]!.tokens;
    }
    out.anthropicPrefix += 0.1 * sharedTokens + 1.25 * (total - sharedTokens);
    const oa = sharedTokens >= 1024 ? Math.floor(sharedTokens / 128) * 128 : 0;
    out.openai += 0.5 * oa + (total - oa);
    for (let k = shared; k < r.blocks.length; k++) seen.add(r.blocks[k]!.hash);
  }
  return out;
}

async function run(file: string, window: number, cm: Record<string, unknown>): Promise<Bill> {
  const reqs: Req[] = [];
  await replayTranscript(loadTranscript(file), { contextWindow: window, finalCompact: false, contextManager: cm, onModelRequest: (c) => reqs.push(blocksOf(c)) });
  return bill(reqs);
}

const args = process.argv.slice(2);
let window = 200_000;
let modes = ["none", "anthropic", "openai"];
let extra: Record<string, unknown> = {};
const files: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--window") window = Number(args[++i]);
  else if (args[i] === "--modes") modes = args[++i]!.split(",");
  else if (args[i] === "--config") extra = JSON.parse(args[++i]!) as Record<string, unknown>;
  else files.push(args[i]!);
}
const fmt = (x: number) => x.toFixed(2);
for (const file of files) {
  const alone = await run(file, window, { enabled: false, offload: false, noteTool: false, searchTool: false, smartTrim: false });
  console.log(`${file.split("/").pop()} @ ${window}: host alone ${alone.requests} requests, ${Math.round(alone.inputTokens / 1000)}k input tokens, ${alone.fullRewrites} full rewrites (breakpoint rules)`);
  for (const mode of modes) {
    const b = await run(file, window, { ...extra, promptCache: mode });
    console.log(
      `  promptCache=${mode}${Object.keys(extra).length ? ` ${JSON.stringify(extra)}` : ""}: anthropic-bp ${fmt(b.anthropicBp / alone.anthropicBp)}x  anthropic-prefix ${fmt(b.anthropicPrefix / alone.anthropicPrefix)}x  openai ${fmt(b.openai / alone.openai)}x  no-cache ${fmt(b.none / alone.none)}x  input tokens ${fmt(b.inputTokens / alone.inputTokens)}x  full rewrites ${b.fullRewrites}/${b.requests}`,
    );
  }
}
process.exit(0);
