package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// requestSchemas returns, from GET /openapi.json, the request body schema
// of every POST route that takes one, by path.
func requestSchemas(t *testing.T, ts *testServer) map[string]schema {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					}
				}
			} `json:"requestBody"`
		}
		Components struct{ Schemas map[string]schema }
	}
	if err := json.Unmarshal(ts.get("/openapi.json").body, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]schema{}
	for path, item := range doc.Paths {
		ref := item["post"].RequestBody.Content["application/json"].Schema.Ref
		if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok {
			out[path] = doc.Components.Schemas[name]
		}
	}
	return out
}

type schema struct {
	Required             []string
	AdditionalProperties *bool `json:"additionalProperties"`
	Properties           map[string]struct {
		Type    string
		Enum    []any
		Minimum *int
		Default any
	}
}

// validBodies are requests every route answers, to which the tests add one
// field at a time.
var validBodies = map[string]map[string]any{
	"/query":    {"query": "MATCH (n:Person) RETURN count(n)"},
	"/search":   {"query": "who funds the search project"},
	"/graph":    {"action": "neighbors", "sourcePath": "Search"},
	"/retrieve": {"question": "who funds the search project?"},
}

func with(base map[string]any, name string, v any) string {
	m := map[string]any{name: v}
	for k, x := range base {
		if k != name {
			m[k] = x
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestRequestFieldsMatchOpenAPI sends every field the OpenAPI document
// names for each route and requires it to be accepted, sends a field it
// does not name and requires a 400, and sends every integer field below
// its minimum (which every integer field must document) and requires a
// 400 naming it.
func TestRequestFieldsMatchOpenAPI(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	schemas := requestSchemas(t, ts)
	if len(schemas) != len(validBodies) {
		t.Errorf("routes with JSON bodies: %v, tested: %v", schemas, validBodies)
	}
	for path, sc := range schemas {
		base, ok := validBodies[path]
		if !ok {
			t.Errorf("POST %s takes a body this test does not know", path)
			continue
		}
		if sc.AdditionalProperties == nil || *sc.AdditionalProperties {
			t.Errorf("POST %s: the schema does not say additionalProperties false", path)
		}
		if r := ts.post(path, with(base, "no_such_field", 1)); r.status != 400 || !strings.Contains(r.errorMessage(), `unknown field "no_such_field"`) {
			t.Errorf("POST %s with an unknown field = %d %s", path, r.status, r.body)
		}
		for name, p := range sc.Properties {
			var sample any
			switch {
			case len(p.Enum) > 0:
				sample = p.Enum[0]
			case p.Default != nil:
				sample = p.Default
			case p.Type == "string":
				sample = "x"
			case p.Type == "integer":
				sample = 1
			case p.Type == "boolean":
				sample = true
			case p.Type == "array":
				sample = []string{"x"}
			case p.Type == "object":
				sample = map[string]any{}
			}
			r := ts.post(path, with(base, name, sample))
			if msg := r.errorMessage(); strings.Contains(msg, "unknown field") || strings.Contains(msg, name+" must be") {
				t.Errorf("POST %s refuses the documented field %s = %v: %d %s", path, name, sample, r.status, r.body)
			}
			if p.Type != "integer" {
				continue
			}
			if p.Minimum == nil {
				t.Errorf("POST %s: integer field %s documents no minimum", path, name)
				continue
			}
			// An older name's errors name the field it stands for.
			if canonical, ok := aliasOf(name); ok {
				name = canonical
			}
			r = ts.post(path, with(base, name, *p.Minimum-1))
			if r.status != 400 || !strings.Contains(r.errorMessage(), name) {
				t.Errorf("POST %s with %s = %d, below its minimum: %d %s", path, name, *p.Minimum-1, r.status, r.body)
			}
			r = ts.post(path, with(base, name, 2.5))
			if r.status != 400 || !strings.Contains(r.errorMessage(), name+" must be an integer, not 2.5") {
				t.Errorf("POST %s with %s = 2.5: %d %s", path, name, r.status, r.body)
			}
		}
	}
}

func TestUnknownFields(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	for _, tc := range []struct {
		path, body, message string
		line, col           int
	}{
		{"/search", `{"query": "x", "tpyes": ["Person"]}`, `unknown field "tpyes"; did you mean "types"?`, 1, 16},
		{"/search", "{\"query\": \"x\",\n \"target\": \"edges\",\n \"edgeTypes\": [\"funds\"]}", `unknown field "edgeTypes"; did you mean "edge_types"?`, 3, 2},
		{"/search", `{"query": "x", "Query": "y"}`, `unknown field "Query"; did you mean "query"?`, 1, 16},
		{"/search", `{"query": "x", "ef": 64}`, `unknown field "ef"; the search beam width is the server's setting (vaultgraph serve --ef)`, 1, 16},
		{"/search", `{"query": "x", "limit": 3}`, `unknown field "limit"; did you mean "k"?`, 1, 16},
		{"/graph", `{"action": "neighbors", "sourcePath": "Search", "edge_types": ["funds"]}`, `unknown field "edge_types"; did you mean "edgeTypes"?`, 1, 49},
		{"/graph", `{"action": "neighbors", "sourcePath": "Search", "types": ["funds"]}`, `unknown field "types"; did you mean "edgeTypes"?`, 0, 0},
		{"/retrieve", `{"query": "who funds search?"}`, `unknown field "query"; did you mean "question"?`, 1, 2},
		{"/retrieve", `{"question": "q", "max-chunks": 3}`, `unknown field "max-chunks"; did you mean "chunk_cap"?`, 0, 0},
		{"/query", `{"query": "RETURN 1", "timeout": 5}`, `unknown field "timeout"; did you mean "timeout_ms"?`, 0, 0},
		{"/query", `{"query": "RETURN 1", "zebra": 5}`, `unknown field "zebra"; the fields of this request are query, params, timeout_ms, max_rows`, 0, 0},
	} {
		r := ts.post(tc.path, tc.body)
		var e struct {
			Error struct {
				Kind, Message string
				Line, Column  int
			}
		}
		json.Unmarshal(r.body, &e)
		if r.status != 400 || e.Error.Kind != "bad_request" || !strings.HasPrefix(e.Error.Message, tc.message) {
			t.Errorf("POST %s %s = %d %s, want 400 %q", tc.path, tc.body, r.status, r.body, tc.message)
		}
		if tc.line != 0 && (e.Error.Line != tc.line || e.Error.Column != tc.col) {
			t.Errorf("POST %s %s: position %d:%d, want %d:%d", tc.path, tc.body, e.Error.Line, e.Error.Column, tc.line, tc.col)
		}
	}
}

// TestDuplicateMembers: a body that names a member twice, at the top or
// in a nested object, is a 400 naming the member and where its second
// copy is, instead of answered with the last copy; the same names in
// different objects, or in a list of objects, are not duplicates.
func TestDuplicateMembers(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	for _, tc := range []struct {
		path, body, message string
		line, col           int
	}{
		{"/search", `{"query": "x", "k": 3, "k": 5}`, "the request body sends k twice", 1, 24},
		{"/query", "{\"query\": \"RETURN $a\",\n \"params\": {\"a\": 1, \"a\": 2}}", "the request body sends params.a twice", 2, 21},
		{"/retrieve", `{"question": "q", "question": "who funds search?"}`, "the request body sends question twice", 1, 19},
	} {
		r := ts.post(tc.path, tc.body)
		var e struct {
			Error struct {
				Kind, Message string
				Line, Column  int
			}
		}
		json.Unmarshal(r.body, &e)
		if r.status != 400 || e.Error.Kind != "bad_request" || !strings.HasPrefix(e.Error.Message, tc.message) ||
			e.Error.Line != tc.line || e.Error.Column != tc.col {
			t.Errorf("POST %s %s = %d %s, want 400 %q at %d:%d", tc.path, tc.body, r.status, r.body, tc.message, tc.line, tc.col)
		}
	}
	if r := ts.post("/query", `{"query": "RETURN $a.k, $b[0].k, $b[1].k AS c", "params": {"a": {"k": 1}, "b": [{"k": 2}, {"k": 3}]}}`); r.status != 200 {
		t.Errorf("one name in different objects: %d %s", r.status, r.body)
	}
}

func TestSearchFilters(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	type hit struct{ ID, Source, Target, Type string }
	search := func(body string) (*response, []hit) {
		t.Helper()
		r := ts.post("/search", body)
		var s struct {
			Target string
			Hits   []hit `json:"results"`
		}
		if err := json.Unmarshal(r.body, &s); err != nil {
			t.Fatalf("%s: %v", r.body, err)
		}
		return r, s.Hits
	}
	// types are note labels for edges too, as in vaultgraph search --types:
	// Acme is a Company, and funds the Search project.
	r, hits := search(`{"query": "funds", "target": "edges", "types": ["Company"], "k": 5}`)
	funds := 0
	for _, h := range hits {
		if h.Type == "funds" && h.Source == "Companies/Acme.md" {
			funds++
		}
	}
	if r.status != 200 || funds == 0 {
		t.Errorf("edges by the label of an end = %d %s", r.status, r.body)
	}
	if r, hits := search(`{"query": "funds", "target": "edges", "labels": ["Company"], "k": 5}`); r.status != 200 || len(hits) == 0 {
		t.Errorf("labels, the older name of types = %d %s", r.status, r.body)
	}
	r, hits = search(`{"query": "who funds the search project", "target": "edges", "edge_types": ["funds"], "k": 5}`)
	if r.status != 200 || len(hits) == 0 {
		t.Fatalf("edge_types = %d %s", r.status, r.body)
	}
	for _, h := range hits {
		if h.Type != "funds" {
			t.Errorf("edge_types funds returned a %s edge", h.Type)
		}
	}
	// The old meaning of types on edges is refused with the way out.
	r, _ = search(`{"query": "who funds search", "target": "edges", "types": ["funds"]}`)
	if r.status != 400 || !strings.Contains(r.errorMessage(), `"edge_types": ["funds"]`) {
		t.Errorf("types naming an edge type = %d %s", r.status, r.body)
	}
	r, _ = search(`{"query": "who funds search", "edge_types": ["funds"]}`)
	if r.status != 400 || !strings.Contains(r.errorMessage(), `"target": "edges"`) {
		t.Errorf("edge_types on notes = %d %s", r.status, r.body)
	}
	for _, target := range []string{"", "notes", "nodes", "Notes"} {
		body := `{"query": "search project", "types": ["Project"]}`
		if target != "" {
			body = fmt.Sprintf(`{"query": "search project", "types": ["Project"], "target": %q}`, target)
		}
		r := ts.post("/search", body)
		if r.status != 200 || r.object(t)["target"] != "nodes" || !strings.Contains(string(r.body), `"Projects/Search.md"`) {
			t.Errorf("target %q = %d %.300s", target, r.status, r.body)
		}
	}
	if r := ts.post("/search", `{"query": "x", "target": "pages"}`); r.status != 400 || !strings.Contains(r.errorMessage(), "nodes, chunks or edges") {
		t.Errorf("unknown target = %d %s", r.status, r.body)
	}
}

func TestSearchNumbers(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	count := func(body string) (*response, int) {
		t.Helper()
		r := ts.post("/search", body)
		var s struct {
			Hits []any `json:"results"`
		}
		json.Unmarshal(r.body, &s)
		return r, len(s.Hits)
	}
	if r, n := count(`{"query": "project", "target": "chunks"}`); r.status != 200 || n != 10 {
		t.Errorf("k left out = %d, %d hits, want 10", r.status, n)
	}
	if r, n := count(`{"query": "project", "target": "chunks", "k": null}`); r.status != 200 || n != 10 {
		t.Errorf("k null = %d, %d hits, want 10", r.status, n)
	}
	if r, n := count(`{"query": "project", "target": "chunks", "k": 1}`); r.status != 200 || n != 1 {
		t.Errorf("k 1 = %d, %d hits", r.status, n)
	}
	for body, want := range map[string]string{
		`{"query": "x", "k": 0}`:                      "k must be between 1 and 100, not 0",
		`{"query": "x", "k": -1}`:                     "k must be between 1 and 100, not -1",
		`{"query": "x", "k": 101}`:                    "k must be between 1 and 100, not 101",
		`{"query": "x", "k": 2.5}`:                    "k must be an integer, not 2.5",
		`{"query": "x", "k": 1e3}`:                    "k must be an integer, not 1e3",
		`{"query": "x", "k": 99999999999999999999}`:   "k must be an integer of at most 64 bits",
		`{"query": "x", "k": "ten"}`:                  "k must be an integer, not a JSON string",
		`{"query": "x", "timeout_ms": 0}`:             "timeout_ms must be at least 1, not 0",
		`{"query": "x", "max_rows": -3}`:              "max_rows must be at least 1, not -3",
		`{"query": "x", "ef": -5}`:                    `unknown field "ef"`,
		`{"query": "x", "types": "Person"}`:           "types must be an array, not a JSON string",
		`{"query": "x", "timeout_ms": 9999999999999}`: "", // lowered to the server's
	} {
		r := ts.post("/search", body)
		switch {
		case want == "" && r.status != 200:
			t.Errorf("%s = %d %s", body, r.status, r.body)
		case want != "" && (r.status != 400 || !strings.Contains(r.errorMessage(), want)):
			t.Errorf("%s = %d %s, want 400 %q", body, r.status, r.body, want)
		}
	}
	if r := ts.post("/retrieve", `{"question": "who funds search?", "k": 51}`); r.status != 400 || !strings.Contains(r.errorMessage(), "between 1 and 50") {
		t.Errorf("retrieve k over its limit = %d %s", r.status, r.body)
	}
	if r := ts.post("/retrieve", `{"question": "who funds search?", "depth": 0}`); r.status != 200 {
		t.Errorf("retrieve depth 0 = %d %s", r.status, r.body)
	}
}

// TestOutOfMemory runs a query whose variable-length paths fill the graph
// engine's buffer pool: the answer is a 503 to retry, with what to change
// if it fails again, not a 400 blaming the query.
func TestOutOfMemory(t *testing.T) {
	data, res := demoData(t)
	ts := startServer(t, data, serverConfig{store: store.Options{GraphDB: graphdb.Options{BufferPoolSize: 16 << 20}}})
	for _, path := range []string{"/query", "/search"} {
		body := `{"query": "MATCH p=(a)-[*1..10]->(b) RETURN count(p)"}`
		if path == "/search" {
			body = `{"query": "search", "then": "MATCH p=(a)-[*1..10]->(b) WHERE a.id IN $hits RETURN count(p)"}`
		}
		r := ts.post(path, body)
		if r.status != 503 || r.errorKind() != "out_of_memory" || r.header.Get("Retry-After") == "" {
			t.Fatalf("POST %s = %d %v %s", path, r.status, r.header, r.body)
		}
		for _, want := range []string{"--graph-memory", "variable-length", "fewer queries", "16 MiB"} {
			if !strings.Contains(r.errorMessage(), want) {
				t.Errorf("POST %s: the message lacks %q: %s", path, want, r.errorMessage())
			}
		}
		checkSnapshot(t, r, res.ID)
	}
	if r := ts.post("/query", `{"query": "MATCH (n:Person) RETURN count(n)"}`); r.status != 200 {
		t.Errorf("a query after the engine ran out of memory = %d %s", r.status, r.body)
	}
}

func TestContentType(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{opts: serve.Options{Mounts: []serve.Mount{
		{Method: "POST", Path: "/rpc", Handler: func(c *serve.Ctx) error { return c.SendString("rpc") },
			Operation: []byte(`{"operationId": "rpc", "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}}, "responses": {"200": {"description": "ok"}}}`)},
		{Method: "POST", Path: "/raw", Handler: func(c *serve.Ctx) error { return c.SendString("raw") },
			Operation: []byte(`{"operationId": "raw", "responses": {"200": {"description": "ok"}}}`)},
	}}})
	body := `{"query": "MATCH (n:Person) RETURN count(n)"}`
	for ct, want := range map[string]int{
		"application/json":                200,
		"application/json; charset=utf-8": 200,
		"Application/JSON; charset=UTF-8": 200,
		// What curl -d, fetch with a string body and bare clients send.
		"":                                  200,
		"text/plain":                        200,
		"text/plain;charset=UTF-8":          200,
		"application/x-www-form-urlencoded": 200,
		"text/plain; charset=latin1":        415,
		"text/html":                         415,
		"multipart/form-data; boundary=x":   415,
		"application/json; charset=latin1":  415,
		"application/jsonx":                 415,
		"application/json garbage":          415,
	} {
		r := ts.send(request{method: "POST", path: "/query", body: body, header: map[string]string{"Content-Type": ct}})
		if r.status != want {
			t.Errorf("Content-Type %q: %d %s, want %d", ct, r.status, r.body, want)
		}
		if want == 415 && (r.errorKind() != "unsupported_media_type" || !strings.Contains(r.errorMessage(), "Content-Type: application/json")) {
			t.Errorf("Content-Type %q: %s", ct, r.body)
		}
	}
	// A browser's request for a page (Sec-Fetch-Site says so) must say
	// application/json, which no page can send across origins without a
	// preflight.
	for _, path := range []string{"/query", "/search", "/graph", "/retrieve", "/rpc"} {
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", ""} {
			r := ts.send(request{method: "POST", path: path, body: `{}`, header: map[string]string{"Content-Type": ct, "Sec-Fetch-Site": "cross-site"}})
			if r.status != 415 || r.errorKind() != "unsupported_media_type" {
				t.Errorf("POST %s as %q from a browser = %d %s", path, ct, r.status, r.body)
			}
		}
	}
	if r := ts.send(request{method: "POST", path: "/query", body: body, header: map[string]string{"Content-Type": "text/plain", "Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "cors"}}); r.status != 200 {
		t.Errorf("a program's request with Sec-Fetch-Mode (undici) = %d %s", r.status, r.body)
	}
	// A body saved by a Windows tool starts with a byte-order mark.
	if r := ts.send(request{method: "POST", path: "/query", body: "\ufeff" + body, header: map[string]string{"Content-Type": "application/json"}}); r.status != 200 {
		t.Errorf("a body with a byte-order mark = %d %s", r.status, r.body)
	}
	if r := ts.post("/rpc", `{}`); r.status != 200 || string(r.body) != "rpc" {
		t.Errorf("a JSON mount with JSON = %d %s", r.status, r.body)
	}
	// A mount whose operation declares no JSON body, and /admin/reload,
	// which takes none, are left alone.
	if r := ts.send(request{method: "POST", path: "/raw", body: "x", header: map[string]string{"Content-Type": "text/plain"}}); r.status != 200 {
		t.Errorf("a mount without a JSON body = %d %s", r.status, r.body)
	}
	if r := ts.send(request{method: "POST", path: "/admin/reload", header: map[string]string{"Content-Type": ""}}); r.status != 200 {
		t.Errorf("POST /admin/reload without a body = %d %s", r.status, r.body)
	}
	var doc struct {
		Paths map[string]map[string]struct{ Responses map[string]any }
	}
	json.Unmarshal(ts.get("/openapi.json").body, &doc)
	if doc.Paths["/rpc"]["post"].Responses["415"] == nil || doc.Paths["/raw"]["post"].Responses["415"] != nil {
		t.Errorf("415 documented on /rpc %v, /raw %v", doc.Paths["/rpc"]["post"].Responses, doc.Paths["/raw"]["post"].Responses)
	}
}

func TestHead(t *testing.T) {
	data, res := demoData(t)
	ts := startServer(t, data, serverConfig{})
	for _, path := range []string{"/health", "/status", "/notes/Projects/Search.md", "/metrics", "/openapi.json"} {
		get := ts.get(path)
		head := ts.send(request{method: http.MethodHead, path: path})
		if head.status != get.status || len(head.body) != 0 || head.header.Get("Content-Type") != get.header.Get("Content-Type") ||
			head.header.Get("X-Snapshot-Id") != res.ID {
			t.Errorf("HEAD %s = %d %v %q; GET = %d", path, head.status, head.header, head.body, get.status)
		}
	}
	if r := ts.send(request{method: http.MethodHead, path: "/notes/Nope.md"}); r.status != 404 {
		t.Errorf("HEAD of a missing note = %d", r.status)
	}
	if r := ts.send(request{method: http.MethodHead, path: "/query"}); r.status != 405 {
		t.Errorf("HEAD /query = %d", r.status)
	}
	m := ts.get("/metrics")
	if !strings.Contains(string(m.body), `vaultgraph_http_requests_total{method="HEAD",route="/health",status="200"} 1`) {
		t.Errorf("HEAD is not counted under its route:\n%s", grepLines(m.body, `method="HEAD"`))
	}
}

// TestOutOfMemoryStatus checks the mapping alone, on a graph that always
// runs out of memory.
func TestOutOfMemoryStatus(t *testing.T) {
	data, _ := demoData(t)
	graph := withFakeGraph(func(ctx context.Context, req graphdb.Request) (*graphdb.Result, error) {
		return nil, &graphdb.Error{Kind: graphdb.KindOutOfMemory, Message: "the graph engine ran out of memory."}
	})
	ts := startServer(t, data, serverConfig{store: store.Options{OpenGraph: graph}})
	r := ts.post("/query", `{"query": "MATCH (n) RETURN n"}`)
	if r.status != 503 || r.errorKind() != "out_of_memory" || r.header.Get("Retry-After") != "2" || !strings.Contains(r.errorMessage(), "--graph-memory") {
		t.Errorf("POST /query = %d %v %s", r.status, r.header, r.body)
	}
}

// aliasOf returns the field an older name stands for.
func aliasOf(name string) (string, bool) {
	for _, aliases := range serve.FieldAliases {
		if c, ok := aliases[name]; ok {
			return c, true
		}
	}
	return "", false
}
