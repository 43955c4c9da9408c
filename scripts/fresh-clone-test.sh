#!/usr/bin/env bash
# `make test` as a newcomer without bubblewrap gets it: a fresh clone of the committed HEAD,
# a PATH from which `bwrap` is hidden, nothing installed by hand. Passes only when the run is
# green AND the sandbox tests were reported as skipped with the install hint.
#
# Usage: scripts/fresh-clone-test.sh            (bounded by FRESH_CLONE_TIMEOUT, default 40 min)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/loopwright-fresh-clone.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# Under root the PostgreSQL tests run initdb as the postgres user, through the PATH below:
# it must be able to enter this directory.
chmod 755 "$work"

git clone --quiet --no-hardlinks "$repo" "$work/repo"

# A PATH that mirrors the current one as symlinks, minus bwrap: the machine keeps
# bubblewrap installed for everything else while this run cannot find it.
bin="$work/bin"
mkdir "$bin"
IFS=: read -ra path_dirs <<< "$PATH"
for dir in "${path_dirs[@]}"; do
    [[ -d "$dir" ]] || continue
    for program in "$dir"/*; do
        name="${program##*/}"
        [[ "$name" == bwrap || -e "$bin/$name" || ! -x "$program" ]] && continue
        ln -s "$program" "$bin/$name"
    done
done

log="$work/make-test.log"
echo "fresh-clone-test: make test in $work/repo with bwrap hidden"
set +e
(
    cd "$work/repo"
    # Reuse the npm MCP servers already installed next to the original checkout, if any.
    if [[ -d "$repo/.mcp-servers" ]]; then
        export LOOPWRIGHT_MCP_SERVERS_DIR="$repo/.mcp-servers"
    fi
    env -u LOOPWRIGHT_REQUIRE_SYSTEM_DEPS PATH="$bin" PYTEST_ADDOPTS="-rs" \
        timeout "${FRESH_CLONE_TIMEOUT:-2400}" make test
) > "$log" 2>&1
status=$?
set -e
tail -n 40 "$log"

if [[ $status -ne 0 ]]; then
    echo "fresh-clone-test: FAILED: make test exited $status without bwrap (log above)" >&2
    exit 1
fi
skipped=$(grep -c "SKIPPED.*needs bwrap, which is not installed: apt-get install bubblewrap" "$log" || true)
if [[ $skipped -eq 0 ]]; then
    echo "fresh-clone-test: FAILED: no sandbox test was reported skipped for want of bwrap" >&2
    exit 1
fi
echo "fresh-clone-test: passed; sandbox tests skipped with the install hint ($skipped lines)"
