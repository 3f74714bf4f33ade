# Everyday targets. `just` is optional: every recipe is a plain command you
# can run without it (install with `npm install -g rust-just`).

# Index the bundled demo vault and show what was built.
demo:
    go run ./cmd/vaultgraph demo

# The test command README and CI use.
test:
    go test ./...

# Everything a change must pass before it lands.
check:
    test -z "$(gofmt -l $(git ls-files '*.go'))" || (gofmt -l $(git ls-files '*.go'); exit 1)
    go vet ./...
    go mod tidy -diff
    go test -race ./...

# Benchmarks behind the README's performance figures.
bench:
    go test -run '^$' -bench . -benchmem -benchtime 3x ./indexer/

# Regenerate golden files after an intended change; review the diff.
golden:
    go test ./indexer/ -update

# Fuzz the note parser for a minute.
fuzz:
    go test -run '^$' -fuzz FuzzParse -fuzztime 60s ./indexer/note/

# Build the binary with its version stamped.
build:
    go build -ldflags "-X main.version=$(git describe --tags --always --dirty)" -o vaultgraph ./cmd/vaultgraph

# What CI runs on a fresh machine.
ci:
    bash .ci/run
