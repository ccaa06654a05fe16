/**
 * How long each captured string may be (code points), and the two lengths the capture's
 * decision and long-answer rules compare against (spec §7.2, §11.2).
 */
export const GIST = {
  // the restore block squeezes it (200, 100, 40… chars) only when the block is over its cap
  topic: 200,
  exchange: 120,
  error: 160,
  command: 120,
  params: 120,
  decisionProposal: 100,
  decisionReply: 60,
  item: 160,
  change: 110,
  name: 48,
  report: 200,
  /** issue 25: a request and the agent's last text of its turn, as the turn log keeps them */
  turnRequest: 300,
  turnOutcome: 500,
} as const;

/** A reply shorter than this (code points) after a long answer is a decision point (spec §7.2). */
export const DECISION_REPLY_MAX = 50;
/** An assistant answer longer than this (code points) is "long" (spec §11.2). */
export const LONG_ANSWER_MIN = 500;
