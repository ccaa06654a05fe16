/**
 * secretlint's recommended preset beside our rules: its `file` handlers run synchronously on one string
 * (the engine is async and file-oriented); a rule that throws costs its coverage, never a capture.
 * PREFILTERS: a literal every match of a rule contains; a text without it skips the rule (the preset
 * was a quarter of a gateway's main thread). test/redact/secret-rules-prefilter.test.ts checks them.
 */
import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";

type Range = readonly [number, number];
interface RuleCreator {
  meta: { id: string };
  create(context: unknown, options: unknown): { file?: (source: unknown) => unknown };
}

/** What a text must contain for a rule to report in it: one of `cased`, or one of `lower` in the lower-cased text. */
type Guard = (text: string, lower: () => string) => boolean;
/** every guard's literal: one scan for all of them rules out most texts */
const LITERALS: string[] = [];
const any = (cased: string[], lower: string[] = []): Guard => {
  LITERALS.push(...cased, ...lower);
  return (t, low) => cased.some((x) => t.includes(x)) || (lower.length > 0 && lower.some((x) => low().includes(x)));
};
const BASIC_AUTH_URL = /(?:https?|ftps?):\/\/[-a-zA-Z0-9_]{1,256}:/;
const viaUrl = any(["://"]);

const PREFILTERS: Readonly<Record<string, Guard>> = {
  // access key ids, `(aws_)secret_access_key = …` (three casings), `account_id = …`
  "@secretlint/secretlint-rule-aws": any(
    ["A3T", "AKIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ASIA"],
    ["secretaccesskey", "secret_accesskey", "secretaccess_key", "secret_access_key", "account"],
  ),
  // a service-account JSON: the whole text parses as one object with private_key_id
  "@secretlint/secretlint-rule-gcp": any(["private_key_id"]),
  "@secretlint/secretlint-rule-npm": any(["x-oauth-basic", "_authToken=", "npm_"]),
  "@secretlint/secretlint-rule-slack": any(["xoxb-", "xoxp-", "xapp-", "xoxa-", "xoxo-", "xoxr-"], ["hooks.slack.com"]),
  "@secretlint/secretlint-rule-basicauth": (t, lower) => viaUrl(t, lower) && BASIC_AUTH_URL.test(t),
  "@secretlint/secretlint-rule-openai": any(["T3BlbkFJ"]),
  "@secretlint/secretlint-rule-anthropic": any(["sk-ant-api0"]),
  "@secretlint/secretlint-rule-groq": any(["gsk_"]),
  "@secretlint/secretlint-rule-huggingface": any(["hf_"]),
  "@secretlint/secretlint-rule-linear": any(["lin_api_"]),
  "@secretlint/secretlint-rule-notion": any(["ntn_"]),
  "@secretlint/secretlint-rule-privatekey": any(["PRIVATE KEY"]),
  "@secretlint/secretlint-rule-sendgrid": any(["SG."]),
  "@secretlint/secretlint-rule-shopify": any(["shppa_", "shpca_", "shpat_", "shpss_"]),
  "@secretlint/secretlint-rule-stripe": any(["sk_live_", "sk_test_", "rk_live_", "rk_test_"]),
  "@secretlint/secretlint-rule-github": any(["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]),
  "@secretlint/secretlint-rule-gitlab": any(["glpat-"]),
  "@secretlint/secretlint-rule-grafana": any(["glc_", "glsa_"]),
  "@secretlint/secretlint-rule-1password": any(["ops_ey"]),
  "@secretlint/secretlint-rule-database-connection-string": any([], ["mongodb", "mysql", "postgres"]),
  "@secretlint/secretlint-rule-hashicorp-vault": any(["hvs.", "hvb.", "hvr."]),
  "@secretlint/secretlint-rule-vercel": any(["vcp_", "vci_", "vca_", "vcr_", "vck_"]),
  "@secretlint/secretlint-rule-databricks": any(["dapi"]),
  "@secretlint/secretlint-rule-docker": any(["dckr_pat_"]),
  "@secretlint/secretlint-rule-figma": any(["figd_"]),
  "@secretlint/secretlint-rule-cloudflare": any(["cfk_", "cfut_", "cfat_"]),
  "@secretlint/secretlint-rule-tailscale": any(["tskey-"]),
};

/** Some guard's literal, in any case: without one no guarded rule runs. */
const ANY_LITERAL = new RegExp([...new Set(LITERALS.map((x) => x.toLowerCase()))].map((x) => x.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|"), "i");

/** Rules that are not about secrets in text (comment directives). */
const SKIPPED = new Set(["@secretlint/secretlint-rule-filter-comments"]);

/** What the rules report: built once, their handlers share it. */
const ranges: Range[] = [];
const context = {
  report: (d: { range?: Range }) => {
    if (d.range && d.range[1] > d.range[0]) ranges.push(d.range);
  },
  ignore: () => {},
  createTranslator: () => (id: string, data?: unknown) => ({ message: id, data }),
  registerRule: () => {},
};
let handlers: Array<{ run: (source: unknown) => unknown; guard: Guard | undefined }> | undefined;

function build(): NonNullable<typeof handlers> {
  const out: NonNullable<typeof handlers> = [];
  for (const rule of presetRules as unknown as RuleCreator[]) {
    if (SKIPPED.has(rule.meta.id)) continue;
    try {
      const h = rule.create(context, {});
      if (typeof h.file === "function") out.push({ run: h.file, guard: PREFILTERS[rule.meta.id] });
    } catch {
      // a rule that cannot be built costs its coverage only
    }
  }
  return out;
}

/** Character ranges of `text` the preset reports as secrets, sorted and merged; unguarded: no prefilter (tests). */
export function secretRuleRanges(text: string, guarded = true): Array<[number, number]> {
  ranges.length = 0;
  const source = { content: text, filePath: "captured.txt", ext: ".txt", contentType: "text" };
  let lowered: string | null = null;
  const lower = (): string => (lowered ??= text.toLowerCase());
  const someLiteral = ANY_LITERAL.test(text);
  for (const { run, guard } of (handlers ??= build())) {
    if (guarded && guard && !(someLiteral && guard(text, lower))) continue;
    try {
      const r = run(source);
      // no handler is async for a .txt source; a promise could only be a rejection to swallow
      if (r && typeof (r as Promise<unknown>).catch === "function") (r as Promise<unknown>).catch(() => {});
    } catch {}
  }
  const sorted = ranges.map(([a, b]) => [Math.max(0, a), Math.min(text.length, b)] as [number, number]).sort((x, y) => x[0] - y[0]);
  const merged: Array<[number, number]> = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push(r);
  }
  ranges.length = 0;
  return merged;
}
