module github.com/vaultgraph/vaultgraph

go 1.26.8

require github.com/oklog/ulid/v2 v2.1.2
