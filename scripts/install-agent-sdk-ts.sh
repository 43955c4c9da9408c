#!/usr/bin/env bash
# Installs the official TypeScript Claude Agent SDK from the npm registry into
# .agent-sdk-ts/ so tests/cli/test_agent_sdk_typescript.py can run SDK programs with node
# against loopwright's host mode. Optional packages (the bundled Claude Code binary) are
# left out: loopwright is the executable. Idempotent: a matching install exits at once.
# Usage: scripts/install-agent-sdk-ts.sh [target-dir]  (default: $LOOPWRIGHT_AGENT_SDK_TS_DIR
# or <repo>/.agent-sdk-ts)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${1:-${LOOPWRIGHT_AGENT_SDK_TS_DIR:-$repo_root/.agent-sdk-ts}}"
package="@anthropic-ai/claude-agent-sdk"
version="0.3.333"  # pinned: the protocol the host mirrors was read from this release

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "install-agent-sdk-ts: node and npm are required; run: apt-get install nodejs npm" >&2
  exit 1
fi
manifest="$target/node_modules/$package/package.json"
if [[ -f "$manifest" ]] && [[ "$(node -e 'process.stdout.write(require(process.argv[1]).version)' "$manifest")" == "$version" ]]; then
  echo "install-agent-sdk-ts: $package@$version already installed in $target"
  exit 0
fi
mkdir -p "$target"
echo "install-agent-sdk-ts: installing $package@$version into $target"
npm install --prefix "$target" --no-audit --no-fund --loglevel=error --omit=optional \
  "$package@$version" "zod@^4"
[[ -f "$manifest" ]] || { echo "install-agent-sdk-ts: $package did not install; see npm's output above" >&2; exit 1; }
echo "install-agent-sdk-ts: done"
