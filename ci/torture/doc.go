// Command torture is vaultgraph's torture suite: it builds the vaultgraph
// binary and attacks it as real processes, the way a crash, a bad disk, a
// hostile vault or an abusive client would:
//
//   - kill: `index` is killed with SIGKILL at random points of its runs
//     until -kills kills have landed mid-run;
//     after every kill no partial snapshot may be visible (every directory
//     named as a snapshot has a manifest and verifies in full), and the
//     next run must succeed, clean up and hold every note.
//   - corrupt: every file of a full snapshot (parquet tables, graph
//     database, vectors, HNSW graphs, BM25 index, manifest.json) is
//     damaged in a copy published as the newest snapshot (a flipped byte,
//     a truncation, a deletion); `snapshot verify` must refuse each, and a
//     running server with default options must refuse to swap to it and
//     keep answering from the snapshot it serves.
//   - hostile: vaults made to hurt the indexer (20,000 inline-field keys in
//     one note, 20,000 frontmatter keys, huge notes, deep frontmatter
//     nesting, binary garbage named .md, symlink loops, control characters
//     and invalid UTF-8 in names, a note linking to itself 100,000 times,
//     ...) must index, be queryable, and come out byte for byte unchanged.
//   - requests: a running server gets abusive requests (nested parameters,
//     huge bodies and headers, slowloris connections, thousands of
//     concurrent connections, bad UTF-8, path traversal in note paths and
//     vault:// resources, malformed and smuggled requests); each must get
//     a clear answer or a closed connection, never a crash, and the server
//     must answer normally afterwards.
//
// Every case has a generous deadline: one that passes it is reported as a
// hang, never judged on speed. The suite prints a table (cases, passed,
// failed, hangs per group) and exits 1 if any case failed or hung, or the
// vaults it indexes and serves changed. Run it with `just torture` or
//
//	go run ./ci/torture [-only kill,corrupt,hostile,requests] [-kills 20] [-keep]
//
// It writes only below a temporary directory (kept with -keep).
package main
