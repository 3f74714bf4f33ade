package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Clients and prompts written for the Typed Graph sidecar
// (github.com/Volland/obsigraph) and for the obsidian-mcp-plugin's graph
// tool, replayed unchanged against vaultgraph: the requests as the peers'
// READMEs and examples write them, and the fields their clients read.

// sidecarPost sends body as curl -d sends it (no Content-Type of JSON),
// with the bearer token, and decodes the answer.
func sidecarPost(t *testing.T, addr, path, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+mcpToken)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(out); err != nil {
		t.Fatalf("POST %s %s: %d %s", path, body, resp.StatusCode, b)
	}
	return resp.StatusCode
}

func TestSidecarRequestsOverHTTP(t *testing.T) {
	srv := startServer(t, mcpDemo(t), []string{"VAULTGRAPH_TOKEN=" + mcpToken})

	// README: POST /query takes {query, params, backend}; results {columns, rows}.
	var q struct {
		Columns []struct{ Name, Kind string }
		Rows    [][]any
	}
	if code := sidecarPost(t, srv.addr, "/query", `{"query":"MATCH (n:Person) RETURN n.title"}`, &q); code != 200 ||
		len(q.Columns) != 1 || q.Columns[0].Name != "n.title" || q.Columns[0].Kind != "scalar" || len(q.Rows) != 8 {
		t.Errorf("/query: %d %+v", code, q)
	}
	for _, backend := range []string{"builtin", "ladybug"} {
		if code := sidecarPost(t, srv.addr, "/query", `{"query": "UNWIND [1, 2, 3] AS x RETURN sum(x) AS s", "params": {}, "backend": "`+backend+`"}`, &q); code != 200 ||
			len(q.Rows) != 1 || q.Rows[0][0] != 6.0 {
			t.Errorf("/query with backend %s: %d %+v", backend, code, q)
		}
	}
	var graph struct {
		Columns []struct{ Name, Kind string }
		Rows    [][]struct {
			Type, ID, Source, Target string
			Sign                     int
			Stub                     *bool
			Labels                   []string
		}
	}
	sidecarPost(t, srv.addr, "/query", `{"query": "MATCH (a:Person)-[r:distrusts]->(b) RETURN a, r, b"}`, &graph)
	if len(graph.Rows) == 0 || graph.Columns[0].Kind != "node" || graph.Columns[1].Kind != "relationship" {
		t.Fatalf("nodes and relationships: %+v", graph)
	}
	a, r := graph.Rows[0][0], graph.Rows[0][1]
	if a.Stub == nil || *a.Stub || r.Sign != -1 || r.Source != a.ID || r.Target == "" || r.Type != "distrusts" {
		t.Errorf("node %+v, relationship %+v", a, r)
	}
	var e struct {
		Error struct{ Kind, Message string }
	}
	if code := sidecarPost(t, srv.addr, "/query", `{"query": "CREATE (n:Person {title: 'Zed'})"}`, &e); code != 400 || e.Error.Kind != "readonly" {
		t.Errorf("write: %d %+v", code, e)
	}
	if code := sidecarPost(t, srv.addr, "/query", `{"query": "MATCH (n) RETURN n", "backend": "neo4j"}`, &e); code != 400 || !strings.Contains(e.Error.Message, "builtin") {
		t.Errorf("unknown backend: %d %+v", code, e)
	}

	// README: POST /search with target, k, types and then.
	var s struct {
		Target  string
		Stale   bool
		Results []struct {
			ID, Title string
			Score     float64
			Labels    []string
			Citation  struct{ Path, Heading, Text string }
		}
		Then *struct {
			Columns []struct{ Name, Kind string }
			Rows    [][]any
		}
	}
	body := `{"query": "machine learning", "target": "nodes", "k": 5, "types": ["Person"], "then": "MATCH (p)-[:works_at]->(c) WHERE id(p) IN $hits RETURN c.title"}`
	if code := sidecarPost(t, srv.addr, "/search", body, &s); code != 200 || s.Target != "nodes" || len(s.Results) == 0 || s.Then == nil || len(s.Then.Rows) == 0 {
		t.Fatalf("/search with then: %d %+v", code, s)
	}
	for _, h := range s.Results {
		if h.ID == "" || h.Title == "" || h.Score == 0 || !slices.Contains(h.Labels, "Person") || h.Citation.Path != h.ID || h.Citation.Text == "" {
			t.Errorf("node result %+v", h)
		}
	}
	if s.Then.Columns[0].Name != "c.title" {
		t.Errorf("then columns %+v", s.Then.Columns)
	}
	for _, mode := range []string{"best", "pooled"} {
		if code := sidecarPost(t, srv.addr, "/search", `{"query": "who works on ranking?", "target": "nodes", "k": 5, "mode": "`+mode+`"}`, &s); code != 200 || len(s.Results) != 5 {
			t.Errorf("/search mode %s: %d %+v", mode, code, s)
		}
	}
	var es struct {
		Results []struct {
			ID, Sentence, Source, Target string
			Score                        float64
			Citation                     struct{ Path, Heading string }
		}
	}
	if code := sidecarPost(t, srv.addr, "/search", `{"query": "who funds search", "target": "edges", "k": 3}`, &es); code != 200 || len(es.Results) != 3 {
		t.Fatalf("/search edges: %d %+v", code, es)
	}
	for _, h := range es.Results {
		if h.ID == "" || h.Sentence == "" || h.Source == "" || h.Target == "" || h.Citation.Path != h.Source {
			t.Errorf("edge result %+v", h)
		}
	}

	// The guide: POST /retrieve with k and depth, and the caps.
	var rr struct {
		Question string
		Chunks   []struct {
			Path, Heading, Text, Role, Node string
			Score                           float64
			Distance                        *int
		}
		Edges []struct {
			ID, Type, Source, Target, Sentence, Role string
			Sign                                     int
		}
		Truncated bool
		Notice    string
	}
	body = `{"question": "what does Search depend on?", "k": 5, "depth": 1, "neighbor_cap": 8, "chunk_cap": 20}`
	if code := sidecarPost(t, srv.addr, "/retrieve", body, &rr); code != 200 || len(rr.Chunks) == 0 || len(rr.Chunks) > 20 || len(rr.Edges) == 0 || rr.Notice == "" {
		t.Fatalf("/retrieve: %d %+v", code, rr)
	}
	hit, neighbour := false, false
	for _, c := range rr.Chunks {
		if c.Path == "" || c.Node != c.Path || c.Text == "" || c.Distance == nil || (c.Role != "hit" && c.Role != "neighbor") {
			t.Errorf("chunk %+v", c)
			continue
		}
		hit = hit || c.Role == "hit" && *c.Distance == 0
		neighbour = neighbour || c.Role == "neighbor" && *c.Distance > 0
	}
	for _, e := range rr.Edges {
		if e.ID == "" || e.Type == "" || (e.Sign != 1 && e.Sign != -1) || e.Source == "" || e.Target == "" || e.Role == "" {
			t.Errorf("edge %+v", e)
		}
	}
	if !hit || !neighbour {
		t.Errorf("hits %v, neighbours %v", hit, neighbour)
	}
	if code := sidecarPost(t, srv.addr, "/retrieve", `{"question": "x", "chunk_cap": 2, "max_chunks": 3}`, &e); code != 400 || !strings.Contains(e.Error.Message, "not both") {
		t.Errorf("both names of a cap: %d %+v", code, e)
	}

	// GET /status: the fields a sidecar client reads.
	req, _ := http.NewRequest(http.MethodGet, "http://"+srv.addr+"/status", nil)
	req.Header.Set("Authorization", "Bearer "+mcpToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	for _, f := range []string{"state", "notes", "edges", "pending", "lastSync", "frontmatterErrors", "mirror", "vectors", "embeddingModel"} {
		if _, ok := st[f]; !ok {
			t.Errorf("/status has no %s: %v", f, st)
		}
	}
	if st["state"] != "ready" || st["notes"] != 31.0 || st["vectors"].(map[string]any)["state"] != "ready" || st["mirror"].(map[string]any)["state"] != "ready" {
		t.Errorf("/status %v", st)
	}

	// The obsidian-mcp-plugin's documented graph calls, on POST /graph.
	var g struct {
		Operation string
		Nodes     []struct {
			Path, Title, Type string
			Tags              []string
			Links             struct{ Forward, Backward, Total int }
		}
		Edges []struct {
			Source, Target, Type string
			Count                int
		}
		Paths      [][]string
		GraphStats struct{ TotalNodes, TotalEdges int }
		Message    string
	}
	for _, body := range []string{
		`{"action": "backlinks", "sourcePath": "Projects/Search.md", "maxDepth": 1}`,
		`{"operation": "graph", "action": "traverse", "sourcePath": "Projects/Search.md", "maxDepth": 3, "maxNodes": 50, "followBacklinks": true, "followForwardLinks": true, "followTags": true}`,
		`{"action": "neighbors", "sourcePath": "Projects/Search.md", "includeUnresolved": false}`,
	} {
		if code := sidecarPost(t, srv.addr, "/graph", body, &g); code != 200 || len(g.Nodes) == 0 || len(g.Edges) == 0 || g.Message == "" || g.GraphStats.TotalNodes == 0 {
			t.Fatalf("/graph %s: %d %+v", body, code, g)
		}
		// Every example here leaves out missing notes (includeUnresolved
		// false, or a walk), as the plugin does.
		for _, n := range g.Nodes {
			if n.Path == "" || n.Title == "" || n.Type != "file" || n.Tags == nil || n.Links.Total != n.Links.Forward+n.Links.Backward {
				t.Errorf("%s: node %+v", body, n)
			}
		}
		for _, e := range g.Edges {
			if e.Type == "links_to" || e.Type == "embeds" || e.Count < 1 {
				t.Errorf("%s: edge %+v", body, e)
			}
		}
	}
	if code := sidecarPost(t, srv.addr, "/graph", `{"action": "path", "sourcePath": "People/Mallory.md", "targetPath": "Projects/Crawler.md"}`, &g); code != 200 || len(g.Paths) == 0 {
		t.Errorf("/graph path: %d %+v", code, g)
	}
}

// TestPeerPromptsOverMCP replays the sidecar's three MCP tools and the
// plugin's graph tool examples with the official MCP client.
func TestPeerPromptsOverMCP(t *testing.T) {
	data := mcpDemo(t)
	o := mcpRun(t, stdioTransport(data),
		mcpStep{"op": "init"},
		call("cypher_query", map[string]any{"query": "MATCH (p:Person)-[r:works_at]->(c) RETURN p, r, c", "params": map[string]any{}, "backend": "builtin"}),
		call("vector_search", map[string]any{"query": "who funds search", "target": "nodes", "k": 5, "types": []string{"Company"}}),
		call("vector_search", map[string]any{"query": "who funds search", "target": "edges", "k": 3}),
		call("graphrag_retrieve", map[string]any{"question": "What does the Search project depend on?", "k": 5, "depth": 1, "neighbor_cap": 8, "chunk_cap": 20}),
		call("graph", map[string]any{"action": "neighbors", "sourcePath": "Projects/Search.md", "includeUnresolved": false}),
		call("graph", map[string]any{"action": "traverse", "sourcePath": "Projects/Search.md", "maxDepth": 3, "maxNodes": 50,
			"followBacklinks": true, "followForwardLinks": true, "followTags": true}),
		call("graph", map[string]any{"action": "path", "sourcePath": "People/Mallory.md", "targetPath": "Projects/Crawler.md"}),
		call("graph", map[string]any{"action": "statistics"}),
		call("graph", map[string]any{"action": "statistics", "sourcePath": "Projects/Search.md"}),
		call("graph", map[string]any{"action": "backlinks", "sourcePath": "Projects/Search.md", "maxDepth": 1}),
		call("graph", map[string]any{"operation": "graph", "action": "forwardlinks", "sourcePath": "Projects/Search.md", "raw": true}),
		call("graph", map[string]any{"action": "traverse", "sourcePath": "Projects/Search.md", "maxDepth": 2, "fileFilter": "^People/", "folderFilter": "People"}),
	)
	next := func() mcpOutcome { o = o[1:]; return o[0] }
	var cy struct {
		Columns []struct{ Name, Kind string }
		Rows    [][]struct {
			ID, Type, Source, Target string
			Sign                     int
		}
	}
	callOutcome(t, next(), &cy)
	if len(cy.Rows) == 0 || cy.Columns[1].Kind != "relationship" || cy.Rows[0][1].Type != "works_at" || cy.Rows[0][1].Source != cy.Rows[0][0].ID || cy.Rows[0][1].Sign != 1 {
		t.Errorf("cypher_query: %+v", cy)
	}
	var vs struct {
		Target  string
		Results []struct {
			ID, Title, Sentence string
			Labels              []string
			Citation            struct{ Path, Heading, Text string }
		}
	}
	callOutcome(t, next(), &vs)
	if vs.Target != "nodes" || len(vs.Results) == 0 || !slices.Contains(vs.Results[0].Labels, "Company") || vs.Results[0].Citation.Path == "" {
		t.Errorf("vector_search nodes: %+v", vs)
	}
	callOutcome(t, next(), &vs)
	if len(vs.Results) != 3 || vs.Results[0].Sentence == "" || vs.Results[0].Citation.Path == "" {
		t.Errorf("vector_search edges: %+v", vs)
	}
	var rr struct {
		Chunks []struct {
			Path, Role string
			Distance   *int
		}
		Edges []struct{ ID, Source, Target, Type, Role string }
	}
	callOutcome(t, next(), &rr)
	if len(rr.Chunks) == 0 || len(rr.Chunks) > 20 || rr.Chunks[0].Distance == nil || len(rr.Edges) == 0 {
		t.Errorf("graphrag_retrieve: %+v", rr)
	}
	type graphOut struct {
		Operation string
		Nodes     []struct {
			Path, Title, Type string
			Tags              []string
			Links             *struct{ Forward, Backward, Total int }
		}
		Edges []struct {
			Source, Target, Type string
			Count                int
		}
		Paths           [][]string
		Statistics      *struct{ InDegree, OutDegree, TotalDegree, UnresolvedCount, TagCount int }
		VaultStatistics *struct{ Orphans []string }
		GraphStats      *struct{ TotalNodes, TotalEdges int }
		Message         string
	}
	for _, want := range []string{"neighbors", "traverse", "path", "statistics", "statistics", "backlinks", "forwardlinks", "traverse"} {
		var g graphOut
		text := callOutcome(t, next(), &g)
		if g.Operation != want || g.Message == "" || g.GraphStats == nil {
			t.Errorf("graph %s: %+v", want, g)
			continue
		}
		// Lists show missing notes (type stub) unless includeUnresolved is
		// false; the other answers hold notes only.
		for _, n := range g.Nodes {
			if n.Path == "" || n.Title == "" || !(n.Type == "file" || n.Type == "stub" && want == "forwardlinks") || n.Tags == nil || n.Links == nil {
				t.Errorf("graph %s: node %+v", want, n)
			}
		}
		for _, e := range g.Edges {
			if e.Source == "" || e.Target == "" || e.Type == "links_to" || e.Type == "embeds" || e.Count < 1 {
				t.Errorf("graph %s: edge %+v", want, e)
			}
		}
		switch {
		case want == "path" && (len(g.Paths) == 0 || g.Paths[0][0] != "People/Mallory.md"):
			t.Errorf("path %+v", g.Paths)
		case want == "statistics" && g.Statistics == nil && g.VaultStatistics == nil:
			t.Errorf("statistics %+v", g)
		case want == "backlinks" && len(g.Nodes) == 0:
			t.Errorf("backlinks %+v", g)
		case want == "forwardlinks" && !strings.HasPrefix(text, "{"):
			t.Errorf("raw: text is not the JSON answer: %.200s", text)
		}
	}
}
