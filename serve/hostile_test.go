package serve_test

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
)

// nestedJSON is a JSON list nested depth deep around 1.
func nestedJSON(depth int) string {
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

// TestNestedParameters sends the 2 KB request that made the graph engine
// crash (a parameter nested 1,000 deep) to /query and, as search params,
// to /search: each is a 400 naming the limit, and the server keeps
// answering queries.
func TestNestedParameters(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	for _, c := range []struct{ path, body string }{
		{"/query", `{"query": "RETURN $p AS x", "params": {"p": ` + nestedJSON(1000) + `}}`},
		{"/query", `{"query": "RETURN 1 AS x", "params": {"unused": ` + nestedJSON(500) + `}}`},
		{"/search", `{"query": "search", "then": "RETURN $p AS x", "params": {"p": ` + nestedJSON(1000) + `}}`},
	} {
		r := ts.post(c.path, c.body)
		if r.status != 400 || !strings.Contains(r.errorMessage(), "nested more than 32 lists or maps deep") {
			t.Errorf("POST %s with a nested parameter = %d %s", c.path, r.status, r.body)
		}
	}
	r := ts.post("/query", `{"query": "RETURN $p AS x", "params": {"p": `+nestedJSON(3)+`}}`)
	if r.status != 200 || !strings.Contains(string(r.body), "[[[1]]]") {
		t.Errorf("a query after the refused ones = %d %s", r.status, r.body)
	}
}

// TestNoHostHeaderIsRefused sends HTTP/1.0 requests without a Host header
// to a token-less server, which only the Host header guards against DNS
// rebinding: 403 saying what to send; /health still answers.
func TestNoHostHeaderIsRefused(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	addr := strings.TrimPrefix(ts.url, "http://")
	for path, want := range map[string]string{"/status": "403", "/health": "200"} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.0\r\n\r\n", path)
		b, err := io.ReadAll(conn)
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		status, _, _ := strings.Cut(string(b), "\r\n")
		if !strings.Contains(status, " "+want+" ") {
			t.Errorf("GET %s without Host: %q, want %s", path, b, want)
		}
		if want == "403" && !strings.Contains(string(b), "no Host header") {
			t.Errorf("GET %s without Host: %q does not say why", path, b)
		}
	}
}

// TestLargeSkipAfterOrderBy sends the SKIPs after ORDER BY that ended the
// server inside the graph engine (SIGSEGV; the server runs in this test's
// process): in the final RETURN they are answered (no rows here), before
// it each is a 400 naming the limit, and the server keeps answering
// queries.
func TestLargeSkipAfterOrderBy(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	for _, body := range []string{
		`{"query": "MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP 1000000000000"}`,
		`{"query": "MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP $s", "params": {"s": 2147483647}}`,
	} {
		r := ts.post("/query", body)
		if r.status != 200 || !strings.Contains(string(r.body), `"rows":[]`) {
			t.Errorf("POST /query %s = %d %s, want no rows", body, r.status, r.body)
		}
	}
	body := `{"query": "MATCH (n) WITH n ORDER BY n.title SKIP 100000 RETURN n.title"}`
	if r := ts.post("/query", body); r.status != 400 || !strings.Contains(r.errorMessage(), "is more than 8191, the most the engine can skip safely") {
		t.Errorf("POST /query %s = %d %s", body, r.status, r.body)
	}
	r := ts.post("/query", `{"query": "MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP 2 LIMIT 1"}`)
	if r.status != 200 || !strings.Contains(string(r.body), `"rows"`) {
		t.Errorf("a query after the refused ones = %d %s", r.status, r.body)
	}
}
