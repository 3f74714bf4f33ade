package serve_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// checkSnapshot asserts that a response names the snapshot in its header
// and, for JSON bodies, in its snapshot field.
func checkSnapshot(t *testing.T, r *response, want string) {
	t.Helper()
	if got := r.header.Get("X-Snapshot-Id"); got != want {
		t.Errorf("X-Snapshot-Id = %q, want %q", got, want)
	}
	if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		return
	}
	m := r.object(t)
	field := "snapshot"
	if _, ok := m["x-snapshot"]; ok {
		field = "x-snapshot"
	}
	if got, _ := m[field].(string); got != want {
		t.Errorf("body %s = %v, want %q", field, m[field], want)
	}
}

func TestRoutes(t *testing.T) {
	data, res := demoData(t)
	id := res.ID
	ts := startServer(t, data, serverConfig{})

	t.Run("health", func(t *testing.T) {
		r := ts.get("/health")
		if r.status != 200 || r.object(t)["status"] != "ok" || r.object(t)["ready"] != true {
			t.Fatalf("GET /health = %d %s", r.status, r.body)
		}
		checkSnapshot(t, r, id)
	})
	t.Run("status", func(t *testing.T) {
		r := ts.get("/status")
		if r.status != 200 {
			t.Fatalf("GET /status = %d %s", r.status, r.body)
		}
		checkSnapshot(t, r, id)
		var st struct {
			Counts       struct{ Notes, Stubs, Chunks int }
			VaultRoot    string `json:"vault_root"`
			Embedder     struct{ Provider string }
			Capabilities map[string]struct{ Available bool }
			Snapshots    struct{ Seen, Rejected int }
			Server       struct {
				Uptime float64 `json:"uptime_seconds"`
			}
		}
		if err := json.Unmarshal(r.body, &st); err != nil {
			t.Fatal(err)
		}
		if st.Counts.Notes != 31 || st.Counts.Stubs != 3 || st.Embedder.Provider != "builtin" || st.VaultRoot == "" {
			t.Errorf("status = %s", r.body)
		}
		for _, c := range []string{"query", "search", "notes", "graph", "retrieve"} {
			if !st.Capabilities[c].Available {
				t.Errorf("capability %s unavailable: %s", c, r.body)
			}
		}
		if st.Snapshots.Seen != 1 || st.Snapshots.Rejected != 0 {
			t.Errorf("snapshots = %+v", st.Snapshots)
		}
	})
	t.Run("query", func(t *testing.T) {
		r := ts.post("/query", `{"query": "MATCH (p:Person)-[:leads]->(x) WHERE x.title = $t RETURN p.title AS who", "params": {"t": "Search"}}`)
		if r.status != 200 {
			t.Fatalf("POST /query = %d %s", r.status, r.body)
		}
		checkSnapshot(t, r, id)
		var q struct {
			Columns []struct{ Name, Type string }
			Rows    [][]any
		}
		json.Unmarshal(r.body, &q)
		if len(q.Columns) != 1 || q.Columns[0].Name != "who" || q.Columns[0].Type != "string" || fmt.Sprint(q.Rows) != "[[Alice]]" {
			t.Errorf("query result = %s", r.body)
		}
	})
	t.Run("query names a label or type the snapshot lacks", func(t *testing.T) {
		var q struct {
			Rows    [][]any
			Notices []string
		}
		r := ts.post("/query", `{"query": "MATCH (n:Persn)-[:link]->() RETURN count(n)"}`)
		if err := json.Unmarshal(r.body, &q); err != nil || r.status != 200 {
			t.Fatalf("POST /query = %d %s", r.status, r.body)
		}
		want := []string{"no label Persn in this snapshot; did you mean Person?",
			"link is links_to in Cypher (the graph tool and POST /graph call plain links link); this snapshot has no relationship type link"}
		if fmt.Sprint(q.Rows) != "[[0]]" || !reflect.DeepEqual(q.Notices, want) {
			t.Errorf("answer = %s, want a count of 0 with notices %q", r.body, want)
		}
		r = ts.post("/query", `{"query": "MATCH (n:Person) RETURN count(n)"}`)
		if strings.Contains(string(r.body), "notices") {
			t.Errorf("a query of known names has notices: %s", r.body)
		}
	})
	t.Run("query nodes are tagged", func(t *testing.T) {
		r := ts.post("/query", `{"query": "MATCH (c:Company)-[f:funds]->(p) RETURN c, f ORDER BY c.title LIMIT 1"}`)
		var q struct{ Rows [][]map[string]any }
		if err := json.Unmarshal(r.body, &q); err != nil || len(q.Rows) != 1 {
			t.Fatalf("POST /query = %d %s", r.status, r.body)
		}
		if q.Rows[0][0]["_type"] != "node" || q.Rows[0][1]["_type"] != "relationship" {
			t.Errorf("row = %v", q.Rows[0])
		}
	})
	t.Run("search", func(t *testing.T) {
		r := ts.post("/search", `{"query": "who funds the search project", "target": "edges", "edge_types": ["funds"], "k": 2}`)
		if r.status != 200 {
			t.Fatalf("POST /search = %d %s", r.status, r.body)
		}
		checkSnapshot(t, r, id)
		var s struct {
			Hits   []struct{ Source, Target, Type string } `json:"results"`
			HitIDs []string                                `json:"hit_ids"`
			Notice string
		}
		json.Unmarshal(r.body, &s)
		if len(s.Hits) == 0 || s.Hits[0].Source != "Companies/Acme.md" || s.Hits[0].Target != "Projects/Search.md" || len(s.HitIDs) != len(s.Hits) || s.Notice == "" {
			t.Errorf("search = %s", r.body)
		}
	})
	t.Run("search methods", func(t *testing.T) {
		for _, m := range []string{"", "fused", "vectors", "bm25"} {
			body := `{"query": "Initech lab", "k": 3}`
			if m != "" {
				body = `{"query": "Initech lab", "k": 3, "method": "` + m + `"}`
			}
			r := ts.post("/search", body)
			var s struct {
				Method string
				Hits   []struct{ Path string } `json:"results"`
			}
			json.Unmarshal(r.body, &s)
			want := m
			if m == "" {
				want = "fused"
			}
			if r.status != 200 || s.Method != want || len(s.Hits) == 0 || s.Hits[0].Path != "Companies/Initech.md" {
				t.Errorf("method %q: %d %s", m, r.status, r.body)
			}
		}
		for _, body := range []string{`{"query": "x", "method": "magic"}`, `{"query": "x", "target": "edges", "method": "bm25"}`} {
			if r := ts.post("/search", body); r.status != 400 || !strings.Contains(r.errorMessage(), "method") {
				t.Errorf("%s: %d %s", body, r.status, r.body)
			}
		}
	})
	t.Run("search chunks then cypher", func(t *testing.T) {
		r := ts.post("/search", `{"query": "recrawl interval hours", "target": "chunks", "k": 3,
			"then": "MATCH (n) WHERE n.id IN $hits RETURN n.title AS title ORDER BY title"}`)
		if r.status != 200 {
			t.Fatalf("POST /search = %d %s", r.status, r.body)
		}
		var s struct {
			Hits []struct{ Note, Text string } `json:"results"`
			Then struct{ Rows [][]string }
		}
		json.Unmarshal(r.body, &s)
		if len(s.Hits) == 0 || s.Hits[0].Text == "" || len(s.Then.Rows) == 0 {
			t.Fatalf("search = %s", r.body)
		}
	})
	t.Run("note", func(t *testing.T) {
		for _, path := range []string{"/notes/Projects%2FSearch.md", "/notes/Projects/Search.md", "/notes/Projects/Search"} {
			r := ts.get(path)
			if r.status != 200 {
				t.Fatalf("GET %s = %d %s", path, r.status, r.body)
			}
			checkSnapshot(t, r, id)
			var n struct {
				Note struct {
					ID         string
					Labels     []string
					Properties map[string]any
				}
				Outgoing, Incoming []struct{ Type, Source, Target string }
				Chunks             []struct{ Text string }
				Content            *string
			}
			json.Unmarshal(r.body, &n)
			if n.Note.ID != "Projects/Search.md" || n.Note.Labels[0] != "Project" || n.Note.Properties["language"] != "Rust" {
				t.Errorf("note = %+v", n.Note)
			}
			if !hasEdge(n.Incoming, "funds", "Companies/Acme.md", "Projects/Search.md") ||
				!hasEdge(n.Outgoing, "depends_on", "Projects/Search.md", "Projects/Crawler.md") {
				t.Errorf("edges of Search: out %v in %v", n.Outgoing, n.Incoming)
			}
			if len(n.Chunks) < 2 || n.Content != nil {
				t.Errorf("chunks %d, content %v", len(n.Chunks), n.Content)
			}
		}
	})
	t.Run("note content, unicode and stub", func(t *testing.T) {
		r := ts.get("/notes/People/Zo%C3%AB.md?content=true")
		if r.status != 200 || !strings.Contains(r.object(t)["content"].(string), "Zoë") {
			t.Errorf("GET Zoë with content = %d %.300s", r.status, r.body)
		}
		// The same name in NFD, as macOS writes it.
		if r := ts.get("/notes/People/Zoe%CC%88.md"); r.status != 200 {
			t.Errorf("GET Zoë in NFD = %d", r.status)
		}
		r = ts.get("/notes/Query%20Understanding")
		if r.status != 200 || r.object(t)["note"].(map[string]any)["properties"].(map[string]any)["stub"] != true {
			t.Errorf("GET stub = %d %.300s", r.status, r.body)
		}
		if r := ts.get("/notes/Nope.md"); r.status != 404 || r.errorKind() != "not_found" {
			t.Errorf("GET missing note = %d %s", r.status, r.body)
		}
	})
	t.Run("graph", func(t *testing.T) {
		r := ts.post("/graph", `{"action": "neighbors", "sourcePath": "Search"}`)
		if r.status != 200 {
			t.Fatalf("POST /graph = %d %s", r.status, r.body)
		}
		checkSnapshot(t, r, id)
		if !bytes.Contains(r.body, []byte(`"Companies/Acme.md"`)) {
			t.Errorf("neighbors of Search lack Acme: %.500s", r.body)
		}
		if r := ts.post("/graph", `{"action": "neighbors", "sourcePath": "Kickoff"}`); r.status != 400 {
			t.Errorf("an ambiguous note name = %d %s", r.status, r.body)
		}
	})
	t.Run("retrieve", func(t *testing.T) {
		r := ts.post("/retrieve", `{"question": "What does the Search project depend on, and who works on it?", "k": 5, "depth": 1}`)
		if r.status != 200 {
			t.Fatalf("POST /retrieve = %d %s", r.status, r.body)
		}
		checkSnapshot(t, r, id)
		if !bytes.Contains(r.body, []byte(`"funds"`)) || r.object(t)["notice"] == "" {
			t.Errorf("retrieve lacks the funding edge or the notice: %.500s", r.body)
		}
	})
	t.Run("metrics", func(t *testing.T) {
		r := ts.get("/metrics")
		if r.status != 200 || r.header.Get("X-Snapshot-Id") != id {
			t.Fatalf("GET /metrics = %d", r.status)
		}
		for _, want := range []string{
			`vaultgraph_http_requests_total{method="GET",route="/status",status="200"} 1`,
			`vaultgraph_http_request_duration_seconds_bucket{method="POST",route="/query"`,
			`vaultgraph_snapshot_info{snapshot="` + id + `"} 1`,
			"vaultgraph_snapshot_age_seconds ",
			"vaultgraph_snapshot_swaps_total 0",
			"vaultgraph_snapshots_rejected_total 0",
			"vaultgraph_snapshots_open 1",
			"process_open_fds ",
		} {
			if !bytes.Contains(r.body, []byte(want)) {
				t.Errorf("metrics lack %q:\n%s", want, grepLines(r.body, "route="))
			}
		}
	})
	t.Run("openapi", func(t *testing.T) {
		r := ts.get("/openapi.json")
		if r.status != 200 {
			t.Fatalf("GET /openapi.json = %d", r.status)
		}
		checkSnapshot(t, r, id)
		if r.object(t)["openapi"] != "3.0.3" {
			t.Errorf("openapi = %v", r.object(t)["openapi"])
		}
	})
	t.Run("reload", func(t *testing.T) {
		r := ts.post("/admin/reload", "")
		if r.status != 200 || r.object(t)["swapped"] != false {
			t.Fatalf("POST /admin/reload = %d %s", r.status, r.body)
		}
		checkSnapshot(t, r, id)
	})
	t.Run("snapshot untouched", func(t *testing.T) {
		// Serving opened every component; none may have written to the
		// snapshot (the graph engine in particular creates no files).
		_, problems, err := snapshot.Verify(res.Dir)
		if err != nil || len(problems) > 0 {
			t.Errorf("snapshot changed by serving it: %v %v", problems, err)
		}
	})
}

func TestRun(t *testing.T) {
	data, res := demoData(t)
	if err := serve.Run(context.Background(), serve.Config{DataDir: data, Addr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), serve.TokenEnv) {
		t.Fatalf("Run on 0.0.0.0 without a token = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error)
	go func() {
		done <- serve.Run(ctx, serve.Config{DataDir: data, Addr: "127.0.0.1:0",
			Store: store.Options{GraphDB: graphdb.Options{BufferPoolSize: testGraphMemory}},
			Ready: func(a net.Addr) { addr <- a.String() }})
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	resp, err := http.Get(base + "/status")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Snapshot-Id") != res.ID {
		t.Errorf("GET /status = %d %v", resp.StatusCode, resp.Header)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after cancel = %v", err)
	}
	if _, err := http.Get(base + "/health"); err == nil {
		t.Error("still answering after Run returned")
	}
}

func hasEdge(edges []struct{ Type, Source, Target string }, typ, start, end string) bool {
	for _, e := range edges {
		if e.Type == typ && e.Source == start && e.Target == end {
			return true
		}
	}
	return false
}

func TestErrors(t *testing.T) {
	data, res := demoData(t)
	ts := startServer(t, data, serverConfig{opts: serve.Options{BodyLimit: 4096}})
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	tests := []struct {
		name       string
		req        request
		status     int
		kind       string
		line, col  int
		retryAfter bool
	}{
		{"bad json", request{method: "POST", path: "/query", body: "{\n  \"query\": \"MATCH (n) RETURN n\",\n  oops\n}"}, 400, "bad_request", 3, 3, false},
		{"truncated json", request{method: "POST", path: "/query", body: `{"query": "MATCH`}, 400, "bad_request", 0, 0, false},
		{"empty body", request{method: "POST", path: "/query"}, 400, "bad_request", 0, 0, false},
		{"not an object", request{method: "POST", path: "/query", body: `["MATCH (n) RETURN n"]`}, 400, "bad_request", 1, 1, false},
		{"wrong field type", request{method: "POST", path: "/search", body: `{"query": "x", "k": "ten"}`}, 400, "bad_request", 1, 25, false},
		{"two values", request{method: "POST", path: "/query", body: `{"query": "MATCH (n) RETURN n"} {}`}, 400, "bad_request", 0, 0, false},
		{"missing query", request{method: "POST", path: "/query", body: `{"params": {}}`}, 400, "bad_request", 0, 0, false},
		{"cypher syntax", request{method: "POST", path: "/query", body: `{"query": "MATCH (n\nRETURN n"}`}, 400, "syntax", 2, 1, false},
		{"cypher write", request{method: "POST", path: "/query", body: `{"query": "MATCH (n) DETACH DELETE n"}`}, 400, "readonly", 1, 11, false},
		{"cypher missing parameter", request{method: "POST", path: "/query", body: `{"query": "MATCH (n) WHERE n.title = $t RETURN n"}`}, 400, "parameter", 0, 0, false},
		{"search target", request{method: "POST", path: "/search", body: `{"query": "x", "target": "pages"}`}, 400, "bad_request", 0, 0, false},
		{"search k", request{method: "POST", path: "/search", body: `{"query": "x", "k": 100000}`}, 400, "bad_request", 0, 0, false},
		{"retrieve depth", request{method: "POST", path: "/retrieve", body: `{"question": "x", "depth": 10}`}, 400, "bad_request", 0, 0, false},
		{"search hits param", request{method: "POST", path: "/search", body: `{"query": "x", "then": "RETURN $hits", "params": {"hits": 1}}`}, 400, "bad_request", 0, 0, false},
		{"oversized body", request{method: "POST", path: "/query", body: `{"query": "` + strings.Repeat("x", 5000) + `"}`}, 413, "too_large", 0, 0, false},
		{"compressed body", request{method: "POST", path: "/query", body: gz(`{"query": "MATCH (n) RETURN n"}`), header: map[string]string{"Content-Encoding": "gzip"}}, 415, "unsupported_media_type", 0, 0, false},
		{"unknown route", request{path: "/nope"}, 404, "not_found", 0, 0, false},
		{"unknown nested route", request{path: "/admin/secrets"}, 404, "not_found", 0, 0, false},
		{"wrong method", request{method: "DELETE", path: "/status"}, 405, "method_not_allowed", 0, 0, false},
		{"get on post route", request{path: "/query"}, 405, "method_not_allowed", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.send(tc.req)
			if r.status != tc.status || r.errorKind() != tc.kind {
				t.Fatalf("status %d kind %q, want %d %q: %s", r.status, r.errorKind(), tc.status, tc.kind, r.body)
			}
			var e struct {
				Error struct {
					Message      string
					Line, Column int
				}
				Snapshot string
			}
			if err := json.Unmarshal(r.body, &e); err != nil {
				t.Fatal(err)
			}
			if e.Error.Message == "" || e.Snapshot != res.ID || r.header.Get("X-Snapshot-Id") != res.ID {
				t.Errorf("error body %s, header %q", r.body, r.header.Get("X-Snapshot-Id"))
			}
			if tc.status == 413 && !strings.Contains(e.Error.Message, "limit of 4096 bytes") {
				t.Errorf("a 413 does not give the limit: %s", e.Error.Message)
			}
			if tc.line != 0 && (e.Error.Line != tc.line || e.Error.Column != tc.col) {
				t.Errorf("position %d:%d, want %d:%d (%s)", e.Error.Line, e.Error.Column, tc.line, tc.col, e.Error.Message)
			}
			if strings.Contains(string(r.body), "goroutine") || strings.Contains(string(r.body), ".go:") {
				t.Errorf("error leaks a stack trace: %s", r.body)
			}
		})
	}
}

// TestNotePathTraversal sends the request targets exactly as written:
// the path is a lookup key, but traversal-shaped keys are refused.
func TestNotePathTraversal(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	for _, path := range []string{
		"/notes/../etc/passwd",
		"/notes/..%2F..%2Fetc%2Fpasswd",
		"/notes/%2e%2e/%2e%2e/etc/passwd",
		"/notes/People/../../snapshots/x",
		"/notes/People/./Alice.md",
		"/notes//etc/passwd",
		"/notes/%2Fetc%2Fpasswd",
		"/notes/%5Cetc%5Cpasswd",
		"/notes/C:%5CWindows%5Cwin.ini",
		"/notes/..%5C..%5Cwin.ini",
		"/notes/People%2FAlice.md%00.txt",
		"/notes/%ff%fe",
		"/notes/%zz",
	} {
		r := ts.send(request{path: path, raw: true})
		if r.status != 400 || r.errorKind() != "bad_request" {
			t.Errorf("GET %s = %d %s, want 400", path, r.status, r.body)
		}
	}
	if r := ts.send(request{path: "/notes/", raw: true}); r.status != 400 && r.status != 404 {
		t.Errorf("GET /notes/ = %d", r.status)
	}
}

func TestAuth(t *testing.T) {
	data, res := demoData(t)
	const token = "0123456789abcdef0123456789abcdef"
	ts := startServer(t, data, serverConfig{opts: serve.Options{Token: token, BodyLimit: 4096}})
	for _, tc := range []struct {
		name   string
		req    request
		status int
	}{
		{"health is open", request{path: "/health", noToken: true}, 200},
		{"no token", request{path: "/status", noToken: true}, 401},
		{"wrong token", request{path: "/status", noToken: true, header: map[string]string{"Authorization": "Bearer " + strings.Repeat("x", 32)}}, 401},
		{"token prefix", request{path: "/status", noToken: true, header: map[string]string{"Authorization": "Bearer " + token[:31]}}, 401},
		{"basic scheme", request{path: "/status", noToken: true, header: map[string]string{"Authorization": "Basic " + token}}, 401},
		{"lower-case scheme", request{path: "/status", noToken: true, header: map[string]string{"Authorization": "bearer " + token}}, 200},
		{"right token", request{path: "/status"}, 200},
		{"query needs it", request{method: "POST", path: "/query", body: `{"query":"RETURN 1"}`, noToken: true}, 401},
		{"metrics need it", request{path: "/metrics", noToken: true}, 401},
		{"reload needs it", request{method: "POST", path: "/admin/reload", noToken: true}, 401},
		{"unknown routes do not leak", request{path: "/nope", noToken: true}, 401},
		{"any host with a token", request{path: "/status", header: map[string]string{"Host": "vault.example.com"}}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ts.send(tc.req)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if r.status == 401 && (r.errorKind() != "unauthorized" || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer")) {
				t.Errorf("401 without the right body or WWW-Authenticate: %s %v", r.body, r.header)
			}
			if r.status == 401 && (r.header.Get("X-Snapshot-Id") != "" || r.object(t)["snapshot"] != nil || strings.Contains(string(r.body), res.ID)) {
				t.Errorf("a 401 names the snapshot: %v %s", r.header, r.body)
			}
		})
	}
	// /health is open, but names the snapshot only to clients with the
	// token.
	r := ts.send(request{path: "/health", noToken: true})
	if r.object(t)["ready"] != true || r.object(t)["snapshot"] != nil || r.header.Get("X-Snapshot-Id") != "" {
		t.Errorf("GET /health without the token = %v %s", r.header, r.body)
	}
	r = ts.send(request{path: "/health"})
	if r.object(t)["snapshot"] != res.ID || r.header.Get("X-Snapshot-Id") != res.ID {
		t.Errorf("GET /health with the token = %v %s", r.header, r.body)
	}
	// Errors raised before routing (here a body over the limit) are
	// answered before authentication, and name no snapshot either.
	r = ts.send(request{method: "POST", path: "/query", body: `{"query": "` + strings.Repeat("x", 5000) + `"}`, noToken: true})
	if r.status != 413 || r.header.Get("X-Snapshot-Id") != "" || r.object(t)["snapshot"] != nil {
		t.Errorf("a request too large without the token = %d %v %s", r.status, r.header, r.body)
	}
	// Refused requests are counted under the route they were sent to;
	// only paths no route has are "unmatched".
	m := ts.get("/metrics")
	for _, want := range []string{
		`vaultgraph_http_requests_total{method="GET",route="/status",status="401"} 4`,
		`vaultgraph_http_requests_total{method="POST",route="/query",status="401"} 1`,
		`vaultgraph_http_requests_total{method="POST",route="/query",status="413"} 1`,
		`vaultgraph_http_requests_total{method="GET",route="/metrics",status="401"} 1`,
		`vaultgraph_http_requests_total{method="GET",route="unmatched",status="401"} 1`,
	} {
		if !bytes.Contains(m.body, []byte(want)) {
			t.Errorf("metrics lack %q:\n%s", want, grepLines(m.body, "vaultgraph_http_requests_total"))
		}
	}
	if strings.Contains(ts.logs.String(), token) || strings.Contains(ts.logs.String(), token[:16]) {
		t.Error("the token appears in the logs")
	}
}

func TestLoopbackOnlyWithoutToken(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{opts: serve.Options{AllowedHosts: []string{"vault.local"}}})
	for host, want := range map[string]int{
		"": 200, "localhost": 200, "LOCALHOST:7337": 200, "127.0.0.1:1": 200, "[::1]:7337": 200, "vault.local:80": 200,
		"evil.example": 403, "evil.example:7337": 403, "10.0.0.1": 403,
	} {
		req := request{path: "/status"}
		if host != "" {
			req.header = map[string]string{"Host": host}
		}
		r := ts.send(req)
		if r.status != want || (want == 403 && r.errorKind() != "forbidden") {
			t.Errorf("Host %q: %d %s, want %d", host, r.status, r.body, want)
		}
		if want == 403 && (r.header.Get("X-Snapshot-Id") != "" || r.object(t)["snapshot"] != nil) {
			t.Errorf("Host %q: a 403 names the snapshot: %v %s", host, r.header, r.body)
		}
	}
}

func TestCheckExposure(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:7337": true, "localhost:7337": true, "[::1]:7337": true, "127.0.0.2:1": true,
		"0.0.0.0:7337": false, ":7337": false, "[::]:7337": false, "192.168.1.10:7337": false, "vault.example.com:80": false,
	} {
		err := serve.CheckExposure(addr, false)
		if (err == nil) != ok {
			t.Errorf("CheckExposure(%q) = %v", addr, err)
		}
		if err != nil && !strings.Contains(err.Error(), serve.TokenEnv) {
			t.Errorf("the refusal does not say how to fix it: %v", err)
		}
		if err := serve.CheckExposure(addr, true); err != nil {
			t.Errorf("CheckExposure(%q) with a token = %v", addr, err)
		}
	}
	// An address that cannot be listened on is refused, token or not,
	// before anything is opened, saying what to write.
	for addr, want := range map[string]string{
		"nonsense": "write HOST:PORT", "127.0.0.1:99999": "invalid port", "127.0.0.1:-1": "invalid port",
	} {
		for _, token := range []bool{false, true} {
			if err := serve.CheckExposure(addr, token); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("CheckExposure(%q, token %v) = %v, want %q", addr, token, err, want)
			}
		}
	}
	// Serve checks the address actually bound, whatever was asked for.
	srv, err := serve.New(nil, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ln, err := listenAny(); err == nil {
		defer ln.Close()
		if err := srv.Serve(ln); err == nil || !strings.Contains(err.Error(), "token") {
			t.Errorf("Serve on %s without a token = %v", ln.Addr(), err)
		}
	}
}

func TestLoadToken(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "token")
	os.WriteFile(good, []byte("  0123456789abcdef0123\n"), 0o600)
	open := filepath.Join(dir, "open")
	os.WriteFile(open, []byte("0123456789abcdef0123"), 0o644)
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("secret"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	env := func(v string) func(string) string { return func(string) string { return v } }

	if tok, warn, err := serve.LoadToken(good, env("ignored-when-a-file-is-given")); err != nil || tok != "0123456789abcdef0123" || warn != "" {
		t.Errorf("file: %q %q %v", tok, warn, err)
	}
	if _, warn, err := serve.LoadToken(open, env("")); err != nil || warn == "" {
		t.Errorf("world-readable file: warning %q, err %v", warn, err)
	}
	if tok, _, err := serve.LoadToken("", env("abcdefghijklmnopqrstuvwxyz")); err != nil || tok != "abcdefghijklmnopqrstuvwxyz" {
		t.Errorf("env: %q %v", tok, err)
	}
	if tok, _, err := serve.LoadToken("", env("")); err != nil || tok != "" {
		t.Errorf("none: %q %v", tok, err)
	}
	for _, f := range []string{short, empty, filepath.Join(dir, "missing")} {
		if _, _, err := serve.LoadToken(f, env("")); err == nil {
			t.Errorf("LoadToken(%s) accepted", filepath.Base(f))
		}
	}
	if _, _, err := serve.LoadToken("", env("short")); err == nil {
		t.Error("a short token from the environment was accepted")
	}
}

// TestNoSnapshotYet: before the first snapshot the data routes answer 503
// not_ready with Retry-After and what to run, the kind the Typed Graph
// plugin's sidecar client (packages/plugin/src/query/remote.ts) retries on
// (any other 503 it shows as "Ladybug is not available on the sidecar"),
// and GET /status answers 200 with state starting, as the sidecar's does.
func TestNoSnapshotYet(t *testing.T) {
	data := t.TempDir()
	ts := startServer(t, data, serverConfig{})
	if r := ts.get("/health"); r.status != 200 || r.object(t)["ready"] != false || r.object(t)["snapshot"] != nil {
		t.Errorf("GET /health = %d %s", r.status, r.body)
	}
	for _, req := range []request{
		{path: "/notes/Home.md"},
		{method: "POST", path: "/query", body: `{"query": "RETURN 1"}`},
		// The plugin's request, as runRemote sends it.
		{method: "POST", path: "/query", body: `{"query": "MATCH (n) RETURN n", "params": {}, "backend": "ladybug"}`},
		{method: "POST", path: "/search", body: `{"query": "x"}`},
		{method: "POST", path: "/retrieve", body: `{"question": "x"}`},
	} {
		r := ts.send(req)
		if r.status != 503 || r.errorKind() != "not_ready" || r.header.Get("Retry-After") == "" ||
			!strings.Contains(r.errorMessage(), "vaultgraph index") || r.header.Get("X-Snapshot-Id") != "" {
			t.Errorf("%s %s = %d %v %s", req.method, req.path, r.status, r.header, r.body)
		}
		if r.object(t)["snapshot"] != nil {
			t.Errorf("snapshot field = %v, want null", r.object(t)["snapshot"])
		}
	}
	r := ts.get("/status")
	st := r.object(t)
	if r.status != 200 || st["state"] != "starting" || st["snapshot"] != nil || st["notes"] != float64(0) ||
		st["lastSync"] != nil || st["mirror"] != nil || st["vectors"] != nil || st["embeddingModel"] != nil ||
		!strings.Contains(fmt.Sprint(st["message"]), "vaultgraph index") || st["vault"] == nil || r.header.Get("X-Snapshot-Id") != "" {
		t.Errorf("GET /status before the first snapshot = %d %s", r.status, r.body)
	}
	caps, _ := st["capabilities"].(map[string]any)
	if q, _ := caps["query"].(map[string]any); q == nil || q["available"] != false {
		t.Errorf("capabilities.query before the first snapshot = %v", q)
	}
	res, err := index(filepath.Join("..", "testdata", "demo-vault"), data)
	if err != nil {
		t.Fatal(err)
	}
	r = ts.post("/admin/reload", "")
	if r.status != 200 || r.object(t)["swapped"] != true || r.object(t)["snapshot"] != res.ID {
		t.Fatalf("POST /admin/reload = %d %s", r.status, r.body)
	}
	r = ts.get("/status")
	if st := r.object(t); r.status != 200 || st["state"] != "ready" || st["snapshot"] != res.ID || st["lastSync"] == nil {
		t.Errorf("GET /status after reload = %d %s", r.status, r.body)
	}
	if r := ts.post("/query", `{"query": "MATCH (n) RETURN count(n)", "params": {}, "backend": "ladybug"}`); r.status != 200 {
		t.Errorf("POST /query after reload = %d %s", r.status, r.body)
	}
}

// TestBadSnapshotIsRefused publishes a good snapshot, then a newer bad
// one: the bad one is refused with a reason, counted, not retried, and the
// good one keeps serving.
func TestBadSnapshotIsRefused(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	good, err := index(vault, data)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, data, serverConfig{store: store.Options{Verify: true}})
	os.WriteFile(filepath.Join(vault, "New.md"), []byte("A new note about [[Search]].\n"), 0o644)
	bad, err := index(vault, data)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(bad.Dir, "graph.kuzu")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0x55
	os.WriteFile(p, b, 0o644)

	r := ts.post("/admin/reload", "")
	var reload struct {
		Snapshot string
		Swapped  bool
		Rejected []struct{ ID, Reason string }
	}
	json.Unmarshal(r.body, &reload)
	if r.status != 200 || reload.Swapped || reload.Snapshot != good.ID || len(reload.Rejected) != 1 ||
		reload.Rejected[0].ID != bad.ID || !strings.Contains(reload.Rejected[0].Reason, "sha256") {
		t.Fatalf("POST /admin/reload = %d %s", r.status, r.body)
	}
	for range 2 {
		if r := ts.post("/admin/reload", ""); !strings.Contains(string(r.body), `"rejected":[]`) {
			t.Errorf("the bad snapshot was tried again: %s", r.body)
		}
	}
	if r := ts.post("/admin/reload?retry=true", ""); !strings.Contains(string(r.body), bad.ID) {
		t.Errorf("retry=true did not try the bad snapshot again: %s", r.body)
	}
	st := ts.get("/status")
	checkSnapshot(t, st, good.ID)
	if !strings.Contains(string(st.body), `"rejected":2`) || !strings.Contains(string(st.body), bad.ID) {
		t.Errorf("status does not report the rejection: %s", st.body)
	}
	if r := ts.get("/notes/New.md"); r.status != 404 {
		t.Errorf("a note only in the bad snapshot was served: %d", r.status)
	}
	if m := ts.get("/metrics"); !bytes.Contains(m.body, []byte("vaultgraph_snapshots_rejected_total 2")) {
		t.Error("metrics do not count the rejection")
	}
	if !strings.Contains(ts.logs.String(), "skipping a snapshot that does not open") {
		t.Error("the rejection was not logged")
	}
}

func TestQueryLimits(t *testing.T) {
	data, _ := demoData(t)
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	graph := withFakeGraph(func(ctx context.Context, req graphdb.Request) (*graphdb.Result, error) {
		switch req.Query {
		case "SLEEP":
			<-ctx.Done()
			return nil, &cypher.Error{Kind: cypher.KindTimeout, Message: "the query ran longer than its timeout"}
		case "BLOCK":
			started <- struct{}{}
			<-release
		case "BIG":
			rows := make([][]any, 100)
			for i := range rows {
				rows[i] = []any{strings.Repeat("x", 100)}
			}
			return &graphdb.Result{Columns: []graphdb.Column{{Name: "x", Type: "string"}}, Rows: rows, MaxRows: req.MaxRows}, nil
		case "LIMITS":
			return &graphdb.Result{Columns: []graphdb.Column{{Name: "t", Type: "int"}}, Rows: [][]any{{req.Timeout.Milliseconds(), req.MaxRows}}, MaxRows: req.MaxRows}, nil
		}
		return &graphdb.Result{Columns: []graphdb.Column{}, Rows: [][]any{}}, nil
	})
	ts := startServer(t, data, serverConfig{
		opts:  serve.Options{MaxHeavy: 1, HeavyWait: time.Millisecond, MaxResultBytes: 1000, QueryTimeout: 2 * time.Second, MaxRows: 50},
		store: store.Options{OpenGraph: graph},
	})

	r := ts.post("/query", `{"query": "SLEEP", "timeout_ms": 50}`)
	if r.status != 504 || r.errorKind() != "timeout" {
		t.Errorf("a query past its timeout = %d %s", r.status, r.body)
	}
	r = ts.post("/query", `{"query": "BIG"}`)
	var q struct {
		Rows        [][]string
		Truncated   bool
		TruncatedBy string `json:"truncated_by"`
	}
	json.Unmarshal(r.body, &q)
	if r.status != 200 || !q.Truncated || q.TruncatedBy != "bytes" || len(q.Rows) == 0 || len(q.Rows) >= 100 {
		t.Errorf("a result over the size limit = %d truncated %v by %q, %d rows", r.status, q.Truncated, q.TruncatedBy, len(q.Rows))
	}
	r = ts.post("/query", `{"query": "LIMITS", "timeout_ms": 999999, "max_rows": 999999}`)
	if !strings.Contains(string(r.body), `"rows":[[2000,50]]`) {
		t.Errorf("a request raised the server's limits: %s", r.body)
	}
	r = ts.post("/query", `{"query": "LIMITS", "timeout_ms": 100, "max_rows": 5}`)
	if !strings.Contains(string(r.body), `"rows":[[100,5]]`) {
		t.Errorf("a request could not lower the limits: %s", r.body)
	}

	// One slot: a second heavy request while the first runs gets 429.
	done := make(chan *response)
	go func() { done <- ts.post("/query", `{"query": "BLOCK"}`) }()
	<-started
	r = ts.post("/query", `{"query": "RETURN 1"}`)
	if r.status != 429 || r.errorKind() != "too_many_requests" || r.header.Get("Retry-After") == "" {
		t.Errorf("a query over the concurrency cap = %d %v %s", r.status, r.header, r.body)
	}
	if r := ts.post("/search", `{"query": "x"}`); r.status != 429 {
		t.Errorf("a search over the concurrency cap = %d", r.status)
	}
	if r := ts.get("/status"); r.status != 200 {
		t.Errorf("light routes are capped too: %d", r.status)
	}
	close(release)
	if r := <-done; r.status != 200 {
		t.Errorf("the blocked query = %d %s", r.status, r.body)
	}
	if m := ts.get("/metrics"); !bytes.Contains(m.body, []byte("vaultgraph_heavy_requests_rejected_total 2")) {
		t.Error("metrics do not count the rejected requests")
	}
}

func TestCapabilitiesUnavailable(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	// Tables only: no vectors, no graph.
	if _, err := indexerRunTablesOnly(vault, data); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, data, serverConfig{})
	for _, req := range []request{
		{method: "POST", path: "/query", body: `{"query": "MATCH (n) RETURN n"}`},
		{method: "POST", path: "/search", body: `{"query": "search"}`},
		{method: "POST", path: "/retrieve", body: `{"question": "who leads search?"}`},
	} {
		r := ts.send(req)
		if r.status != 501 || r.errorKind() != "not_implemented" || !strings.Contains(string(r.body), "index") {
			t.Errorf("%s = %d %s", req.path, r.status, r.body)
		}
	}
	if r := ts.get("/notes/People/Alice.md"); r.status != 200 {
		t.Errorf("notes without vectors or graph = %d", r.status)
	}
	if r := ts.post("/graph", `{"action": "backlinks", "sourcePath": "Alice"}`); r.status != 200 {
		t.Errorf("graph navigation without vectors or graph database = %d %s", r.status, r.body)
	}
	var st struct {
		Capabilities map[string]struct {
			Available bool
			Reason    string
		}
	}
	json.Unmarshal(ts.get("/status").body, &st)
	if st.Capabilities["query"].Available || st.Capabilities["query"].Reason == "" || st.Capabilities["search"].Available {
		t.Errorf("capabilities = %+v", st.Capabilities)
	}
}

func TestRequestIDsAndLogs(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{opts: serve.Options{AccessLog: true}})
	r := ts.send(request{path: "/notes/People/Alice.md", header: map[string]string{"X-Request-Id": "trace-42"}})
	if r.header.Get("X-Request-Id") != "trace-42" {
		t.Errorf("request id not echoed: %v", r.header)
	}
	r = ts.send(request{path: "/health", header: map[string]string{"X-Request-Id": "bad id!"}})
	if id := r.header.Get("X-Request-Id"); id == "" || strings.Contains(id, "bad") {
		t.Errorf("an invalid request id was kept: %q", id)
	}
	ts.post("/query", `{"query": "MATCH (n) WHERE n.title = 'Alice' RETURN n.title"}`)
	logs := ts.logs.String()
	if !strings.Contains(logs, "request_id=trace-42") || !strings.Contains(logs, "route=/notes/*") {
		t.Errorf("access log lacks the request id or route:\n%s", logs)
	}
	for _, secret := range []string{"Alice", "leads"} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain vault text %q:\n%s", secret, logs)
		}
	}
}

func TestCORS(t *testing.T) {
	data, _ := demoData(t)
	plain := startServer(t, data, serverConfig{})
	r := plain.send(request{path: "/status", header: map[string]string{"Origin": "https://app.example"}})
	if r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers without configured origins")
	}
	// A page of another origin cannot reach the server at all, not even
	// with a simple POST that CORS would let through unread.
	for _, req := range []request{
		{path: "/status"},
		{method: "POST", path: "/admin/reload"},
		{method: "POST", path: "/query", body: `{"query": "MATCH (n) RETURN count(n)"}`, header: map[string]string{"Content-Type": "text/plain"}},
		{method: "OPTIONS", path: "/query"},
	} {
		if req.header == nil {
			req.header = map[string]string{}
		}
		req.header["Origin"] = "https://evil.example"
		r := plain.send(req)
		if r.status != 403 || r.errorKind() != "forbidden" || !strings.Contains(string(r.body), "--cors-origin https://evil.example") {
			t.Errorf("%s %s from another origin: %d %s", req.method, req.path, r.status, r.body)
		}
	}
	// Its own origin (a page it served) and clients without Origin pass.
	if r := plain.send(request{path: "/status", header: map[string]string{"Origin": plain.url}}); r.status != 200 {
		t.Errorf("same origin: %d %s", r.status, r.body)
	}
	withCORS := startServer(t, data, serverConfig{opts: serve.Options{CORSOrigins: []string{"https://app.example"}}})
	r = withCORS.send(request{path: "/status", header: map[string]string{"Origin": "https://app.example"}})
	if r.header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("configured origin not allowed: %v", r.header)
	}
	r = withCORS.send(request{method: "OPTIONS", path: "/query", header: map[string]string{
		"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}})
	if r.status >= 300 {
		t.Errorf("preflight = %d", r.status)
	}
}

func TestMount(t *testing.T) {
	data, res := demoData(t)
	ts := startServer(t, data, serverConfig{opts: serve.Options{
		Token: "0123456789abcdef0123456789abcdef",
		Mounts: []serve.Mount{{Method: "POST", Path: "/mcp", Handler: func(c *serve.Ctx) error { return c.SendString("mcp") },
			Operation: []byte(`{"operationId": "mcp", "responses": {"200": {"description": "JSON-RPC"}}}`)}},
	}})
	if r := ts.send(request{method: "POST", path: "/mcp", noToken: true}); r.status != 401 {
		t.Errorf("a mounted route without the token = %d", r.status)
	}
	r := ts.post("/mcp", "{}")
	if r.status != 200 || string(r.body) != "mcp" || r.header.Get("X-Snapshot-Id") != res.ID {
		t.Errorf("POST /mcp = %d %s %v", r.status, r.body, r.header)
	}
	if !bytes.Contains(ts.get("/openapi.json").body, []byte(`"/mcp"`)) {
		t.Error("the mount is not in the OpenAPI document")
	}
}

func TestMountCannotReplaceARoute(t *testing.T) {
	_, err := serve.New(nil, serve.Options{Mounts: []serve.Mount{{Method: "POST", Path: "/query",
		Handler: func(*serve.Ctx) error { return nil }, Operation: []byte(`{}`)}}})
	if err == nil {
		t.Error("a mount replaced POST /query")
	}
}

func TestPanicIsAnInternalError(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{opts: serve.Options{Mounts: []serve.Mount{{
		Method: "GET", Path: "/boom", Handler: func(*serve.Ctx) error { panic("kaboom") },
		Operation: []byte(`{"operationId": "boom", "responses": {"500": {"description": "always"}}}`),
	}}}})
	r := ts.get("/boom")
	if r.status != 500 || r.errorKind() != "internal" || bytes.Contains(r.body, []byte("kaboom")) || bytes.Contains(r.body, []byte(".go:")) {
		t.Errorf("GET /boom = %d %s", r.status, r.body)
	}
	if !strings.Contains(ts.logs.String(), "kaboom") || !strings.Contains(ts.logs.String(), "request_id=") {
		t.Errorf("the panic is not in the log with its request id:\n%s", ts.logs.String())
	}
	if r := ts.get("/health"); r.status != 200 {
		t.Errorf("the server stopped answering after a panic: %d", r.status)
	}
}

// TestGracefulShutdown stops the server while a query runs: the query
// finishes, new connections are refused.
func TestGracefulShutdown(t *testing.T) {
	data, _ := demoData(t)
	started, release := make(chan struct{}), make(chan struct{})
	st, err := store.New(data, store.Options{OpenGraph: withFakeGraph(func(ctx context.Context, req graphdb.Request) (*graphdb.Result, error) {
		close(started)
		<-release
		return &graphdb.Result{Columns: []graphdb.Column{}, Rows: [][]any{{1}}}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	st.Refresh(context.Background())
	srv, err := serve.New(st, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, _ := listenLoopback()
	addr := ln.Addr().String()
	served := make(chan error)
	go func() { served <- srv.Serve(ln) }()
	done := make(chan *http.Response)
	go func() {
		resp, err := http.Post("http://"+addr+"/query", "application/json", strings.NewReader(`{"query": "x"}`))
		if err != nil {
			t.Error(err)
		}
		done <- resp
	}()
	<-started
	shut := make(chan error)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	eventually(t, "listener closed", func() bool {
		_, err := http.Get("http://" + addr + "/health")
		return err != nil
	})
	close(release)
	if resp := <-done; resp == nil || resp.StatusCode != 200 {
		t.Errorf("the request in flight = %v", resp)
	}
	if err := <-shut; err != nil {
		t.Error(err)
	}
	if err := <-served; err != nil {
		t.Error(err)
	}
	if err := st.Close(context.Background()); err != nil {
		t.Error(err)
	}
}
