package serve_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// TestAnswerCache: a query asked a third time of the same snapshot is
// answered from the cache (same body, X-Answer-Cache: hit, the graph not
// asked): the first answer is not kept, the second is; another body, a
// failed query and a new snapshot are computed.
func TestAnswerCache(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	first, err := index(vault, data)
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	graph := withFakeGraph(func(_ context.Context, req graphdb.Request) (*graphdb.Result, error) {
		n := runs.Add(1)
		if strings.Contains(req.Query, "fail") {
			return nil, &graphdb.Error{Kind: cypher.KindRuntime, Message: "failed on purpose"}
		}
		return &graphdb.Result{Columns: []graphdb.Column{{Name: "n", Type: "INT64"}}, Rows: [][]any{{n}}, MaxRows: req.MaxRows}, nil
	})
	ts := startServer(t, data, serverConfig{store: store.Options{OpenGraph: graph}})

	ask := func(body string, wantStatus int) *response {
		t.Helper()
		res := ts.post("/query", body)
		if res.status != wantStatus {
			t.Fatalf("POST /query %s: status %d, want %d: %s", body, res.status, wantStatus, res.body)
		}
		return res
	}
	const q = `{"query": "MATCH (n) RETURN count(n)"}`
	one := ask(q, 200)
	if one.header.Get("X-Answer-Cache") != "" || runs.Load() != 1 {
		t.Fatalf("first answer: X-Answer-Cache %q, graph runs %d; want computed once", one.header.Get("X-Answer-Cache"), runs.Load())
	}
	if m := ts.get("/metrics"); !strings.Contains(string(m.body), "vaultgraph_answer_cache_bytes 0") {
		t.Fatalf("an answer computed once is kept:\n%s", grepLines(m.body, "answer_cache"))
	}
	two := ask(q, 200)
	if two.header.Get("X-Answer-Cache") != "" || runs.Load() != 2 {
		t.Fatalf("same query again: X-Answer-Cache %q, graph runs %d; want computed again (and kept)", two.header.Get("X-Answer-Cache"), runs.Load())
	}
	three := ask(q, 200)
	if three.header.Get("X-Answer-Cache") != "hit" || runs.Load() != 2 {
		t.Fatalf("same query a third time: X-Answer-Cache %q, graph runs %d; want a hit and no run", three.header.Get("X-Answer-Cache"), runs.Load())
	}
	if !bytes.Equal(two.body, three.body) || three.header.Get("X-Snapshot-Id") != first.ID || three.header.Get("Content-Type") != "application/json" {
		t.Fatalf("cached answer differs:\n%s %v\n%s %v", two.body, two.header, three.body, three.header)
	}
	for range 2 {
		ask(`{"query": "MATCH (n) RETURN count(n)", "max_rows": 5}`, 200)
	}
	if runs.Load() != 4 {
		t.Fatalf("another body twice: graph runs %d, want 4", runs.Load())
	}
	for range 3 {
		ask(`{"query": "MATCH (n) RETURN 'fail'"}`, 400)
	}
	if runs.Load() != 7 {
		t.Fatalf("a failing query asked three times: graph runs %d, want 7 (errors are not kept)", runs.Load())
	}
	// The same query under /v/NAME is the same vault's answer.
	if res := ts.post("/v/"+store.VaultNameOf(data)+"/query", q); res.header.Get("X-Answer-Cache") != "hit" {
		t.Fatalf("/v/NAME/query: X-Answer-Cache %q, want hit: %s", res.header.Get("X-Answer-Cache"), res.body)
	}

	// A new snapshot answers for itself.
	if err := os.WriteFile(filepath.Join(vault, "Cache note.md"), []byte("# Cache note\nSee [[Alice]].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := index(vault, data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.st.Refresh(context.Background()); err != nil || ts.st.Current() != second.ID {
		t.Fatalf("refresh: %v, serving %s, want %s", err, ts.st.Current(), second.ID)
	}
	after := ask(q, 200)
	if after.header.Get("X-Answer-Cache") != "" || runs.Load() != 8 || after.header.Get("X-Snapshot-Id") != second.ID {
		t.Fatalf("after a swap: X-Answer-Cache %q, graph runs %d, snapshot %s; want computed by %s",
			after.header.Get("X-Answer-Cache"), runs.Load(), after.header.Get("X-Snapshot-Id"), second.ID)
	}
	if m := ts.get("/metrics"); !strings.Contains(string(m.body), "vaultgraph_answer_cache_hits_total 2") {
		t.Fatalf("metrics do not count 2 hits:\n%s", grepLines(m.body, "answer_cache"))
	}
}

// TestAnswerCacheRetrieve: a retrieval asked a third time is the same
// answer, from the cache; with the cache off it is computed every time.
func TestAnswerCacheRetrieve(t *testing.T) {
	data, _ := demoData(t)
	const q = `{"question": "Who works on the Search project?", "k": 3}`
	for _, tc := range []struct {
		name    string
		budget  int
		wantHit string
	}{{"default", 0, "hit"}, {"off", -1, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, data, serverConfig{opts: serve.Options{AnswerCache: tc.budget}})
			if got := ts.post("/retrieve", q).header.Get("X-Answer-Cache"); got != "" {
				t.Fatalf("first retrieval: X-Answer-Cache %q, want it computed", got)
			}
			one := ts.post("/retrieve", q) // computed again, and kept
			two := ts.post("/retrieve", q)
			if one.status != 200 || two.status != 200 {
				t.Fatalf("status %d, %d: %s", one.status, two.status, two.body)
			}
			if got := two.header.Get("X-Answer-Cache"); got != tc.wantHit {
				t.Fatalf("third retrieval: X-Answer-Cache %q, want %q", got, tc.wantHit)
			}
			if got := one.header.Get("X-Answer-Cache"); got != "" {
				t.Fatalf("second retrieval: X-Answer-Cache %q, want it computed", got)
			}
			if tc.wantHit == "hit" && !bytes.Equal(one.body, two.body) {
				t.Fatalf("cached retrieval differs:\n%s\n%s", one.body, two.body)
			}
			if !strings.Contains(string(two.body), `"chunks"`) {
				t.Fatalf("no chunks in %s", two.body)
			}
		})
	}
}
