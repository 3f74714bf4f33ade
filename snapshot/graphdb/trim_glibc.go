//go:build linux && cgo

package graphdb

/*
#include <malloc.h>
*/
import "C"

// ReleaseMemory returns to the system the memory the graph engine freed
// but the C allocator keeps (glibc's malloc_trim). Kuzu allocates through
// malloc, on worker threads that each get an arena of their own, and
// glibc gives an arena's free pages back only from its top: after a
// server's heavy queries (sorts over every edge) and the close of a
// replaced snapshot's database, a 10,000-note vault's server held 74-88
// MiB of free C memory in its arenas, a fifth of its resident size.
// It walks every arena under that arena's lock (a few milliseconds), so
// callers run it after events that free much (a database closed, a
// collection under load), not per query. Safe for concurrent use.
func ReleaseMemory() { C.malloc_trim(0) }
