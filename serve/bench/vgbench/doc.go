// Command vgbench measures what a load generator cannot: how long
// vaultgraph serve takes to answer after it is started, and how long a
// published snapshot takes to be served. bench.sh drives it; it talks to
// the server over HTTP only and imports nothing of vaultgraph.
//
//	vgbench ready -url URL -since UNIX_NANOS
//	    waits until GET URL/health says ready and prints the milliseconds
//	    since UNIX_NANOS (taken just before the server was started).
//	vgbench swap -url URL -vault DIR -data DIR -bin VAULTGRAPH [-n 3]
//	    n times: writes a new note into the vault, runs vaultgraph index,
//	    and measures from the rename that published the snapshot (the
//	    snapshot directory's ctime) to the first /health answer naming it.
package main
