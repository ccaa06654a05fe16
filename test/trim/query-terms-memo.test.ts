/**
 * A query's terms read line by line with each line remembered (archive/query-terms.ts) are
 * exactly the query's own: identifierTerms(query) and queryTerms(query, MAX_QUERY_READ), the
 * same terms in the same order (their order breaks pickSpecificTerms's ties), whether its
 * lines were seen before or not: on every recall query of the long real sessions, and on
 * random multi-line text of identifiers, paths, CJK and punctuation, past the read cap too.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { recallQueryOf } from "../../src/agents/archive/recall-query.js";
import { identifierTerms, MAX_QUERY_READ, QueryTermsMemo, queryTerms } from "../../src/agents/archive/tokenize.js";
import { readTranscriptJson } from "../helpers/transcripts.js";

const FILES = ["badlogic__pi-mono__large-session.json", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.json"];

const direct = (q: string) => ({ ids: [...identifierTerms(q)], read: queryTerms(q, MAX_QUERY_READ) });
const viaMemo = (memo: QueryTermsMemo, q: string) => {
  const r = memo.of(q);
  return { ids: [...r.ids], read: r.read };
};

describe("QueryTermsMemo", () => {
  it("real sessions: every recall query's terms, in order, as read directly (lines remembered from earlier queries and requests)", () => {
    let checked = 0;
    for (const f of FILES) {
      const messages = readTranscriptJson<AgentMessage[]>(f);
      const memo = new QueryTermsMemo();
      for (let n = 2; n <= messages.length; n++) {
        const m = messages[n - 1]!;
        if (m.role !== "user") continue;
        const { query } = recallQueryOf(messages.slice(0, n));
        if (!query) continue;
        expect(viaMemo(memo, query)).toEqual(direct(query));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("random multi-line text: the same terms in the same order, seen before or not, past the read cap", () => {
    const word = fc.oneof(
      fc.constantFrom("parseCheckpointFile", "src/agents/redact.ts", "max_tokens", "v2", "foo.test.ts", "initTheme", "a/b/c", "README.md", "日本語テキスト", "x", "--flag", "1.2.0/skills", "HTTPResponse2x", "../up", "deadbeef12", "é", "path\\to\\file.js"),
      fc.stringMatching(/^[a-zA-Z0-9_./-]{1,12}$/),
    );
    const line = fc.array(word, { maxLength: 12 }).chain((ws) => fc.constantFrom(" ", "  ", ", ", "\t").map((sep) => ws.join(sep)));
    const text = fc.array(line, { minLength: 1, maxLength: 8 }).map((ls) => ls.join("\n"));
    const memo = new QueryTermsMemo();
    fc.assert(
      fc.property(text, fc.boolean(), (q, rememberFirst) => {
        if (rememberFirst) memo.remember(q.split("\n").slice(1).join("\n"));
        expect(viaMemo(memo, q)).toEqual(direct(q));
      }),
      { numRuns: 400 },
    );
    // more distinct terms than the read cap, over several lines
    const many = Array.from({ length: 6 }, (_, l) => Array.from({ length: 300 }, (_, i) => `w${l}x${i} term${l * 300 + i}`).join(" ")).join("\n");
    expect(direct(many).read.length).toBe(MAX_QUERY_READ);
    expect(viaMemo(new QueryTermsMemo(), many)).toEqual(direct(many));
    expect(viaMemo(memo, many)).toEqual(direct(many));
  });
});
