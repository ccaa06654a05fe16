import { cutHead } from "./cut.js";
import { asText, gist } from "./gist.js";
import { redactSecrets } from "./redact.js";

/**
 * Redact the raw text first (a bounded window cut between tokens: cheap on huge tool output,
 * and no secret is cut in half), then gist; redact again after the gist's normalization (it
 * removes invisible characters that could have split a token), then cut to `maxChars`.
 */
export function safeGist(text: string, maxChars: number): string {
  if (typeof text !== "string") text = asText(text);
  if (!text) return "";
  const raw = redactSecrets(cutHead(text, maxChars * 16 + 4096));
  const first = gist(raw, maxChars * 4 + 256);
  const redacted = redactSecrets(first);
  // a gist within the budget is its own gist (no invisible character, no run of spaces, no
  // space at either end is left in it): when the redaction changed nothing, nothing is left to do
  if (redacted === first && first.length <= maxChars) return first;
  return gist(redacted, maxChars);
}
