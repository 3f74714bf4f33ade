package graphdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/format"
)

// EngineVersion is the Kuzu release that writes and reads the database.
const EngineVersion = "0.11.3"

// BuildOptions size the database engine while it loads a snapshot.
type BuildOptions struct {
	// BufferPoolSize is Kuzu's buffer pool in bytes (DefaultBuildBufferPool
	// when 0). Kuzu's own default is 80% of the machine's memory.
	BufferPoolSize uint64
	// Threads caps Kuzu's worker threads (DefaultThreads when 0).
	Threads int
	// TypedTables bounds the edge types with a relationship table of
	// their own (format.DefaultTypedEdgeTables when 0; links_to and embeds
	// always have one); the others share format.GraphEdgeTable.
	TypedTables int
	// MinTableEdges is the number of edges a type needs for a table of
	// its own (links_to and embeds always have one): when 0, the number of
	// notes times format.TypedEdgeTableNotes, a table's fixed cost in
	// edges of the shared table; negative for no minimum.
	MinTableEdges int
	// PropertyColumns bounds the note property keys, and the edge
	// property keys, with a typed column; the others are held as text in
	// tail columns. When 0: format.DefaultPropertyColumns, or fewer to
	// fit BufferPoolSize (one per 4 MiB, at least 8).
	PropertyColumns int
	// Log receives progress (discarded when nil).
	Log *slog.Logger
	// Progress, if not nil, is called after each statement of the load
	// (creating and filling the tables) with the statements done and their
	// number, on the goroutine that called Build.
	Progress func(done, total int)
}

// columnMemory is the buffer pool a property column may take while a
// table loads: twice what Kuzu 0.11.3's COPY takes for an integer column.
const columnMemory = 4 << 20

// Defaults of the engine's sizes.
const (
	DefaultBuildBufferPool = 512 << 20
	DefaultQueryBufferPool = 256 << 20
	DefaultThreads         = 2
)

// Build writes the graph database of a snapshot's rows into
// dir/format.GraphFile and returns the manifest section that maps vault
// names to its tables and columns. dir is the snapshot's temporary
// directory: the file is published (and checksummed) with the snapshot.
// Build bulk-loads Parquet staging files that it writes into a temporary
// folder inside dir and removes before it returns; on error it also removes
// the database file, so nothing it wrote is left in dir. It fails if the
// database file already exists. Canceling ctx interrupts the load.
func Build(ctx context.Context, dir string, notes []format.Note, edges []format.Edge, opts BuildOptions) (g *format.Graph, err error) {
	start := time.Now()
	opts = opts.withDefaults()
	dbPath := filepath.Join(dir, format.GraphFile)
	if _, err := os.Lstat(dbPath); !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("build graph: %s already exists", dbPath)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, removeDatabase(dbPath))
		}
	}()
	kept, skipped := keepConnected(notes, edges)
	if skipped > 0 {
		opts.Log.Warn("graph: edges whose ends are not notes were left out", "count", skipped)
	}
	plan := planSchema(notes, kept, tableChoice{limit: opts.TypedTables, minEdges: opts.minTableEdges(len(notes)), columns: opts.PropertyColumns})
	staging, err := os.MkdirTemp(dir, ".graph-staging-")
	if err != nil {
		return nil, fmt.Errorf("build graph: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(staging); rerr != nil {
			err = errors.Join(err, fmt.Errorf("remove graph staging files: %w", rerr))
		}
	}()
	stmts, err := plan.stage(staging, notes)
	if err != nil {
		return nil, err
	}
	if err := load(ctx, dbPath, stmts, opts); err != nil {
		return nil, err
	}
	if err := checkLoaded(dbPath, len(notes), len(kept), opts); err != nil {
		return nil, err
	}
	if _, err := freeZeroPages(dbPath); err != nil {
		return nil, err
	}
	fi, err := os.Stat(dbPath)
	if err != nil {
		return nil, fmt.Errorf("build graph: %w", err)
	}
	g = plan.manifest(len(notes), len(kept), skipped)
	g.Build, g.BuiltSize = format.GraphBuilt, fi.Size()
	opts.Log.Debug("graph built", "notes", len(notes), "edges", len(kept), "edge_types", len(g.EdgeTypes),
		"elapsed", time.Since(start).Round(time.Millisecond))
	return g, nil
}

// minTableEdges is the number of edges a type needs for a table of its
// own in a database of n notes.
func (o BuildOptions) minTableEdges(n int) int {
	switch {
	case o.MinTableEdges < 0:
		return 0
	case o.MinTableEdges > 0:
		return o.MinTableEdges
	}
	return max(format.MinTypedEdgeTable, int(float64(n)*format.TypedEdgeTableNotes))
}

func (o BuildOptions) withDefaults() BuildOptions {
	if o.BufferPoolSize == 0 {
		o.BufferPoolSize = DefaultBuildBufferPool
	}
	if o.Threads <= 0 {
		o.Threads = DefaultThreads
	}
	if o.PropertyColumns <= 0 {
		o.PropertyColumns = min(format.DefaultPropertyColumns, max(8, int(o.BufferPoolSize/(columnMemory))))
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// keepConnected drops edges with an end that is not a row of notes; the
// indexer never writes one, but a COPY would fail on it and lose the whole
// graph.
func keepConnected(notes []format.Note, edges []format.Edge) ([]format.Edge, int) {
	ids := make(map[string]bool, len(notes))
	for _, n := range notes {
		ids[n.ID] = true
	}
	kept := keepConnectedTo(ids, edges)
	return kept, len(edges) - len(kept)
}

// stage writes the staging files and returns the statements that create
// and fill the tables from them.
func (plan *schemaPlan) stage(dir string, notes []format.Note) ([]string, error) {
	noteCols := plan.noteColumns()
	rows := make([]map[string]any, len(notes))
	for i, n := range notes {
		rows[i] = plan.noteRow(n)
	}
	notesFile := filepath.Join(dir, "notes.parquet")
	if err := writeStaging(notesFile, noteCols, rows); err != nil {
		return nil, err
	}
	stmts := []string{createNodeTable(noteCols)}
	if len(notes) > 0 {
		stmts = append(stmts, copyStatement(format.GraphNoteTable, notesFile, noteCols, false))
	}
	for _, rt := range plan.tables {
		cols := plan.edgeColumns(rt)
		stmts = append(stmts, createRelTable(rt.table, cols))
		if rt.edges() == 0 {
			continue
		}
		rows := make([]map[string]any, 0, rt.edges())
		for _, et := range rt.types {
			for _, e := range et.edges {
				rows = append(rows, plan.edgeRow(*e))
			}
		}
		file := filepath.Join(dir, rt.table+".parquet")
		if err := writeStaging(file, cols, rows); err != nil {
			return nil, err
		}
		stmts = append(stmts, copyStatement(rt.table, file, cols, true))
	}
	return stmts, nil
}

// quote backquotes a name for Kuzu.
func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func columnDefs(cols []column) string {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = quote(c.name) + " " + c.typ
	}
	return strings.Join(defs, ", ")
}

func createNodeTable(cols []column) string {
	return fmt.Sprintf("CREATE NODE TABLE %s(%s, PRIMARY KEY(%s))", quote(format.GraphNoteTable), columnDefs(cols), quote("id"))
}

func createRelTable(table string, cols []column) string {
	return fmt.Sprintf("CREATE REL TABLE %s(FROM %s TO %s, %s)", quote(table), quote(format.GraphNoteTable), quote(format.GraphNoteTable), columnDefs(cols))
}

// copyStatement bulk-loads a table from its staging file, picking columns
// by name (Kuzu's COPY FROM a file maps them by position). A relationship
// table's rows start with the note ids of their ends.
func copyStatement(table, file string, cols []column, rel bool) string {
	var ret []string
	if rel {
		ret = append(ret, quote(format.GraphSourceColumn)+" AS `vg_from`", quote(format.GraphTargetColumn)+" AS `vg_to`")
	}
	for _, c := range cols {
		ret = append(ret, quote(c.name))
	}
	return fmt.Sprintf("COPY %s FROM (LOAD FROM %s RETURN %s)", quote(table), quoteString(file), strings.Join(ret, ", "))
}

// load creates the database and runs the statements.
func load(ctx context.Context, dbPath string, stmts []string, opts BuildOptions) error {
	cfg := kuzu.DefaultSystemConfig()
	cfg.BufferPoolSize = opts.BufferPoolSize
	cfg.MaxNumThreads = uint64(opts.Threads)
	db, err := kuzu.OpenDatabase(dbPath, cfg)
	if err != nil {
		db.Close()
		return fmt.Errorf("create graph database: %w", err)
	}
	conn, err := kuzu.OpenConnection(db)
	if err != nil {
		conn.Close()
		db.Close()
		return fmt.Errorf("create graph database: %w", err)
	}
	for i, stmt := range stmts {
		if err = exec(ctx, conn, stmt); err != nil {
			break
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(stmts))
		}
	}
	conn.Close()
	// Closing the database checkpoints it: the write-ahead log is folded
	// into the file and removed.
	db.Close()
	return err
}

// exec runs one statement, interrupting it when ctx is canceled.
func exec(ctx context.Context, conn *kuzu.Connection, stmt string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	stop := watch(ctx, conn)
	res, err := conn.Query(stmt)
	stop()
	if res != nil {
		res.Close()
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("build graph: %s: %w", firstWords(stmt), err)
	}
	return nil
}

// watch interrupts conn's running query when ctx is done. The returned
// function stops watching and returns only once no Interrupt can follow,
// so that a late interrupt never hits the connection's next query.
func watch(ctx context.Context, conn *kuzu.Connection) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-ctx.Done():
			conn.Interrupt()
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

func firstWords(s string) string {
	if i := strings.Index(s, "("); i > 0 {
		return s[:i]
	}
	return s
}

// checkLoaded reopens the database read-only, as the server will, and
// checks the row counts; it also checks that closing left no file beside
// the database (everything in the snapshot directory is published).
func checkLoaded(dbPath string, notes, edges int, opts BuildOptions) error {
	return reopenChecked(dbPath, opts, func(conn *kuzu.Connection) error {
		for _, c := range []struct {
			q    string
			want int
		}{{"MATCH (n) RETURN count(n)", notes}, {"MATCH ()-[r]->() RETURN count(r)", edges}} {
			got, err := count(conn, c.q)
			if err != nil {
				return err
			}
			if got != int64(c.want) {
				return fmt.Errorf("%q gives %d, want %d", c.q, got, c.want)
			}
		}
		return nil
	})
}

// reopenChecked checks that closing the engine left no file beside the
// database (everything in the snapshot directory is published), reopens it
// read-only as the server will, and runs check on a connection.
func reopenChecked(dbPath string, opts BuildOptions, check func(*kuzu.Connection) error) error {
	if extra := leftovers(dbPath); len(extra) > 0 {
		return fmt.Errorf("check graph: the engine left %s beside the database", strings.Join(extra, ", "))
	}
	db, err := openReadOnly(dbPath, opts.BufferPoolSize, opts.Threads)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := kuzu.OpenConnection(db)
	if err != nil {
		conn.Close()
		return fmt.Errorf("check graph: %w", err)
	}
	defer conn.Close()
	if err := check(conn); err != nil {
		return fmt.Errorf("check graph: %w", err)
	}
	return nil
}

func count(conn *kuzu.Connection, q string) (int64, error) {
	res, err := conn.Query(q)
	if res != nil {
		defer res.Close()
	}
	if err != nil {
		return 0, err
	}
	return resultCount(res)
}

// resultCount reads a result's single integer.
func resultCount(res *kuzu.QueryResult) (int64, error) {
	if !res.HasNext() {
		return 0, errors.New("no result row")
	}
	t, err := res.Next()
	if err != nil {
		return 0, err
	}
	defer t.Close()
	v, err := t.GetValue(0)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("count is %T", v)
	}
	return n, nil
}

// leftovers lists files named after the database (its .wal, a lock)
// beside it.
func leftovers(dbPath string) []string {
	des, err := os.ReadDir(filepath.Dir(dbPath))
	if err != nil {
		return nil
	}
	base := filepath.Base(dbPath)
	var extra []string
	for _, de := range des {
		if strings.HasPrefix(de.Name(), base) && de.Name() != base {
			extra = append(extra, de.Name())
		}
	}
	return extra
}

// removeDatabase removes a failed build's database and the files the
// engine keeps beside it.
func removeDatabase(dbPath string) error {
	var errs []error
	for _, name := range append(leftovers(dbPath), filepath.Base(dbPath)) {
		p := filepath.Join(filepath.Dir(dbPath), name)
		if err := os.RemoveAll(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
