#!/usr/bin/env bash
# `npm ci` for CI, on whichever Node.js is first on PATH, keeping better-sqlite3 12's
# compiled driver between runs. Only the npm registry is reachable here, so its prebuilt
# binaries never download and every install compiles SQLite from source, for each Node.js.
# What it compiles depends only on that Node.js and the package's own files, so the result
# is kept under a key made of both, and an install with the same key copies it back.
#
# Every other install script that package.json's allowScripts does not refuse runs as
# `npm ci` would run it. A kept driver that does not load (a changed machine) is compiled
# again. CI_CACHE_DIR moves the cache.
set -euo pipefail
cd "$(dirname "$0")/.."

cache_root="${CI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/todo-member-api-ci}"
package=better-sqlite3
binary="node_modules/$package/build/Release/better_sqlite3.node"

npm ci --no-audit --no-fund --ignore-scripts
# The packages with install scripts, as the lockfile lists them, but the driver and those
# that package.json's allowScripts refuses (as npm 12 would).
mapfile -t scripted < <(node scripts/install-scripts.mjs --except="$package")
[ "${#scripted[@]}" -eq 0 ] || npm rebuild --no-audit --no-fund "${scripted[@]}" >/dev/null

key="$(node -e '
  const { version, integrity } = require("./package-lock.json").packages["node_modules/'"$package"'"]
  console.log(process.platform, process.arch, process.version, version, integrity)' |
  sha256sum | cut -c1-16)"
kept="$cache_root/$package-$key.node"
loads() { node -e 'new (require(process.argv[1]))(":memory:").close()' "$PWD/node_modules/$package"; }

if [ -f "$kept" ]; then
  mkdir -p "$(dirname "$binary")"
  cp "$kept" "$binary"
  if loads 2>/dev/null; then
    echo "$package: the driver compiled for Node.js $(node --version) in an earlier run ($kept)"
    exit 0
  fi
  rm -f "$kept" "$binary"
fi
npm rebuild --no-audit --no-fund "$package" >/dev/null
loads
mkdir -p "$cache_root"
cp "$binary" "$kept.partial" && mv "$kept.partial" "$kept"
echo "$package: compiled for Node.js $(node --version), kept as $kept"
