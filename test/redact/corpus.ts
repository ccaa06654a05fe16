/**
 * Labelled redaction corpus: text with a secret that must go (the `secret` part may not
 * survive in any form, not even 8 characters of it), and look-alikes that must stay byte for
 * byte. Written by hand for this package, not produced by the redactor. Fake credentials are
 * assembled at runtime so no literal in the repo looks like a real key.
 *
 * `gap: true` marks secrets known NOT to be caught (docs/security.md, "Known redaction
 * gaps"); they stay in the corpus so the reported detection rate is honest.
 */
const j = (...p: string[]): string => p.join("");

export interface SecretCase {
  text: string;
  secret: string;
  gap?: boolean;
}

const PW = j("Hunter2", "Secr3tPw");
const TOK = j("Zq8Lm2Nx7Pv4Rt1K", "s9Jd3Hf6Gb0Wc5Ya2Eu");

export const SECRET_CASES: SecretCase[] = [
  // URL credentials, raw and after path normalization (one slash)
  { text: `read https://deploy:${PW}@git.example.com/repo.git`, secret: PW },
  { text: `ENOENT: no such file or directory, open '/work/https:/deploy:${PW}@host/x'`, secret: PW },
  { text: `postgres://app:${PW}@db.internal:5432/prod`, secret: PW },
  { text: `redis://:${PW}@cache:6379/0`, secret: PW },
  // key=value and friends
  { text: `DB_PASS=${PW}`, secret: PW },
  { text: `export MYSQL_PWD=${PW}`, secret: PW },
  { text: `PGPASSWORD=${PW} psql -h db`, secret: PW },
  { text: `PGPASS=${PW}`, secret: PW },
  { text: `PASSPHRASE=${PW}`, secret: PW },
  { text: `{"pass": "${PW}"}`, secret: PW },
  { text: `{"password":"${PW}","user":"ci"}`, secret: PW },
  { text: `dbPass: ${PW}`, secret: PW },
  { text: `password: ${PW}`, secret: PW },
  { text: `client_secret = "${PW}"`, secret: PW },
  { text: `GITHUB_TOKEN=${TOK}`, secret: TOK },
  { text: `api_key: '${PW}'`, secret: PW },
  { text: `secret: ${PW} # rotate monthly`, secret: PW },
  { text: `//registry.npmjs.org/:_authToken=${TOK}`, secret: TOK },
  // command lines
  { text: `psql --password ${PW} -h db`, secret: PW },
  { text: `tool --api-key ${TOK} run`, secret: TOK },
  { text: `vault login --token "${TOK}"`, secret: TOK },
  { text: `mysql -u root -p${PW} prod`, secret: PW },
  { text: `mysqldump -h db -uroot -p'${PW}' shop > dump.sql`, secret: PW },
  { text: `sshpass -p ${PW} ssh deploy@host`, secret: PW },
  { text: `sshpass -p'${PW}' scp a b`, secret: PW },
  // provider formats
  { text: `key ${j("sk-", "proj-", "Hx81Kq2LmZ7rT0pWv3Ny5Bc9")}`, secret: j("Hx81Kq2LmZ7rT0pWv3Ny5Bc9") },
  { text: `key ${j("sk-", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0Ed")}`, secret: j("Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0Ed") },
  { text: `x ${j("sk-", "ant-", "api03-Qm7Zt2Xy9Lp4Vb8Nc1Rd6Hf3")}`, secret: j("Qm7Zt2Xy9Lp4Vb8Nc1Rd6Hf3") },
  { text: `gh ${j("ghp_", TOK)}`, secret: TOK },
  { text: `gitlab ${j("glpat-", "xR7vK2mQ9pL4wN8sT1zY")}`, secret: j("xR7vK2mQ9pL4wN8sT1zY") },
  { text: `deploy ${j("gldt-", "Ab3Cd5Ef7Gh9Jk1Lm2Np")}`, secret: j("Ab3Cd5Ef7Gh9Jk1Lm2Np") },
  { text: `hf ${j("hf_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789")}`, secret: j("aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789") },
  { text: `npm ${j("npm_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")}`, secret: j("a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8") },
  {
    text: `curl -X POST ${j("https://hooks.slack.com/services/", "T0AB12CD3/B0EF45GH6/", "q8Lm2Nx7Pv4Rt1Ks9Jd3Hf6G")}`,
    secret: j("T0AB12CD3/B0EF45GH6/", "q8Lm2Nx7Pv4Rt1Ks9Jd3Hf6G"),
  },
  {
    text: `${j("https://discord.com/api/webhooks/", "112233445566778899/", "Zq8Lm2Nx7Pv4Rt1Ks9Jd3Hf6Gb0Wc5Ya2Eu")}`,
    secret: j("Zq8Lm2Nx7Pv4Rt1Ks9Jd3Hf6Gb0Wc5Ya2Eu"),
  },
  { text: `slack ${j("xoxb-", "730194528361-5520981736402-Tq9Wm3Xz7Lp2")}`, secret: j("5520981736402-Tq9Wm3Xz7Lp2") },
  { text: `aws ${j("AKIA", "ZX3Q7PL0MN4RT8VW")}`, secret: j("ZX3Q7PL0MN4RT8VW") },
  { text: `google ${j("AIza", "SyA1234567890abcdefghijklmnopqrstu")}`, secret: j("SyA1234567890abcdefghijklmnopqrstu") },
  { text: `stripe ${j("sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc")}`, secret: j("4eC39HqLyjWDarjtT1zdp7dc") },
  { text: `Authorization: Bearer ${TOK}`, secret: TOK },
  {
    text: `jwt ${j("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".eyJzdWIiOiIxMjM0NTY3ODkwIn0", ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV")}`,
    secret: "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV",
  },
  // a hex run is a secret by the key before it (issue 28): a bare one is a SHA or a digest (see BENIGN_CASES)
  { text: `signing_key: ${j("9f8e7d6c5b4a39281706f5e4", "d3c2b1a0ffeeddccbbaa9988")}`, secret: j("9f8e7d6c5b4a39281706f5e4", "d3c2b1a0ffeeddccbbaa9988") },
  { text: `-----BEGIN OPENSSH PRIVATE KEY-----\n${TOK}\n-----END OPENSSH PRIVATE KEY-----`, secret: TOK },
  // known gaps (documented): no recognisable shape
  { text: `the new one is ${PW}, don't share it`, secret: PW, gap: true },
  { text: `ssh deploy@host  # pw ${PW}`, secret: PW, gap: true },
];

export const BENIGN_CASES: string[] = [
  "pip install scikit-learn; see sk-learn-pipeline-2024 for the config",
  "const password = req.body.password;",
  "const token = process.env.GITHUB_TOKEN;",
  "the secret: keep functions small",
  "Secret: nobody reads the docs",
  "password: string;",
  "interface Login { password: string; remember: boolean }",
  "max_tokens: 4096",
  "tokens: 12",
  "compass=north",
  "bypass: enabled for admins",
  "passport: optional field",
  "token = getToken()",
  "if (password === undefined) throw new Error('missing')",
  "password=null",
  "mysql -u root -p prod",
  "mysql -P 3306 -h db",
  "docker login --password-stdin",
  "git commit -m 'fix: token refresh' --no-verify",
  "psql --password -h db",
  "https://example.com/path/to/page?x=1",
  "http://localhost:8080/api/v1/users",
  "git@github.com:owner/repo.git",
  "ssh deploy@host.example.com",
  "/home/user/project/src/index.ts",
  "src/agents/context-capture.ts:42:7",
  "C:\\Users\\dev\\project\\README.md",
  "550e8400-e29b-41d4-a716-446655440000",
  "commit 3f2a9c1 fixed the build",
  `sha ${j("9f8e7d6c5b4a39281706f5e4", "d3c2b1a0ffeeddccbbaa9988")}`,
  `git checkout ${j("43ea05d2c727115b3976", "e879a1e48624bdbfc938")}`,
  "npm install --save-dev typescript",
  "sk-learn",
  "task-runner-for-ci-2024",
  "use the hf_hub_download helper",
  "npm_config_cache is set in .npmrc",
  "gl-matrix and glpat are unrelated words",
  "Bearer token auth is configured in the gateway",
  "Authorization header missing",
  "read the PASSWORD section of the manual",
  "const apiKey = config.apiKey;",
  "let secret = vault.read(path);",
  "passwordless login via magic link",
  "the token bucket refills at 10 tokens per second",
  "sshpass is not installed",
  "mysqldump --single-transaction shop > dump.sql",
  "hooks.slack.com is the Slack webhook host",
  "SELECT * FROM users WHERE password_hash IS NULL",
  "camelCaseIdentifierThatIsRatherLongButNotRandomAtAll",
  "2024-11-23T17:45:47.000Z",
  "Error: EACCES: permission denied, open '/etc/shadow'",
  "the answer is 42 and the question is unknown",
];
