// Package doctor checks a vaultgraph installation end to end and says, for
// each part, what is fine or what to do next (vaultgraph doctor): the
// vault, the data directory (writable, room for another snapshot, who
// holds its lock), the newest snapshot (verified), the newest run's
// warnings and pending vectors, the recorded embedder (reachable, the same
// model and weights, how long one embedding takes), the timer or launchd
// agent written by vaultgraph schedule, a running server, and the line
// that connects Claude Code to the data directory.
//
// Doctor only reads: it never writes to a vault, a data directory or a
// repository, and it never takes the data directory's lock (a running
// indexer must not find it held): who holds it is read from /proc/locks.
// Every check runs even when an earlier one failed, so one run names every
// problem; a check whose input is missing says so instead of guessing.
//
// Run is safe for concurrent use with indexers and servers on the same
// data directory. The seams in Config (free space, the systemd and launchd
// command runner, the clock) exist for tests of conditions a test cannot
// make for real on every machine; they default to the real thing.
package doctor
