package graphdb

import (
	"fmt"
	"strings"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

// KindOutOfMemory is the kind of a query the engine stopped because its
// buffer pool could not hold what the query needed: the query is too
// large for the pool, or queries running at the same time (which share
// the pool) filled it. Unlike cypher.KindRuntime it says nothing against
// the query: the same query may succeed when retried, or with more
// memory (Options.BufferPoolSize).
const KindOutOfMemory cypher.Kind = "out_of_memory"

// outOfMemory lists, lower case, the parts of the messages with which Kuzu
// 0.11.3 reports exhausted memory: its buffer manager ("Buffer manager
// exception: Unable to allocate memory! The buffer pool is full and no
// memory could be freed!", "Buffer manager eager exception: ...") and a
// failed allocation outside it (std::bad_alloc, a failed mmap). RE2's
// "DFA out of memory" is not among them: that is a regular expression too
// large, which no retry fixes.
var outOfMemory = []string{
	"buffer manager",
	"buffer pool is full",
	"unable to allocate memory",
	"bad_alloc",
	"cannot allocate memory",
}

// engineError classifies an error the engine raised while running or
// reading a query: KindOutOfMemory when it ran out of memory, else
// KindRuntime with the engine's message in vault names. prefix, when not
// empty, says what was being done.
func (db *DB) engineError(err error, prefix string) *Error {
	msg := err.Error()
	lower := strings.ToLower(msg)
	for _, s := range outOfMemory {
		if strings.Contains(lower, s) {
			return &Error{Kind: KindOutOfMemory, Message: fmt.Sprintf(
				"the graph engine ran out of memory: its buffer pool of %d MiB, shared by the queries running at once, is full (%s). "+
					"Retry when fewer queries run, shorten variable-length patterns ([*1..3] rather than [*1..10]) or add a LIMIT, "+
					"or give the engine more memory.", db.opts.BufferPoolSize>>20, strings.TrimSpace(msg))}
		}
	}
	return &Error{Kind: cypher.KindRuntime, Message: prefix + db.names.messages.Replace(msg)}
}
