package graphdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

var (
	// ErrNoGraph is returned by Open for a snapshot built without the
	// graph stage.
	ErrNoGraph = errors.New("snapshot has no graph database")
	// ErrClosed is returned by queries on a closed DB.
	ErrClosed = errors.New("graph database is closed")
)

// Options size a database opened for queries and set the defaults of its
// queries.
type Options struct {
	// BufferPoolSize is Kuzu's buffer pool in bytes
	// (DefaultQueryBufferPool when 0); Kuzu's own default takes 80% of
	// the machine's memory.
	BufferPoolSize uint64
	// Threads caps the worker threads of each query (DefaultThreads when
	// 0). The engine gets Threads workers for every connection, so that
	// each running query has its own (see DB).
	Threads int
	// Connections bounds the queries that run at once (the number of
	// cores when 0); more wait for a connection, or for their context to
	// end.
	Connections int
	// Timeout is the default time limit of a query (30s when 0).
	Timeout time.Duration
	// MaxRows is the default row cap of a query (1000 when 0).
	MaxRows int
	// Direct says when simple queries may be answered from a copy of
	// the notes and links in memory instead of the engine (see
	// direct.go): DirectLazy (0) after the first such query, DirectOff
	// never, DirectAtOpen from Open on. The answers are the same.
	Direct int
}

// Defaults of Options.
const (
	DefaultTimeout = 30 * time.Second
	DefaultMaxRows = 1000
)

// DefaultConnections is the size of a DB's connection pool when
// Options.Connections is 0: one query per core.
func DefaultConnections() int { return runtime.GOMAXPROCS(0) }

func (o Options) withDefaults() Options {
	if o.BufferPoolSize == 0 {
		o.BufferPoolSize = DefaultQueryBufferPool
	}
	if o.Threads <= 0 {
		o.Threads = DefaultThreads
	}
	if o.Connections <= 0 {
		o.Connections = DefaultConnections()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	return o
}

// DB is a snapshot's graph database opened read-only. It is safe for
// concurrent use: each query takes one connection of a pool of
// Options.Connections.
//
// No query holds up another for longer than the other's own timeout.
// Kuzu's worker threads are shared by the connections of a database, and a
// query whose pipelines keep every worker busy (a join over most edges)
// would leave a point lookup waiting for a worker until it ends; so the
// engine gets Options.Threads workers per connection, and every running
// query finds its own. A query's timeout covers every step: Kuzu
// interrupts only the execution of a query, not the parsing, binding and
// planning, so when the timeout ends first Run returns and leaves the
// connection to finish the engine call alone (its inputs are bounded, see
// cypher.CheckParams), opening a spare connection in its place so that the
// pool stays full; at most Options.Connections spares exist at once.
//
// Close it when done; it holds native memory the garbage collector does
// not see.
type DB struct {
	db       *kuzu.Database
	graph    *format.Graph
	snapshot string
	opts     Options
	// conns holds the idle connections; its capacity is 2*Connections,
	// the pool and its spares.
	conns chan *kuzu.Connection
	names *names
	// schema is the graph's names prepared for the translator, parsed
	// the trees of recent query texts.
	schema *cypher.Schema
	parsed *parsed

	mu sync.Mutex
	// nconns counts the open connections, idle, running or abandoned.
	nconns int
	closed bool
	// done is closed by Close, waking queries that wait for a connection.
	done chan struct{}
	// beforeEngine, when set (by tests), is called with the translated
	// query right before the engine gets it; it turns direct answers off.
	beforeEngine func(query string)
	// directs holds the copy that answers simple queries.
	directs directState
}

// Open opens the graph database of the snapshot in dir read-only. It checks
// the snapshot's manifest (sizes only; snapshot.Verify checks sums) and
// returns ErrNoGraph when the snapshot has no graph.
func Open(dir string, opts Options) (*DB, error) {
	snap, err := snapshot.Open(dir, snapshot.OpenOptions{})
	if err != nil {
		return nil, err
	}
	return OpenSnapshot(snap, opts)
}

// OpenSnapshot is Open for a snapshot already opened (and checked as the
// caller wants): a server swapping snapshots has read the manifest once.
func OpenSnapshot(snap *snapshot.Snapshot, opts Options) (*DB, error) {
	dir := snap.Dir
	g := snap.Manifest.Graph
	if g == nil {
		return nil, fmt.Errorf("%w: %s was built without it; run vaultgraph index again", ErrNoGraph, snap.ID)
	}
	if g.Version != format.GraphVersion {
		return nil, fmt.Errorf("%w: %s has graph layout %d, this build reads %d; run vaultgraph index again", ErrNoGraph, snap.ID, g.Version, format.GraphVersion)
	}
	db, err := OpenFile(filepath.Join(dir, format.GraphFile), g, opts)
	if err != nil {
		return nil, err
	}
	db.snapshot = snap.ID
	return db, nil
}

// OpenFile opens the database file at path, described by g, read-only.
func OpenFile(path string, g *format.Graph, opts Options) (*DB, error) {
	opts = opts.withDefaults()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s is missing", ErrNoGraph, path)
	}
	kdb, err := openReadOnly(path, opts.BufferPoolSize, opts.Threads*opts.Connections)
	if err != nil {
		return nil, err
	}
	db := &DB{db: kdb, graph: g, opts: opts, conns: make(chan *kuzu.Connection, 2*opts.Connections), names: newNames(g), schema: cypher.NewSchema(g), parsed: newParsed(), done: make(chan struct{})}
	db.directs.mode = opts.Direct
	db.directs.ready = make(chan struct{})
	for range opts.Connections {
		conn, err := db.open()
		if err != nil {
			return nil, errors.Join(err, db.Close())
		}
		db.conns <- conn
		db.nconns++
	}
	if opts.Direct == DirectAtOpen {
		if err := db.waitDirect(context.Background()); err != nil {
			return nil, errors.Join(err, db.Close())
		}
	}
	return db, nil
}

func (db *DB) open() (*kuzu.Connection, error) {
	conn, err := kuzu.OpenConnection(db.db)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("open graph connection: %w", err)
	}
	conn.SetMaxNumThreads(uint64(db.opts.Threads))
	return conn, nil
}

// openReadOnly opens the engine in read-only mode, the first of the two
// guards against writes (the translator refusing write clauses is the
// other).
func openReadOnly(path string, bufferPool uint64, threads int) (*kuzu.Database, error) {
	cfg := kuzu.DefaultSystemConfig()
	cfg.BufferPoolSize = bufferPool
	cfg.MaxNumThreads = uint64(threads)
	cfg.ReadOnly = true
	db, err := kuzu.OpenDatabase(path, cfg)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open graph database %s: %w", path, err)
	}
	return db, nil
}

// Graph returns the manifest section describing the database.
func (db *DB) Graph() *format.Graph { return db.graph }

// Snapshot returns the id of the snapshot the database belongs to ("" when
// opened with OpenFile).
func (db *DB) Snapshot() string { return db.snapshot }

// acquire takes a connection, waiting for one to be free.
func (db *DB) acquire(ctx context.Context) (*kuzu.Connection, error) {
	select {
	case conn := <-db.conns:
		db.mu.Lock()
		closed := db.closed
		db.mu.Unlock()
		if closed {
			db.conns <- conn
			return nil, ErrClosed
		}
		return conn, nil
	case <-db.done:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// release returns a connection to the pool; one the pool has no room for
// (a spare, once the query it replaced has ended) is closed.
func (db *DB) release(conn *kuzu.Connection) {
	db.mu.Lock()
	if !db.closed && db.nconns > db.opts.Connections {
		db.nconns--
		db.mu.Unlock()
		conn.Close()
		return
	}
	db.mu.Unlock()
	db.conns <- conn
}

// abandon is called when a query's timeout ends while its connection is
// still inside the engine: the connection comes back through release when
// the engine returns, and a spare takes its place meanwhile, unless
// Connections spares are already open.
func (db *DB) abandon() {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed || db.nconns >= 2*db.opts.Connections {
		return
	}
	conn, err := db.open()
	if err != nil {
		return // the pool is one short until the abandoned query ends
	}
	db.nconns++
	db.conns <- conn
}

// Close waits for running queries to finish (their timeouts bound the
// wait; a query whose timeout ended inside the engine is waited for until
// the engine returns), then closes every connection and the database.
// Queries that start after Close get ErrClosed. Close is idempotent.
func (db *DB) Close() error {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return nil
	}
	db.closed = true
	close(db.done)
	n := db.nconns
	db.mu.Unlock()
	// The copy's load has a connection of its own, and ends within the
	// default timeout.
	db.directs.loading.Wait()
	// Every connection is either in the channel or held by a running
	// query, which puts it back when done; none opens or closes after
	// closed is set.
	for range n {
		conn := <-db.conns
		conn.Close()
	}
	db.db.Close()
	return nil
}
