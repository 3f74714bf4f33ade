#!/usr/bin/env bash
# Follows the README's Install section from a fresh clone of the repository:
# runs its go build and cp lines as written (with HOME in a temporary
# folder, so ~/.local/bin is one too), then checks that both binaries run
# from outside the repository, index the demo vault and query it, and that
# the shipped one loads the libkuzu.so beside it.
#
# usage: ci/install-check.sh   (from anywhere inside the repository)
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
git clone --quiet "$repo" "$tmp/src"

# The README's install lines, as written: the fenced sh blocks of the
# Install section, their go build and cp lines.
lines=$(awk '/^## Install/{s=1; next} /^## /{s=0} s && /^```sh/{b=1; next} s && /^```/{b=0} s && b' "$repo/README.md" |
  grep -E '^(go build|CGO_LDFLAGS=|cp )')
[ "$(echo "$lines" | wc -l)" -ge 3 ] || { echo "README Install section lost its build lines:"; echo "$lines"; exit 1; }
echo "$lines"
# Go keeps its caches where they are (a new HOME would move them).
export GOPATH="$(go env GOPATH)" GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)"
(cd "$tmp/src" && HOME="$tmp/home" bash -euo pipefail -c "mkdir -p ~/.local/bin dist; $lines")

installed="$tmp/home/.local/bin/vaultgraph"
shipped="$tmp/src/dist/vaultgraph"
# ldd's output is read whole first: with pipefail, grep -q stopping at the
# match could fail the pipeline when ldd then writes into a closed pipe.
libs=$(ldd "$shipped")
grep -qF "libkuzu.so => $tmp/src/dist/libkuzu.so" <<<"$libs" || {
  echo "the shipped binary does not load the libkuzu.so beside it:"; echo "$libs"; exit 1; }

cd "$tmp"   # outside the repository
for bin in "$installed" "$shipped"; do
  "$bin" --version
  data="$tmp/data-$(basename "$(dirname "$bin")")"
  "$bin" index --vault "$tmp/src/testdata/demo-vault" --data "$data" --quiet
  out=$("$bin" query --data "$data" --json 'MATCH (p:Person)-[c:contributes]->(x:Project) WHERE c.hours >= 100 RETURN p.title, c.hours, x.title')
  grep -q '"rows"' <<<"$out" || { echo "$bin query answered: $out"; exit 1; }
done
echo "install check: both binaries built as the README says index and query the demo vault"
