# Everyday targets. `just` is optional: every recipe is a plain command you
# can run without it (install with `npm install -g rust-just`).

# Index the bundled demo vault and show what was built.
demo:
    go run ./cmd/vaultgraph demo

# The test command README and CI use.
test:
    go test -timeout 30m ./...

# Everything a change must pass before it lands.
check:
    test -z "$(gofmt -l $(git ls-files '*.go'))" || (gofmt -l $(git ls-files '*.go'); exit 1)
    go vet ./...
    go mod tidy -diff
    go test -race ./...

# Benchmarks behind the README's performance figures (the vector benchmarks
# at 100,000 vectors take several minutes; see README for each command).
bench:
    go test -run '^$' -bench 'Index|ReadVault' -benchmem -benchtime 3x ./indexer/
    go test -run '^$' -bench . -benchtime 10x ./snapshot/graphdb/
    go test -run '^$' -bench . -benchtime 2s ./snapshot/linkgraph/
    go test -run '^$' -bench Builtin -benchtime 3s ./snapshot/embed/

# The server under a real load generator (needs wrk: apt-get install wrk).
bench-serve:
    serve/bench/bench.sh /tmp/vaultgraph-bench

# The torture suite: kill -9 during index runs, a corruption table over
# every file of a snapshot, hostile vaults and abusive requests against a
# running server (ci/torture/doc.go; takes a few minutes, not part of test).
torture:
    go run ./ci/torture

# Regenerate golden files after an intended change; review the diff.
golden:
    go test ./indexer/ ./snapshot/graphdb/ -update

# Fuzz the parsers and decoders, a minute each.
fuzz:
    go test -run '^$' -fuzz FuzzParse -fuzztime 60s ./indexer/note/
    go test -run '^$' -fuzz FuzzParse -fuzztime 60s ./snapshot/cypher/
    go test -run '^$' -fuzz FuzzImport -fuzztime 60s ./snapshot/archive/

# Build the binary with its version stamped.
build:
    go build -ldflags "-X main.version=$(git describe --tags --always --dirty)" -o vaultgraph ./cmd/vaultgraph

# What CI runs on a fresh machine.
ci:
    bash .ci/run
