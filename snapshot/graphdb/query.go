package graphdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

// Error is the typed error of a query; see cypher.Kind for the kinds.
type Error = cypher.Error

// Request is one query with its limits; zero limits take the DB's
// defaults.
type Request struct {
	Query   string
	Params  map[string]any
	Timeout time.Duration
	MaxRows int
}

// Query runs a read-only openCypher query, written in vault names, with the
// DB's default timeout and row cap. It is Run with a default Request.
func (db *DB) Query(ctx context.Context, query string, params map[string]any) (*Result, error) {
	return db.Run(ctx, Request{Query: query, Params: params})
}

// Run runs a query. Errors about the query are *Error: KindSyntax,
// KindUnsupported, KindReadOnly and KindParameter before the engine sees
// it; KindTimeout when it ran past its timeout (or ctx's deadline),
// KindCanceled when ctx was canceled, KindOutOfMemory when the engine ran
// out of memory for it, KindRuntime when the engine failed it otherwise.
// A query whose result has more rows than the cap returns the first
// MaxRows with Truncated set. Run returns ErrClosed after Close.
func (db *DB) Run(ctx context.Context, req Request) (*Result, error) {
	start := time.Now()
	if req.Timeout <= 0 {
		req.Timeout = db.opts.Timeout
	}
	if req.MaxRows <= 0 {
		req.MaxRows = db.opts.MaxRows
	}
	q, err := db.parsed.parse(req.Query)
	if err != nil {
		return nil, err
	}
	tr, err := cypher.Translate(q, db.graph, req.Params, cypher.Options{MaxRows: req.MaxRows, Schema: db.schema})
	if err != nil {
		return nil, err
	}
	if g := db.direct(); g != nil {
		if p, ok := planDirect(tr, g, db.graph.NoteTable); ok {
			db.mu.Lock()
			closed := db.closed
			db.mu.Unlock()
			if closed {
				return nil, ErrClosed
			}
			if err := ctx.Err(); err != nil {
				return nil, db.contextError(ctx, req.Timeout, "")
			}
			if res, ok := g.answer(p, tr, &converter{names: db.names}, req.MaxRows); ok {
				res.Snapshot, res.Notices = db.snapshot, tr.Notices
				res.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
				return res, nil
			}
		}
		if text := g.keyed(tr); text != "" {
			keyed := *tr
			keyed.Query = text
			tr = &keyed
		}
	}
	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()
	conn, err := db.acquire(ctx)
	if err != nil {
		if errors.Is(err, ErrClosed) {
			return nil, err
		}
		return nil, db.contextError(ctx, req.Timeout, "waiting for a free connection")
	}
	type outcome struct {
		res *Result
		err error
	}
	ran := make(chan outcome, 1)
	go func() {
		defer db.release(conn)
		res, err := db.execute(ctx, conn, tr, req)
		ran <- outcome{res, err}
	}()
	var res *Result
	select {
	case o := <-ran:
		if o.err != nil {
			return nil, o.err
		}
		res = o.res
	case <-ctx.Done():
		// The engine has not returned: Kuzu interrupts execution only, so
		// the query may still be parsing, binding or planning, or
		// converting its rows. It finishes alone; a spare connection
		// takes its place.
		db.abandon()
		return nil, db.contextError(ctx, req.Timeout, "")
	}
	res.Snapshot, res.Notices = db.snapshot, tr.Notices
	res.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

func (db *DB) execute(ctx context.Context, conn *kuzu.Connection, tr *cypher.Translation, req Request) (*Result, error) {
	deadline, _ := ctx.Deadline()
	ms := time.Until(deadline).Milliseconds()
	if ms < 1 {
		return nil, db.contextError(ctx, req.Timeout, "before it started")
	}
	// Two clocks stop a query: the engine's own timeout, and an interrupt
	// when ctx ends first (a client that went away).
	conn.SetTimeout(uint64(ms))
	stop := watch(ctx, conn)
	if db.beforeEngine != nil {
		db.beforeEngine(tr.Query)
	}
	qr, err := conn.Query(tr.Query)
	stop()
	if qr != nil {
		defer qr.Close()
	}
	if err != nil {
		if ctx.Err() != nil || strings.Contains(err.Error(), "Interrupted") {
			return nil, db.contextError(ctx, req.Timeout, "")
		}
		return nil, db.engineError(err, "")
	}
	return db.read(qr, tr, req.MaxRows)
}

// contextError reports why a query stopped early.
func (db *DB) contextError(ctx context.Context, timeout time.Duration, when string) error {
	msg := fmt.Sprintf("the query ran longer than its timeout of %s; narrow it (a label, a LIMIT, a shorter variable-length range) or raise the timeout", timeout)
	if when != "" {
		msg = fmt.Sprintf("the timeout of %s ran out %s", timeout, when)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return &Error{Kind: cypher.KindCanceled, Message: "the query was canceled"}
	}
	return &Error{Kind: cypher.KindTimeout, Message: msg}
}

// read converts up to maxRows rows and reports whether more exist.
func (db *DB) read(qr *kuzu.QueryResult, tr *cypher.Translation, maxRows int) (*Result, error) {
	res := &Result{Rows: [][]any{}, MaxRows: maxRows, Translated: tr.Query}
	names := tr.Columns
	if names == nil {
		names = qr.GetColumnNames()
	}
	c := &converter{names: db.names}
	types := make([][]string, len(names))
	for skipped := int64(0); skipped < tr.SkipRows && qr.HasNext(); skipped++ {
		// The SKIP the engine could not take (cypher.Translation.SkipRows).
		t, err := qr.Next()
		if err != nil {
			return nil, db.engineError(err, "")
		}
		t.Close()
	}
	for qr.HasNext() {
		if len(res.Rows) == maxRows {
			res.Truncated = true
			break
		}
		t, err := qr.Next()
		if err != nil {
			return nil, db.engineError(err, "")
		}
		values, err := t.GetAsSlice()
		t.Close()
		if err != nil {
			return nil, db.engineError(err, "reading a result row: ")
		}
		row := make([]any, len(names))
		for i := range names {
			if i < len(values) {
				var typ string
				row[i], typ = c.value(values[i])
				types[i] = append(types[i], typ)
			}
		}
		res.Rows = append(res.Rows, row)
	}
	res.Columns = columns(names, types, tr.Kinds)
	return res, nil
}

// columns describes a result's columns from the types of the values each
// held and the kinds the translation knows (node, relationship, path).
func columns(names []string, types [][]string, kinds []string) []Column {
	cols := make([]Column, 0, len(names))
	for i, n := range names {
		col := Column{Name: n, Type: columnType(types[i])}
		known := ""
		if i < len(kinds) {
			known = kinds[i]
		}
		col.Kind = columnKind(known, col.Type)
		cols = append(cols, col)
	}
	return cols
}
