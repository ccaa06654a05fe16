/**
 * Replays a recorded transcript through the REAL host runner (AgentRunner with
 * the compaction-safeguard and the context manager, as in production) on the
 * faux model: user messages are sent in order as inbound messages, each chat
 * request is answered with the next recorded assistant reply, tools return the
 * recorded results, and compactions happen on their own at the chosen window.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AssistantMessage, fauxAssistantMessage } from "@mariozechner/pi-ai";
import { AuthStorage } from "@mariozechner/pi-coding-agent";
import { AgentRunner, type RunnerEvent } from "../auto-reply/reply/agent-runner.js";
import { parseCheckpoint } from "../agents/checkpoint/yaml.js";
import type { Checkpoint } from "../agents/checkpoint/schema.js";
import { RESTORE_HEADER_POST_COMPACTION } from "../agents/inject/markers.js";
import { GAUGE_CUSTOM_TYPE } from "../agents/messages/custom-types.js";
import { checkpointSessionDir } from "../infra/session-dir.js";
import { estimateTextTokens } from "../agents/text/token-estimate.js";
import { fauxUsageFixExtension, isSummarizerRequest, registerFauxModel } from "../faux/faux-model.js";
import { resetSystemEventsForTest } from "../auto-reply/system-events.js";
import { checkpointFidelity, groundTruth, restoreMentions } from "./fidelity.js";
import { fidelityV2 } from "./fidelity-v2.js";
import { type HandlerSample, timedFactory } from "./handler-timing.js";
import { replayToolsExtension, type ToolDelivery } from "./replay-tools.js";
import { measureRecall, type ObservedCompaction, type ObservedContext, recallObserver, type RecallReport } from "./recall.js";
import { archiveDir } from "../agents/archive/store.js";
import { bucketLabel, latencyStats, MESSAGE_BUCKETS } from "./stats.js";
import type { Transcript } from "./transcript.js";
import { offloadProbe, promptTokens } from "./offload-metrics.js";
import { resolveContextManagerConfig } from "../agents/config/context-manager-config.js";
import { offloadSettings } from "../agents/artifacts/offload.js";
import { agingAgeUnder, cacheRulesFor } from "../agents/cache/cache-rules.js";
import { fetchToolPromptTokens } from "../agents/artifacts/fetch-tool.js";
import { TrimProbe, type TrimReport } from "./trim-metrics.js";
import { type KnowledgeReport, KnowledgeTimeline, measureKnowledge } from "./knowledge-metrics.js";
import { knowledgeSettled } from "../agents/engine/archive-hooks.js";
import { spanArchivesSettled } from "../agents/engine/archive-hooks.js";
import { knowledgeFile } from "../agents/archive/knowledge-store.js";
import { recallCapTokens } from "../agents/archive/recall-query.js";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { BreakdownProbe } from "./breakdown-metrics.js";
import { loadPeerExtension } from "./peer-extension.js";
import { VisibleAfterCompaction } from "./visible-after.js";
import { CostProbe, replyOutputTokens } from "./cost-probe.js";
import { ReplayClock } from "./replay-clock.js";

import type { CheckpointRecord, CompactionRecord, ReplayOptions, ReplayReport } from "./replay-report.js";

export type { CheckpointRecord, CompactionRecord, ReplayOptions, ReplayReport };

/** small enough that every long transcript compacts several times */
export const DEFAULT_REPLAY_WINDOW = 32_000;
const SESSION_KEY = "agent:main:replay:direct:1";
const SUMMARY = "## Goal\nReplay summary (faux summarizer).\n";
/** a peer run: our manager contributes nothing (no capture, no checkpoint, no summary, no restore block, no tools) */
const PEER_RUN_CONFIG = { enabled: false, noteTool: false, searchTool: false, offload: false, smartTrim: false };

function visibleFidelity(messages: Transcript["messages"], delivered: number, text: string | null): CompactionRecord["visibleAfter"] {
  if (text === null) return null;
  const f = fidelityV2(messages, delivered, text);
  return { lastRequests: f.lastRequests, modifiedFiles: f.modifiedFiles };
}

export async function replayTranscript(t: Transcript, opts: ReplayOptions = {}): Promise<ReplayReport> {
  const window = opts.contextWindow ?? DEFAULT_REPLAY_WINDOW;
  const reserve = opts.reserveTokens ?? Math.round((16_384 * window) / 200_000);
  const keepRecent = opts.keepRecentTokens ?? Math.round((20_000 * window) / 200_000);
  const root = mkdtempSync(join(tmpdir(), "cm-replay-"));
  const workspace = join(root, "workspace");
  const stateDir = join(root, "state");
  mkdirSync(workspace, { recursive: true });
  resetSystemEventsForTest();

  const faux = registerFauxModel({
    provider: `replay-${process.pid}-${Date.now()}`,
    contextWindow: window,
    maxTokens: 8192,
    enforceWindow: true,
  });
  const authStorage = AuthStorage.inMemory();
  authStorage.setRuntimeApiKey(faux.provider, "replay-key");

  const trimConfig = opts.smartTrim === undefined ? {} : { smartTrim: opts.smartTrim, smartTrimReserveTokens: reserve };
  const cmConfig = {
    ...trimConfig,
    ...opts.contextManager,
    ...(opts.offload === undefined ? {} : { offload: opts.offload }),
    ...(opts.compaction === undefined ? {} : { compaction: opts.compaction }),
    ...(opts.peerExtension === undefined && !opts.hostAlone ? {} : PEER_RUN_CONFIG),
  };
  const peer = opts.peerExtension === undefined ? null : await loadPeerExtension(opts.peerExtension);
  const compactionMode = peer ? "peer" : opts.hostAlone ? "host-alone" : resolveContextManagerConfig(cmConfig).compaction;
  const costProbe = new CostProbe(opts.costTrace);
  // the recorded idle gaps, lived again for the prompt-cache policy (replay-clock.ts)
  const clock = new ReplayClock();
  const recordedAt = (index: number): number | undefined => {
    const ts = t.messages[index]?.timestamp;
    return typeof ts === "number" ? ts : undefined;
  };
  const breakdownProbe = new BreakdownProbe();
  const trimProbe = new TrimProbe(resolveContextManagerConfig(cmConfig).smartTrim);
  const resolved = resolveContextManagerConfig(cmConfig);
  // the age aging runs at under the rules the manager runs assume (the faux model is no Claude: "auto" is not anthropic)
  const ageTurns = agingAgeUnder(cacheRulesFor(resolved, undefined), resolved);
  const offload = offloadProbe(t.results, t.messages, { ...offloadSettings(resolved), ageTurns }, fetchToolPromptTokens());
  const warnings: string[] = [];
  const errors: string[] = [];
  const delivered: ToolDelivery[] = [];
  let missingToolResults = 0;
  let chatRequests = 0;
  let summarizerRequests = 0;
  let summarizerInputTokens = 0;
  let syntheticReplies = 0;
  let skippedReplies = 0;
  let maxMessages = 0;
  let queue: Array<{ reply: AssistantMessage; index: number }> = [];
  // transcript messages replayed so far: user message in context, replies served, results delivered
  let replayedUpTo = 0;
  let currentUserIndex = -1;
  const advance = (index: number) => {
    replayedUpTo = Math.max(replayedUpTo, index + 1);
  };
  const replayedAtCompact: number[] = [];
  /** checkpoint id -> transcript messages replayed when it was written */
  const replayedAtCheckpoint = new Map<string, number>();

  // handler timing
  const contextSamples: HandlerSample[] = [];
  const savingSamples = new Set<HandlerSample>();
  const autoWriteMs: number[] = [];
  const compactionWriteMs: number[] = [];
  let compactStartedAt: number | null = null;
  let deliveredAtCompact: number[] = [];
  let messagesAtCompact: number[] = [];
  let lastContextMessages = 0;
  // the user request the agent had last seen: a compaction checked before prompt() runs
  // before the new user message joins the history, so that one cannot be in its checkpoint
  let currentUser = "";
  let lastUserSeen = "";
  const userAtCompact: string[] = [];

  // checkpoints, read as soon as they appear (retention prunes old ones)
  const cpDir = checkpointSessionDir(stateDir, SESSION_KEY);
  const checkpoints = new Map<string, { record: CheckpointRecord; cp: Checkpoint }>();
  const pendingCompactionWrites: number[] = [];
  const scanCheckpoints = (autoMs: number | null) => {
    let names: string[] = [];
    try {
      names = readdirSync(cpDir).filter((f) => /^cp_\d+\.yaml$/.test(f));
    } catch {
      return;
    }
    names.sort((a, b) => Number(a.slice(3, -5)) - Number(b.slice(3, -5)));
    for (const f of names) {
      const id = f.slice(0, -5);
      if (checkpoints.has(id)) continue;
      try {
        const text = readFileSync(join(cpDir, f), "utf8");
        const cp = parseCheckpoint(text, f);
        const writeMs = cp.meta.trigger === "compaction" ? (pendingCompactionWrites.shift() ?? null) : autoMs;
        checkpoints.set(id, { record: { id, trigger: cp.meta.trigger, tokens: estimateTextTokens(text), chars: text.length, writeMs }, cp });
      } catch (e) {
        errors.push(`checkpoint ${f}: ${(e as Error).message}`);
      }
    }
  };

  const visible = new VisibleAfterCompaction();
  faux.setResponder((context) => {
    if (isSummarizerRequest(context)) {
      summarizerRequests++;
      summarizerInputTokens += promptTokens(context);
      costProbe.onSummarizerRequest(promptTokens(context), Math.ceil(SUMMARY.length / 4));
      if (compactStartedAt !== null) {
        const ms = performance.now() - compactStartedAt;
        compactionWriteMs.push(ms);
        pendingCompactionWrites.push(ms);
        compactStartedAt = null;
      }
      return fauxAssistantMessage(SUMMARY);
    }
    chatRequests++;
    visible.onChatRequest(context);
    offload.onChatRequest(context);
    breakdownProbe.onChatRequest(context);
    trimProbe.onRequest(context.messages);
    const next = queue.shift();
    // the recorded reply's timestamp: when the recorded request was answered, on the transcript's clock
    const at = next ? t.messages[next.index]?.timestamp : undefined;
    costProbe.onChatRequest(context, typeof at === "number" ? at : undefined, next ? replyOutputTokens(next.reply) : 0);
    if (next) {
      advance(next.index);
      return structuredClone(next.reply);
    }
    syntheticReplies++;
    return fauxAssistantMessage("(replay: no recorded reply for this request)");
  });

  const timedEvents = new Set(["context", "session_before_compact"]);
  const wrap = (f: Parameters<typeof timedFactory>[0]) =>
    timedFactory(
      f,
      timedEvents,
      (event) => {
        if (event === "session_before_compact") {
          trimProbe.onCompaction();
          compactStartedAt = performance.now();
          deliveredAtCompact.push(delivered.length);
          messagesAtCompact.push(lastContextMessages);
          userAtCompact.push(lastUserSeen);
          replayedAtCompact.push(replayedUpTo);
        }
      },
      (s) => {
        if (s.event === "session_before_compact") {
          // the compaction checkpoint was just written: remember how far the replay had got
          // (only the file names: parsing them here would take the write latency the summarizer request records)
          let names: string[] = [];
          try {
            names = readdirSync(cpDir).filter((f) => /^cp_\d+\.yaml$/.test(f));
          } catch {
            names = [];
          }
          for (const f of names) {
            const id = f.slice(0, -5);
            if (!replayedAtCheckpoint.has(id)) replayedAtCheckpoint.set(id, replayedUpTo);
          }
          return;
        }
        if (s.event !== "context") return;
        const given = (s.input as { messages?: AgentMessage[] } | undefined)?.messages;
        const returned = (s.result as { messages?: AgentMessage[] } | undefined)?.messages;
        // only the context manager's handler returns messages (the replay's observers return none)
        if (given && returned) trimProbe.onContext(given, returned, lastUserSeen === currentUser ? segIndex + 1 : segIndex);
        lastContextMessages = s.messages;
        lastUserSeen = currentUser;
        advance(currentUserIndex);
        maxMessages = Math.max(maxMessages, s.messages);
        contextSamples.push(s);
        const msgs = (s.result as { messages?: Array<{ role: string; customType?: string; content?: unknown }> } | undefined)?.messages;
        const gauge = msgs?.at(-1);
        const saved = gauge?.role === "custom" && gauge.customType === GAUGE_CUSTOM_TYPE && String(gauge.content).includes("Checkpoint saved");
        if (saved) {
          autoWriteMs.push(s.ms);
          savingSamples.add(s);
        }
        scanCheckpoints(saved ? s.ms : null);
      },
    );

  // archive recall: what each compaction summarized and kept, and where the replay was
  const observed: ObservedCompaction[] = [];
  const observedContexts = new Map<number, ObservedContext>();
  let segIndex = 0;
  let recall: RecallReport | null = null;
  let trim: TrimReport | null = null;
  let knowledge: KnowledgeReport | null = null;
  const knowledgeTimeline = new KnowledgeTimeline(knowledgeFile(stateDir, SESSION_KEY));

  const events: RunnerEvent[] = [];
  const runner = new AgentRunner({
    stateDir,
    workspaceDir: workspace,
    model: faux.model,
    authStorage,
    // a peer run is pi alone with the peer: no safeguard (it would summarize first, and pi keeps the last result)
    cfg: { agents: { defaults: { contextManager: cmConfig, ...(peer || opts.hostAlone ? { compaction: { mode: "default" as const } } : {}) } } },
    compaction: { enabled: true, reserveTokens: reserve, keepRecentTokens: keepRecent },
    // the peer's own tools are active as in a session it was installed in (pi-vcc: vcc_recall)
    tools: peer ? [...t.toolNames, ...peer.toolNames] : t.toolNames,
    extraExtensionFactories: [
      fauxUsageFixExtension(faux.registration.api),
      breakdownProbe.extension(),
      recallObserver(() => (lastUserSeen === currentUser ? segIndex + 1 : segIndex), observed, observedContexts, stateDir),
      replayToolsExtension(t.toolNames, t.results, {
        onDelivered: async (d) => {
          delivered.push(d);
          advance(d.result.index);
          if (clock.reach(recordedAt(d.result.index))) await ReplayClock.settle();
        },
        onMissing: () => missingToolResults++,
      }),
      ...(peer ? [peer.factory] : []),
    ],
    wrapExtensionFactory: wrap,
    logger: { warn: (m) => warnings.push(m) },
    onEvent: (e) => {
      if (e.type !== "session_event") events.push(e);
      else visible.onSessionEvent(e.event);
    },
    systemPrompt: "You are a coding agent. (transcript replay)",
  });

  const compactions: CompactionRecord[] = [];
  /** per compaction record: transcript messages replayed when it happened */
  const visibleAt: number[] = [];
  const started = performance.now();
  const recordCompactions = (final: boolean) => {
    scanCheckpoints(null);
    const batch = events.splice(0);
    // A compaction attempt that produced no compaction event (pi gave up or retried) left its
    // entries in the queues: pair this turn's compactions with the latest entries.
    const n = batch.filter((e) => e.type === "compaction").length;
    for (const q of [deliveredAtCompact, messagesAtCompact, userAtCompact, replayedAtCompact] as unknown[][]) {
      if (q.length > n) q.splice(0, q.length - n);
    }
    for (const e of batch) {
      if (e.type !== "compaction") continue;
      const at = deliveredAtCompact.shift() ?? delivered.length;
      const messagesBefore = messagesAtCompact.shift() ?? 0;
      const lastUser = userAtCompact.shift() ?? lastUserSeen;
      const queued = replayedAtCompact.shift() ?? replayedUpTo;
      const restoreText = e.restore?.text ?? null;
      const cpId = e.restore?.checkpoint.meta.checkpoint_id ?? null;
      // the block renders this checkpoint: ground truth is taken where it was written
      const deliveredMessages = (cpId && replayedAtCheckpoint.get(cpId)) || queued;
      const cp = (cpId && checkpoints.get(cpId)?.cp) || e.restore?.checkpoint || null;
      compactions.push({
        trigger: e.trigger,
        final,
        tokensBefore: e.tokensBefore,
        tokensAfter: e.tokensAfter,
        messagesBefore,
        checkpointId: cpId,
        restoreTokens: e.restore?.tokens ?? null,
        restoreDelivered: false,
        lastUserRequest: lastUser,
        lastUserInRestore: e.restore ? restoreMentions(e.restore.text, lastUser) : null,
        restoreText,
        deliveredMessages,
        // checkpoint and peer modes: the summary is the restore; its fidelity is measured the same way
        fidelityV2: restoreText !== null ? fidelityV2(t.messages, deliveredMessages, restoreText) : compactionMode !== "host" ? fidelityV2(t.messages, queued, e.summaryText) : null,
        summaryText: e.summaryText,
        // filled in after the run: the request that shows it may come in a later segment
        visibleAfter: null,
        compactionMs: e.compactionMs,
        fidelity: cp ? checkpointFidelity(groundTruth(delivered.slice(0, at), workspace), cp, runner.contextManagerConfig) : null,
      });
      visibleAt.push(queued);
    }
  };

  try {
    for (const [i, seg] of t.segments.entries()) {
      segIndex = i;
      queue = seg.replies.map((reply, k) => ({ reply, index: seg.replyIndexes[k]! }));
      currentUser = seg.text;
      currentUserIndex = seg.userIndex;
      try {
        await knowledgeTimeline.mark(i);
        if (clock.reach(recordedAt(seg.userIndex))) await ReplayClock.settle();
        const report = await runner.handleInbound(SESSION_KEY, seg.text);
        if (report.prompt?.includes(RESTORE_HEADER_POST_COMPACTION)) {
          const waiting = compactions.find((c) => c.restoreTokens !== null && !c.restoreDelivered);
          if (waiting) waiting.restoreDelivered = true;
        }
      } catch (e) {
        errors.push(`segment ${i}: ${(e as Error).message}`);
      }
      skippedReplies += queue.length;
      queue = [];
      // a "checkpoint" compaction's checkpoint and span are written after it returned
      await spanArchivesSettled();
      recordCompactions(false);
      opts.onProgress?.(i + 1, t.segments.length);
    }
    if (opts.finalCompact ?? true) {
      await runner.handleInbound(SESSION_KEY, "/compact");
      await spanArchivesSettled();
      recordCompactions(true);
    }
    compactions.forEach((c, i) => (c.visibleAfter = visibleFidelity(t.messages, visibleAt[i]!, visible.take(i))));
    // recall, knowledge and trim measure our archive: a peer or host-alone run has none
    if (!peer && !opts.hostAlone) {
      try {
        const file = join(archiveDir(stateDir, SESSION_KEY), "segments.jsonl");
        recall = await measureRecall(file, observed, t.segments.map((s) => s.text), runner.contextManagerConfig, window, observedContexts);
      } catch (e) {
        errors.push(`recall: ${(e as Error).message}`);
      }
      try {
        await knowledgeSettled();
        // recall.ts keeps the first 160 chars of a query: the full request is searched
        const full = new Map(t.segments.map((s) => [s.text.slice(0, 160), s.text]));
        const archiveFile = join(archiveDir(stateDir, SESSION_KEY), "segments.jsonl");
        const capTokens = recallCapTokens(runner.contextManagerConfig, window);
        knowledge = await measureKnowledge(knowledgeFile(stateDir, SESSION_KEY), recall, full, knowledgeTimeline, { archiveFile, capTokens });
      } catch (e) {
        errors.push(`knowledge: ${(e as Error).message}`);
      }
      try {
        trim = await trimProbe.report(join(archiveDir(stateDir, SESSION_KEY), "segments.jsonl"), t.segments.map((s) => s.text));
      } catch (e) {
        errors.push(`trim: ${(e as Error).message}`);
      }
    }
  } finally {
    clock.dispose();
    faux.unregister();
    if (!opts.keepDir) rmSync(root, { recursive: true, force: true });
  }

  const durationMs = performance.now() - started;
  const finalCp = [...compactions].reverse().find((c) => c.fidelity);
  const cpRecords = [...checkpoints.values()].map((c) => c.record);
  const restoreTokens = compactions.flatMap((c) => (c.restoreTokens === null ? [] : [c.restoreTokens]));
  const plain = contextSamples.filter((s) => !savingSamples.has(s));
  return {
    transcript: t.name,
    contextWindow: window,
    reserveTokens: reserve,
    keepRecentTokens: keepRecent,
    durationMs: Math.round(durationMs),
    recorded: {
      messages: t.messages.length,
      segments: t.segments.length,
      replies: t.segments.reduce((n, s) => n + s.replies.length, 0),
      toolResults: t.resultCount,
      orphanToolCalls: t.orphanToolCalls,
    },
    replay: {
      chatRequests,
      summarizerRequests,
      summarizerInputTokens,
      syntheticReplies,
      skippedReplies,
      overflowRejections: faux.overflowRejections,
      toolResultsDelivered: delivered.length,
      missingToolResults,
      maxMessagesInContext: maxMessages,
    },
    handler: {
      ...latencyStats(plain.map((s) => s.ms)),
      byMessages: MESSAGE_BUCKETS.map((b) => ({
        messages: bucketLabel(b),
        ...latencyStats(plain.filter((s) => s.messages >= b[0] && s.messages < b[1]).map((s) => s.ms)),
      })).filter((b) => b.n > 0),
    },
    handlerWithCheckpoint: latencyStats(autoWriteMs),
    checkpoints: cpRecords,
    checkpointWrite: { auto: latencyStats(autoWriteMs), compaction: latencyStats(compactionWriteMs) },
    compactions,
    restore: { blocks: restoreTokens.length, delivered: compactions.filter((c) => c.restoreDelivered).length, tokens: latencyStats(restoreTokens) },
    fidelity: finalCp?.fidelity ?? null,
    recall,
    trim,
    knowledge,
    breakdown: breakdownProbe.result(),
    inputTokensTotal: offload.inputTokensTotal,
    inputTokensWithSummarizer: offload.inputTokensTotal + summarizerInputTokens,
    compactionMode,
    ...(peer ? { peerExtension: peer.path } : {}),
    cost: costProbe.report(),
    compactionCount: compactions.filter((c) => !c.final).length,
    offload: offload.report(),
    warnings,
    errors,
  };
}
