import { cutHead } from "./cut.js";
import { redactSecrets } from "./redact.js";

const JSON_MAX_DEPTH = 6;

/**
 * Compact JSON-like text of `value`, at most about `maxChars` long. Total: bounded depth
 * (deeper parts become "…"), cycles, getters that throw and huge strings cannot make it
 * throw or run long (JSON.stringify would throw RangeError on deep nesting and copy a
 * 10 MB argument whole). Every string (value or key) is redacted BEFORE it is quoted and cut:
 * quoting folds a newline into `\n`, gluing an `n` to the token after it (`\nghp_…` is no longer
 * recognisable), and a cut can split a token.
 */
export function boundedJson(value: unknown, maxChars: number): string {
  let out = "";
  const seen = new Set<object>();
  const emit = (s: string): boolean => {
    out += s.length > maxChars - out.length ? cutHead(s, Math.max(0, maxChars - out.length)) : s;
    return out.length < maxChars;
  };
  const walk = (v: unknown, depth: number): boolean => {
    if (typeof v === "string") return emit(JSON.stringify(redactSecrets(cutHead(v, maxChars))));
    if (typeof v === "number" || typeof v === "boolean") return emit(String(v));
    if (v === null || typeof v !== "object") return emit(v === null ? "null" : typeof v === "bigint" ? String(v) : "null");
    if (depth >= JSON_MAX_DEPTH || seen.has(v)) return emit("…");
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        if (!emit("[")) return false;
        for (let i = 0; i < v.length; i++) if ((i > 0 && !emit(",")) || !walk(v[i], depth + 1)) return false;
        return emit("]");
      }
      if (!emit("{")) return false;
      let first = true;
      for (const k of Object.keys(v)) {
        if ((!first && !emit(",")) || !emit(`${JSON.stringify(redactSecrets(cutHead(k, maxChars)))}:`) || !walk((v as Record<string, unknown>)[k], depth + 1)) return false;
        first = false;
      }
      return emit("}");
    } catch {
      return emit("…"); // a throwing getter or proxy
    } finally {
      seen.delete(v);
    }
  };
  walk(value, 0);
  return out;
}
