#!/usr/bin/env bash
# Rebuilds activity/client/discord-sdk.js from the pinned @discord/embedded-app-sdk (package-lock.json).
# Not needed to run the bot: the built file is committed.  Needs Node 20 + npm (the npm registry only).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
version=$(node -p 'require("@discord/embedded-app-sdk/package.json").version')
{
  echo "/* @discord/embedded-app-sdk ${version} (MIT), bundled by activity/sdk/build.sh with esbuild; do not edit. */"
  npx esbuild entry.js --bundle --minify --format=esm --target=es2020 --legal-comments=none --log-level=warning
} > ../client/discord-sdk.js
rm -rf node_modules
echo "activity/client/discord-sdk.js: @discord/embedded-app-sdk ${version}, $(wc -c < ../client/discord-sdk.js) bytes"
