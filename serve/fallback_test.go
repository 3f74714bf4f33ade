package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// TestDeletedSnapshotFallsBack is an operator's rollback: the served
// newest snapshot is deleted by hand while a query runs on it. The reload
// falls back to the previous snapshot, the query finishes on the deleted
// one, and /status, /metrics and the logs say what happened; once every
// snapshot is deleted, the data routes answer 503 with the reason.
func TestDeletedSnapshotFallsBack(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	a, err := indexerRunTablesOnly(vault, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "Bad.md"), []byte("A note in the bad snapshot.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := indexerRunTablesOnly(vault, data)
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}, 1), make(chan struct{})
	graph := withFakeGraph(func(ctx context.Context, req graphdb.Request) (*graphdb.Result, error) {
		if req.Query == "BLOCK" {
			started <- struct{}{}
			<-release
		}
		return &graphdb.Result{Columns: []graphdb.Column{}, Rows: [][]any{}}, nil
	})
	ts := startServer(t, data, serverConfig{store: store.Options{OpenGraph: graph}})
	checkSnapshot(t, ts.get("/status"), b.ID)

	inFlight := make(chan *response)
	go func() { inFlight <- ts.post("/query", `{"query": "BLOCK"}`) }()
	<-started
	if err := os.RemoveAll(b.Dir); err != nil {
		t.Fatal(err)
	}
	r := ts.post("/admin/reload", "")
	if m := r.object(t); r.status != 200 || m["snapshot"] != a.ID || m["previous"] != b.ID || m["swapped"] != true {
		t.Fatalf("POST /admin/reload after the served snapshot was deleted = %d %s", r.status, r.body)
	}
	close(release)
	if r := <-inFlight; r.status != 200 {
		t.Errorf("the query in flight on the deleted snapshot = %d %s", r.status, r.body)
	} else {
		checkSnapshot(t, r, b.ID)
	}

	st := ts.get("/status")
	checkSnapshot(t, st, a.ID)
	var status struct {
		Snapshots struct {
			Fallbacks    int64 `json:"fallbacks"`
			LastFallback *struct {
				Deleted, Serving, Reason string
			} `json:"last_fallback"`
		}
	}
	if err := json.Unmarshal(st.body, &status); err != nil {
		t.Fatal(err)
	}
	if fb := status.Snapshots.LastFallback; status.Snapshots.Fallbacks != 1 || fb == nil ||
		fb.Deleted != b.ID || fb.Serving != a.ID || fb.Reason == "" {
		t.Errorf("status does not report the fallback: %s", st.body)
	}
	if r := ts.get("/notes/Bad.md"); r.status != 404 {
		t.Errorf("a note only in the deleted snapshot = %d", r.status)
	}
	m := ts.get("/metrics").body
	for _, want := range []string{"vaultgraph_snapshot_fallbacks_total 1", `vaultgraph_snapshot_info{snapshot="` + a.ID + `"} 1`} {
		if !bytes.Contains(m, []byte(want)) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if bytes.Contains(m, []byte(b.ID)) {
		t.Errorf("metrics still name the deleted snapshot %s", b.ID)
	}
	if warn := grepLines([]byte(ts.logs.String()), "deleted from disk"); !strings.Contains(warn, "level=WARN") ||
		!strings.Contains(warn, a.ID) || !strings.Contains(warn, b.ID) {
		t.Errorf("fallback log = %q", warn)
	}

	// The last snapshot deleted: nothing left to answer from.
	if err := os.RemoveAll(a.Dir); err != nil {
		t.Fatal(err)
	}
	r = ts.post("/admin/reload", "")
	if m := r.object(t); r.status != 200 || m["snapshot"] != nil || m["previous"] != a.ID {
		t.Fatalf("POST /admin/reload with every snapshot deleted = %d %s", r.status, r.body)
	}
	if r := ts.get("/notes/Home.md"); r.status != 503 || r.errorKind() != "not_ready" || r.header.Get("X-Snapshot-Id") != "" ||
		!strings.Contains(r.errorMessage(), a.ID+" was deleted from disk") {
		t.Errorf("GET /notes/Home.md with every snapshot deleted = %d %v %s", r.status, r.header, r.body)
	}
	if r := ts.get("/status"); r.status != 200 || r.object(t)["state"] != "starting" || r.header.Get("X-Snapshot-Id") != "" ||
		!strings.Contains(fmt.Sprint(r.object(t)["message"]), a.ID+" was deleted from disk") {
		t.Errorf("GET /status with every snapshot deleted = %d %v %s", r.status, r.header, r.body)
	}
	if r := ts.get("/health"); r.object(t)["ready"] != false {
		t.Errorf("GET /health = %s", r.body)
	}
	m = ts.get("/metrics").body
	if !bytes.Contains(m, []byte("vaultgraph_snapshot_fallbacks_total 2")) || bytes.Contains(m, []byte("vaultgraph_snapshot_info{")) {
		t.Errorf("metrics with no snapshot served:\n%s", grepLines(m, "vaultgraph_snapshot"))
	}
}
