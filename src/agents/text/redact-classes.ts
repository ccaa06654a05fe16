/** The classes `redactSecrets` emits (for docs and `--help`) and the marker no pass matches again. */
export const SECRET_CLASSES = [
  { class: "private_key", description: "PEM private-key blocks (-----BEGIN … PRIVATE KEY----- … END), also truncated ones" },
  { class: "url_password", description: "password in a URL with user:password@ credentials (also `scheme:/` as a normalized path leaves it)" },
  { class: "bearer", description: "Authorization: Bearer <token> and a bare `Bearer <token>`" },
  { class: "basic_auth", description: "Authorization: Basic <base64>" },
  { class: "authorization", description: "any other Authorization header value" },
  { class: "anthropic", description: "Anthropic API keys (sk-ant-…)" },
  { class: "openai", description: "OpenAI-style keys (sk-…, sk-proj-…, sk-svcacct-…)" },
  { class: "stripe", description: "Stripe secret / restricted keys (sk_live_, rk_live_, sk_test_, rk_test_)" },
  { class: "github", description: "GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)" },
  { class: "slack", description: "Slack tokens (xox?- with any letter: xoxa-, xoxb-, xoxe-, xoxp-, xoxr-, xoxs- …; xapp-)" },
  { class: "slack_webhook", description: "Slack and Discord webhook URLs (the path after hooks.slack.com/ or /api/webhooks/)" },
  { class: "gitlab", description: "GitLab tokens (glpat-, glptt-, gldt-, glrt-, glft-, glimt-, glcbt-, glsoat-, gloas-, glagent-)" },
  { class: "huggingface", description: "Hugging Face tokens (hf_…)" },
  { class: "npm", description: "npm access tokens (npm_…)" },
  { class: "google", description: "Google API keys (AIza…)" },
  { class: "aws_access_key", description: "AWS access key ids (AKIA… / ASIA… + 16 upper-case alphanumerics)" },
  { class: "aws_secret", description: "AWS secret access keys after aws_secret_access_key" },
  {
    class: "token",
    description:
      "prefixed provider tokens with hex or short bodies: DigitalOcean (dop_v1_, doo_v1_, dor_v1_), RubyGems, Pulumi (pul-), Sentry (sntrys_, sntryu_), Twilio (SK…), Mailchimp (…-usN), Google OAuth client secrets (GOCSPX-), Postman (PMAK-), New Relic (NRAK-), Alibaba (LTAI…), age secret keys, Telegram bot tokens",
  },
  {
    class: "secret",
    description:
      "value of key=value, key: value or \"key\": \"value\" where the key ends in api_key, apikey, secret, secret_key, token, password, passwd, passphrase, pass, pwd, access_key, private_key, credential(s) or auth (`GOOGLE_CREDENTIALS=`, `REGISTRY_AUTH=`, `\"auth\": \"…\"`; the key is kept; `pass`/`pwd` only as a whole word: DB_PASS, dbPass, MYSQL_PWD, PGPASS, not compass)",
  },
  {
    class: "password",
    description: "command-line passwords: --password X (and --token, --secret, --passphrase, --api-key … X), mysql/mariadb -pX, sshpass -p X, curl -u user:X, netrc `machine h login u password X`",
  },
  { class: "jwt", description: "JSON Web Tokens (eyJ….….…)" },
  { class: "hex", description: "hex runs of 32+ characters that are the value of a key naming a credential (`\"private_key_id\": \"…\"`, `SIGNING_KEY=…`); other hex runs (git SHAs, digests) are kept" },
  {
    class: "secretlint",
    description:
      "anything the rules of secretlint's recommended preset report (@secretlint/secretlint-rule-preset-recommend: code hosts, clouds, model hubs, registries, SaaS tokens), run beside ours",
  },
  {
    class: "base64",
    description:
      "base64 / base64url runs of 40+ characters that look random (mixed case and digits), except digests (`sha512-…` integrity, `h1:…`, after hash/digest/checksum keys) and base64 that decodes to text",
  },
] as const;

export type SecretClass = (typeof SECRET_CLASSES)[number]["class"];

export const MARKER_PREFIX = "[REDACTED:";
export const marker = (cls: SecretClass): string => `${MARKER_PREFIX}${cls}]`;
export const isMarker = (s: string): boolean => s.startsWith(MARKER_PREFIX);

export type Replacer = (text: string) => string;
