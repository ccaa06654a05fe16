/** The classes `redactSecrets` emits (docs/security.md says what each catches) and the marker no pass matches again. */
export const SECRET_CLASSES = [
  "private_key", "url_password", "bearer", "basic_auth", "authorization", "anthropic", "openai", "stripe",
  "github", "slack", "slack_webhook", "gitlab", "huggingface", "npm", "google", "aws_access_key", "aws_secret",
  "token", "secret", "password", "jwt", "hex", "secretlint", "base64",
] as const;

export type SecretClass = (typeof SECRET_CLASSES)[number];

export const MARKER_PREFIX = "[REDACTED:";
export const marker = (cls: SecretClass): string => `${MARKER_PREFIX}${cls}]`;
export const isMarker = (s: string): boolean => s.startsWith(MARKER_PREFIX);

export type Replacer = (text: string) => string;
