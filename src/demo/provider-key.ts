/** The API key of a real provider from the environment (pi-ai's own variable names), or a clear error. */
import { getEnvApiKey } from "@mariozechner/pi-ai";
import { DemoModelError } from "./errors.js";

export function assertProviderKey(provider: string): string {
  const key = getEnvApiKey(provider);
  if (!key) throw new DemoModelError(`no API key for provider "${provider}" in the environment (set the provider's API key variable, e.g. ANTHROPIC_API_KEY)`);
  return key;
}
