#!/usr/bin/env bash
# Installs the official MCP reference servers from the npm registry into .mcp-servers/
# so the MCP tests can run them with node (no npx, no network at test time).
#
# Idempotent: when the pinned versions are already installed it exits in milliseconds.
# Usage: scripts/install-mcp-servers.sh [target-dir]   (default: <repo>/.mcp-servers)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${1:-${LOOPWRIGHT_MCP_SERVERS_DIR:-$repo_root/.mcp-servers}}"

# Pinned so test expectations (tool names, result shapes) do not drift under us.
packages=(
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-everything@2026.8.31"
)

installed_version() {
  # Prints the installed version of package $1, or nothing.
  local manifest="$target/node_modules/$1/package.json"
  [[ -f "$manifest" ]] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version)' "$manifest" 2>/dev/null || true
}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "install-mcp-servers: node and npm are required; install Node.js >= 18 and retry." >&2
  exit 1
fi

missing=()
for spec in "${packages[@]}"; do
  name="${spec%@*}"
  want="${spec##*@}"
  if [[ "$(installed_version "$name")" != "$want" ]]; then
    missing+=("$spec")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-mcp-servers: already installed in $target"
  exit 0
fi

mkdir -p "$target"
echo "install-mcp-servers: installing ${missing[*]} into $target"
npm install --prefix "$target" --no-audit --no-fund --loglevel=error "${missing[@]}"

for spec in "${packages[@]}"; do
  name="${spec%@*}"
  if [[ -z "$(installed_version "$name")" ]]; then
    echo "install-mcp-servers: $name did not install; check npm's output above." >&2
    exit 1
  fi
done
echo "install-mcp-servers: done"
