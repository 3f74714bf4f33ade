#!/usr/bin/env bash
# Index a vault checked into a repository on top of the last published
# snapshot, and write the Markdown diff to post on the change under review.
#
#   ci/snapshot-diff.sh VAULT OUT_DIR [BASE_ARCHIVE]
#
# VAULT         the vault's folder in the checkout
# OUT_DIR       receives:
#                 diff.md           the diff to post (Markdown)
#                 diff.json         the same diff for programs (absent on a first run)
#                 snapshot.tar.zst  the new snapshot, to publish once the change lands
#                 snapshot-id       its id
# BASE_ARCHIVE  the last published snapshot, as written by
#               `vaultgraph snapshot export`; missing or empty on a first run
#
# Environment:
#   VAULTGRAPH  the vaultgraph binary (default: vaultgraph on PATH)
#   FAIL_ON     conditions that fail the check, comma-separated:
#               removed-edges, new-unresolved, new-warnings, model-change,
#               changed-edges (an edge's properties changed)
#   INDEX_ARGS  extra flags for `vaultgraph index` (e.g. "--ignore Templates/")
#
# Exit status: 0, or 3 when a FAIL_ON condition holds (diff.md is written
# either way), anything else when the vault could not be indexed or diffed.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 VAULT OUT_DIR [BASE_ARCHIVE]" >&2
  exit 2
fi
vg=${VAULTGRAPH:-vaultgraph}
vault=$1
out=$2
base=${3:-}

mkdir -p "$out"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

# The base snapshot goes into a scratch data directory; indexing on top of
# it parses only the notes that changed.
base_id=
if [ -n "$base" ] && [ -s "$base" ]; then
  base_id=$("$vg" snapshot import --data "$data" "$base" | awk '/^imported /{print $2}')
fi

# shellcheck disable=SC2086 # INDEX_ARGS is split on purpose
"$vg" index --vault "$vault" --data "$data" --quiet ${INDEX_ARGS:-}
new_id=$("$vg" snapshot export --data "$data" -o "$out/snapshot.tar.zst" latest | awk '/^exported /{print $2}')
printf '%s\n' "$new_id" > "$out/snapshot-id"

if [ -z "$base_id" ]; then
  rm -f "$out/diff.json"
  {
    echo "### vaultgraph snapshot diff"
    echo
    echo "First snapshot \`$new_id\`: there is no published snapshot to compare with yet."
  } > "$out/diff.md"
  exit 0
fi

"$vg" snapshot diff --data "$data" --format json "$base_id" "$new_id" > "$out/diff.json"
status=0
"$vg" snapshot diff --data "$data" --format markdown ${FAIL_ON:+--fail-on "$FAIL_ON"} "$base_id" "$new_id" > "$out/diff.md" || status=$?
exit "$status"
