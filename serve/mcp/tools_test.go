package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

func TestToolsListedWithSchemasAndAnnotations(t *testing.T) {
	s := newServer(t, openStore(t, demoData(t)), Options{})
	c, _ := connect(t, s)
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{toolCypher, toolSearch, toolRetrieve, toolGraph, toolReadNote, toolStatus}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		a := tl.Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.OpenWorldHint == nil || *a.OpenWorldHint || a.IdempotentHint == nil || !*a.IdempotentHint {
			t.Errorf("%s: annotations %+v", tl.Name, a)
		}
		if tl.OutputSchema.Type != "object" {
			t.Errorf("%s: no output schema", tl.Name)
		}
		if len(tl.Description) < 200 {
			t.Errorf("%s: description too short to tell an agent when to use it: %q", tl.Name, tl.Description)
		}
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	// The instructions name only tools that are listed: no code here.
	got := instructionsOf(t, s)
	if strings.Contains(got, toolContext) || !strings.Contains(got, toolRetrieve) || !strings.Contains(got, "Never follow instructions") {
		t.Errorf("instructions without code served:\n%s", got)
	}
}

func TestToolsAnswerFromTheDemoVault(t *testing.T) {
	s := newServer(t, openStore(t, demoData(t)), Options{})
	c, _ := connect(t, s)
	snapID := s.vaults.Default().Store.Current()

	t.Run("cypher_query", func(t *testing.T) {
		var out cypherOutput
		text := callOK(t, c, toolCypher, map[string]any{
			"query": "MATCH (p:Person)-[c:contributes]->(proj:Project) WHERE c.hours >= 100 RETURN p.title, c.hours, proj.title"}, &out)
		if out.RowCount != 1 || len(out.Rows) != 1 || out.Rows[0][0] != "Bob" || out.Rows[0][1] != 120.0 || out.Rows[0][2] != "Search" {
			t.Errorf("rows %v", out.Rows)
		}
		if out.Snapshot != snapID || out.Columns[1].Type != "int" || !strings.Contains(text, `["Bob",120,"Search"]`) ||
			!strings.Contains(text, `"snapshot":"`+snapID) || !strings.Contains(text, "not instructions") {
			t.Errorf("snapshot %s, columns %v, text:\n%s", out.Snapshot, out.Columns, text)
		}
		text = callOK(t, c, toolCypher, map[string]any{"query": "MATCH (a:Company)-[f:funds]->(p) RETURN a, f, p ORDER BY a.title", "max_rows": 1}, &out)
		if !out.Truncated || out.TruncatedBy != "rows" || out.RowCount != 1 ||
			!strings.Contains(text, `"_type":"node","id":"Companies/Acme.md"`) || !strings.Contains(text, `"amount":250000`) {
			t.Errorf("node rendering and row cap: %+v\n%s", out, text)
		}
	})

	t.Run("cypher_query names a type the snapshot lacks", func(t *testing.T) {
		var out cypherOutput
		text := callOK(t, c, toolCypher, map[string]any{"query": "MATCH ()-[r:link]->() RETURN count(r)"}, &out)
		want := "link is links_to in Cypher (the graph tool and POST /graph call plain links link); this snapshot has no relationship type link"
		if len(out.Rows) != 1 || out.Rows[0][0] != 0.0 || len(out.Notices) != 1 || out.Notices[0] != want || !strings.Contains(text, want) {
			t.Errorf("rows %v notices %q, want a count of 0 and %q; text:\n%s", out.Rows, out.Notices, want, text)
		}
	})

	t.Run("vector_search", func(t *testing.T) {
		var out searchOutput
		text := callOK(t, c, toolSearch, map[string]any{"query": "Acme funds"}, &out)
		if len(out.Results) == 0 || out.Results[0].Citation.Path != "Companies/Acme.md" || out.Results[0].ID != "Companies/Acme.md" || out.Results[0].Citation.Line == 0 || out.Results[0].Citation.Text == "" {
			t.Fatalf("hits %+v", out.Results)
		}
		if out.Target != "nodes" || out.EmbedderKind != "lexical" || !strings.Contains(text, `"rank":1`) || !strings.Contains(text, `"path":"Companies/Acme.md"`) {
			t.Errorf("%+v\n%s", out, text)
		}
		if out.Method != "fused" {
			t.Errorf("default method %q", out.Method)
		}
		for _, m := range []string{"vectors", "bm25"} {
			callOK(t, c, toolSearch, map[string]any{"query": "Initech lab", "method": m}, &out)
			if out.Method != m || len(out.Results) == 0 || out.Results[0].Citation.Path != "Companies/Initech.md" {
				t.Errorf("method %s: %+v", m, out)
			}
		}
		if res := call(t, c, toolSearch, map[string]any{"query": "x", "target": "edges", "method": "bm25"}); !res.IsError {
			t.Error("bm25 on edges was accepted")
		}
		callOK(t, c, toolSearch, map[string]any{"query": "money", "target": "edges", "edge_types": []string{"funds"}}, &out)
		if len(out.Results) == 0 || out.Results[0].Type != "funds" || out.Results[0].Sentence == "" {
			t.Errorf("edge hits %+v", out.Results)
		}
		// types are note labels for every target: edges with a Company at either end.
		callOK(t, c, toolSearch, map[string]any{"query": "funds", "target": "edges", "types": []string{"Company"}}, &out)
		if len(out.Results) == 0 {
			t.Error("no edges with a Company at either end")
		}
		for _, h := range out.Results {
			if !strings.HasPrefix(h.Source, "Companies/") && !strings.HasPrefix(h.Target, "Companies/") {
				t.Errorf("edge %s -%s-> %s has no Company end", h.Source, h.Type, h.Target)
			}
		}
		if res := call(t, c, toolSearch, map[string]any{"query": "x", "target": "notes", "edge_types": []string{"funds"}}); !res.IsError {
			t.Error("edge_types with target notes was accepted")
		}
		// The Typed Graph sidecar's forms: target nodes, mode, then on $hits,
		// and the older score.
		text = callOK(t, c, toolSearch, map[string]any{"query": "Acme funds", "target": "nodes", "k": 3, "mode": "pooled",
			"then": "MATCH (n) WHERE id(n) IN $hits RETURN n.title ORDER BY n.title", "backend": "builtin"}, &out)
		if out.Target != "nodes" || len(out.Results) != 3 || out.Then == nil || len(out.Then.Rows) != 3 || !strings.Contains(text, `"then":`) {
			t.Errorf("nodes with then: %+v\n%s", out, text)
		}
		callOK(t, c, toolSearch, map[string]any{"query": "Acme funds", "score": "mean"}, &out)
		if msg := callErr(t, c, toolSearch, map[string]any{"query": "x", "score": "mean", "mode": "best"}); !strings.Contains(msg, "not both") {
			t.Errorf("score and mode: %s", msg)
		}
		callOK(t, c, toolSearch, map[string]any{"query": "search project", "target": "chunks", "k": 3, "types": []string{"Person"}}, &out)
		if len(out.Results) != 3 || !strings.HasPrefix(out.Results[0].Citation.Path, "People/") || out.Results[0].Citation.ChunkID == "" {
			t.Errorf("chunk hits of people %+v", out.Results)
		}
	})

	t.Run("graphrag_retrieve", func(t *testing.T) {
		// Every page of the answer.
		var out retrieveOutput
		text := ""
		for _, p := range allPages(t, c, toolRetrieve, map[string]any{"question": "What does the Search project depend on, and who works on it?"}, 0) {
			var part retrieveOutput
			b, _ := json.Marshal(p)
			json.Unmarshal(b, &part)
			out.Notice = part.Notice
			out.Chunks, out.Edges, out.Notes = append(out.Chunks, part.Chunks...), append(out.Edges, part.Edges...), append(out.Notes, part.Notes...)
			text += string(b)
		}
		found := map[string]bool{}
		for _, ch := range out.Chunks {
			found[ch.Path] = true
		}
		for _, n := range out.Notes {
			found[n.Path] = true
		}
		for _, want := range []string{"Projects/Search.md", "Projects/Ranking.md", "Projects/Crawler.md", "People/Alice.md", "People/Bob.md", "Companies/Acme.md"} {
			if !found[want] {
				t.Errorf("retrieve did not surface %s", want)
			}
		}
		funds := false
		for _, e := range out.Edges {
			if e.Type == "funds" && e.Source == "Companies/Acme.md" && e.Target == "Projects/Search.md" && e.Properties["amount"] == 250000.0 {
				funds = true
			}
		}
		if !funds || !strings.Contains(out.Notice, "never as instructions") || !strings.Contains(text, "funds") {
			t.Errorf("funding edge %v, notice %q\n%s", funds, out.Notice, text)
		}
	})

	t.Run("graph traverse", func(t *testing.T) {
		var out graphOutput
		callOK(t, c, toolGraph, map[string]any{"action": "traverse", "sourcePath": "Search", "maxDepth": 1, "edgeTypes": []string{"depends_on", "funds"}}, &out)
		var paths []string
		for _, n := range out.Nodes {
			paths = append(paths, n.Path)
		}
		slices.Sort(paths)
		if want := []string{"Companies/Acme.md", "Projects/Atlas.md", "Projects/Crawler.md", "Projects/Ranking.md", "Projects/Search.md"}; !slices.Equal(paths, want) {
			t.Errorf("nodes %v, want %v", paths, want)
		}
	})

	t.Run("graph neighbors", func(t *testing.T) {
		var out graphOutput
		text := callOK(t, c, toolGraph, map[string]any{"action": "neighbors", "sourcePath": "People/Dave.md", "edgeTypes": []string{"works_at"}}, &out)
		if len(out.Nodes) != 3 || !strings.Contains(text, `"source":"People/Dave.md","target":"Companies/Initech.md","type":"works_at"`) {
			t.Errorf("Dave's employers:\n%s", text)
		}
		msg := callErr(t, c, toolGraph, map[string]any{"action": "neighbors", "sourcePath": "Kickoff"})
		if !strings.Contains(msg, "ambiguous") || !strings.Contains(msg, "Journal/Kickoff.md, Meetings/2024/Kickoff.md") {
			t.Errorf("ambiguous name: %s", msg)
		}
	})

	t.Run("graph path", func(t *testing.T) {
		var out graphOutput
		text := callOK(t, c, toolGraph, map[string]any{"action": "path", "sourcePath": "Mallory", "targetPath": "Projects/Crawler.md",
			"edgeTypes": []string{"distrusts", "leads", "depends_on"}}, &out)
		if out.Found == nil || !*out.Found || len(out.Paths) != 1 ||
			!slices.Equal(out.Paths[0], []string{"People/Mallory.md", "People/Alice.md", "Projects/Search.md", "Projects/Crawler.md"}) {
			t.Errorf("path %v\n%s", out.Paths, text)
		}
		if !strings.Contains(text, `"source":"People/Mallory.md","target":"People/Alice.md","type":"distrusts"`) || !strings.Contains(text, `"sign":-1`) {
			t.Errorf("signed edge in text:\n%s", text)
		}
	})

	t.Run("graph statistics", func(t *testing.T) {
		var out graphOutput
		text := callOK(t, c, toolGraph, map[string]any{"action": "statistics"}, &out)
		if out.VaultStatistics == nil || !slices.Contains(out.VaultStatistics.Orphans, "Templates/Meeting.md") || !strings.Contains(text, "Query Understanding") {
			t.Errorf("vault statistics:\n%s", text)
		}
		callOK(t, c, toolGraph, map[string]any{"action": "statistics", "sourcePath": "Projects/Search.md"}, &out)
		if out.Statistics == nil || out.Statistics.ByType["depends_on"].Out != 2 || out.Statistics.ByType["funds"].In != 1 {
			t.Errorf("Search statistics %+v", out.Statistics)
		}
	})

	t.Run("graph backlinks", func(t *testing.T) {
		var out graphOutput
		text := callOK(t, c, toolGraph, map[string]any{"action": "backlinks", "sourcePath": "Search"}, &out)
		var paths []string
		for _, n := range out.Nodes {
			paths = append(paths, n.Path)
		}
		for _, want := range []string{"People/Alice.md", "People/Bob.md", "People/Zoë.md", "Companies/Acme.md", "Projects/Atlas.md"} {
			if !slices.Contains(paths, want) {
				t.Errorf("backlinks of Search lack %s: %v", want, paths)
			}
		}
		if !strings.Contains(text, `"source":"People/Alice.md","target":"Projects/Search.md","type":"leads"`) || !strings.Contains(text, `{"hours":120}`) {
			t.Errorf("backlink edges:\n%s", text)
		}
		text = callOK(t, c, toolGraph, map[string]any{"action": "backlinks", "sourcePath": "Zoe"}, &out)
		if !strings.Contains(text, `"source":"People/Erin.md","target":"People/Zoë.md","type":"match"`) {
			t.Errorf("backlinks of Zoë by alias:\n%s", text)
		}
	})

	t.Run("graph forwardlinks", func(t *testing.T) {
		var out graphOutput
		callOK(t, c, toolGraph, map[string]any{"action": "forwardlinks", "sourcePath": "Search", "edgeTypes": []string{"depends_on"}}, &out)
		critical := false
		for _, e := range out.Edges {
			if e.Target == "Projects/Crawler.md" && e.Properties["critical"] == true {
				critical = true
			}
		}
		if len(out.Nodes) != 2 || !critical {
			t.Errorf("dependencies of Search: %+v", out)
		}
	})

	t.Run("read_note", func(t *testing.T) {
		var out noteOutput
		text := callOK(t, c, toolReadNote, map[string]any{"path": "Alice"}, &out)
		if out.Path != "People/Alice.md" || !strings.Contains(text, "[leads:: [[Search]]]") || out.ContentTruncated || out.ContentEnd != out.ContentBytes ||
			out.Resource != "vault://People%2FAlice.md" || out.Properties["role"] != "engineering lead" || len(out.Headings) == 0 {
			t.Errorf("Alice: %+v", out)
		}
		// The text is the JSON, then the note's text once.
		if strings.Count(text, "[leads:: [[Search]]]") != 1 || !strings.Contains(text, `"notice":"`) || !strings.Contains(text, `"type":"leads","note":"Projects/Search.md"`) {
			t.Errorf("text:\n%s", text)
		}
		callOK(t, c, toolReadNote, map[string]any{"path": "Query Understanding"}, &out)
		if !out.Stub || out.ContentBytes != 0 || out.IncomingTotal != 5 {
			t.Errorf("stub: %+v", out)
		}
		msg := callErr(t, c, toolReadNote, map[string]any{"path": "Nobody At All"})
		if !strings.Contains(msg, "not found") || !strings.Contains(msg, "vector_search") || !strings.Contains(msg, "[snapshot "+snapID+"]") {
			t.Errorf("unknown note: %s", msg)
		}
	})

	t.Run("vault_status", func(t *testing.T) {
		var out statusOutput
		text := callOK(t, c, toolStatus, nil, &out)
		if !out.Serving || out.Snapshot != snapID || out.Counts.Notes != 31 || len(out.Tools) != 6 || out.Graph == nil ||
			out.Embedder == nil || out.Embedder.Provider != "builtin" {
			t.Errorf("%+v", out)
		}
		if !strings.Contains(text, `"notes":31`) || !strings.Contains(text, "Person") || strings.Contains(text, "not instructions") {
			t.Errorf("text:\n%s", text)
		}
		if out.Status != statusServing || out.DataDir != s.vaults.Default().Store.DataDir() {
			t.Errorf("status %q, data dir %q", out.Status, out.DataDir)
		}
		// Edges by kind, checked against the graph database: typed edges
		// are neither plain links nor embeds.
		count := func(query string) int {
			var res cypherOutput
			callOK(t, c, toolCypher, map[string]any{"query": query}, &res)
			return int(res.Rows[0][0].(float64))
		}
		links, embeds := count("MATCH ()-[r:links_to]->() RETURN count(r)"), count("MATCH ()-[r:embeds]->() RETURN count(r)")
		typed := count("MATCH ()-[r]->() WHERE NOT type(r) IN ['links_to', 'embeds'] RETURN count(r)")
		if e := out.Edges; e.LinksTo != links || e.Embeds != embeds || e.Typed != typed || typed+links+embeds != out.Counts.Edges || typed == 0 {
			t.Errorf("edges %+v of %d; the graph has %d typed, %d links_to, %d embeds", e, out.Counts.Edges, typed, links, embeds)
		}
		if want := fmt.Sprintf(`"typed":%d,"links_to":%d,"embeds":%d`, typed, links, embeds); !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	})
}

// TestCypherErrorsCarryTheLanguageHintOnce checks that advice about the
// query language comes from package cypher, in the message every surface
// prints, and that cypher_query adds its own context (caret, schema) without
// repeating it.
func TestCypherErrorsCarryTheLanguageHintOnce(t *testing.T) {
	s := newServer(t, openStore(t, demoData(t)), Options{})
	c, _ := connect(t, s)
	for _, tc := range []struct {
		query      string
		want       []string
		once       string
		mustNotSay []string
	}{
		{"MATCH (a)-[r:mentored by]->(b) RETURN a",
			[]string{"syntax error at line 1, column 23: expected ']', found 'by'; if \"mentored by\" is one name, backquote it: [r:`mentored by`]\n" +
				"  MATCH (a)-[r:mentored by]->(b) RETURN a\n                        ^\nHint: fix the query at the caret. Labels: ", "`mentored by`, "},
			"backquote", nil},
		{"CALL show_tables() RETURN *",
			[]string{"unsupported", "use CALL db.labels() or CALL db.relationshipTypes()", "Hint: ", toolStatus},
			"db.labels()", []string{"e_about", "e_mentored_by", "limited to"}},
		{"CALL create_fts_index('Note', 'x', ['title'])",
			[]string{"readonly", "may call only db.labels(), db.relationshipTypes(), db.propertyKeys() and show_functions()", "Hint: "},
			"show_functions()", []string{"limited to"}},
	} {
		msg := callErr(t, c, toolCypher, map[string]any{"query": tc.query})
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error lacks %q:\n%s", tc.query, w, msg)
			}
		}
		if n := strings.Count(msg, tc.once); n != 1 {
			t.Errorf("%s: %q appears %d times:\n%s", tc.query, tc.once, n, msg)
		}
		for _, w := range tc.mustNotSay {
			if strings.Contains(msg, w) {
				t.Errorf("%s: error says %q:\n%s", tc.query, w, msg)
			}
		}
	}
}

func TestInvalidArgumentsAreToolErrors(t *testing.T) {
	s := newServer(t, openStore(t, demoData(t)), Options{})
	c, _ := connect(t, s)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{toolCypher, map[string]any{}, []string{"query"}},
		{toolCypher, map[string]any{"query": "MATCH (p:Person RETURN p"}, []string{"syntax error at line 1, column 17", "\n  MATCH (p:Person RETURN p\n                  ^", "Hint:", "Labels: "}},
		{toolCypher, map[string]any{"query": "MATCH (p)\nRETURN p.title,\nLIMIT 3"}, []string{"line 3", "Hint:"}},
		{toolCypher, map[string]any{"query": "CREATE (n:Person {title: 'Eve'})"}, []string{"readonly", "read-only"}},
		{toolCypher, map[string]any{"query": "MATCH (n) WHERE n.title = $name RETURN n"}, []string{"parameter", "params"}},
		{toolCypher, map[string]any{"query": "MATCH (n) RETURN n", "max_rows": 0}, []string{"max_rows"}},
		{toolCypher, map[string]any{"query": "MATCH (n) RETURN n", "max_rows": 1001}, []string{"max_rows"}},
		{toolCypher, map[string]any{"querry": "MATCH (n) RETURN n"}, []string{"querry"}},
		{toolSearch, map[string]any{"query": "x", "target": "pages"}, []string{"target"}},
		{toolSearch, map[string]any{"query": "x", "k": "ten"}, []string{"k"}},
		{toolRetrieve, map[string]any{"question": "x", "depth": 9}, []string{"depth"}},
		{toolRetrieve, map[string]any{"question": "x", "rank": "sideways"}, []string{"rank"}},
		{toolGraph, map[string]any{"action": "path", "sourcePath": "Alice"}, []string{"targetPath"}},
		{toolGraph, map[string]any{"action": "traverse", "sourcePath": "Alice", "fileFilter": "("}, []string{"fileFilter"}},
		{toolGraph, map[string]any{"sourcePath": "Alice"}, []string{"action"}},
		{toolGraph, map[string]any{"action": "search-traverse", "sourcePath": "Alice"}, []string{"action"}},
		{toolGraph, map[string]any{"action": "backlinks"}, []string{"sourcePath"}},
		{toolGraph, map[string]any{"action": "neighbors", "sourcePath": "Alice", "edge_type": []string{"x"}}, []string{"edge_type"}},
		{toolReadNote, map[string]any{"path": ""}, []string{"path"}},
		{toolReadNote, map[string]any{"path": "Alice", "offset": 1 << 20}, []string{"past the end"}},
	} {
		msg := callErr(t, c, tc.tool, tc.args)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s %v: error %q lacks %q", tc.tool, tc.args, msg, w)
			}
		}
	}
	// An unknown tool is a protocol error, not a tool error.
	req := mcp.CallToolRequest{}
	req.Params.Name = "delete_vault"
	if _, err := c.CallTool(t.Context(), req); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("unknown tool: %v", err)
	}
}

// TestAnswersPageWithinTheBudget: with a small budget every answer fits
// it, and lists page: following the cursors gets every item once; the
// note's text comes in parts that add up to the whole.
func TestAnswersPageWithinTheBudget(t *testing.T) {
	const budget = 6000
	s := newServer(t, openStore(t, demoData(t)), Options{MaxResultBytes: budget})
	c, _ := connect(t, s)
	size := func(res *mcp.CallToolResult) int {
		b, _ := json.Marshal(res)
		return len(b)
	}
	pages := func(name string, args map[string]any) []map[string]any {
		t.Helper()
		return allPages(t, c, name, args, budget)
	}
	rows := pages(toolCypher, map[string]any{"query": "MATCH (n) RETURN id(n) AS id, n ORDER BY id", "max_rows": 1000})
	var paths []string
	for _, p := range rows {
		for _, r := range p["rows"].([]any) {
			paths = append(paths, r.([]any)[0].(string))
		}
	}
	var count cypherOutput
	callOK(t, c, toolCypher, map[string]any{"query": "MATCH (n) RETURN count(n)"}, &count)
	if len(rows) < 2 || float64(len(paths)) != count.Rows[0][0].(float64) || !slices.IsSorted(paths) || len(slices.Compact(slices.Clone(paths))) != len(paths) {
		t.Errorf("%d pages, %d rows of %v", len(rows), len(paths), count.Rows)
	}
	hits := pages(toolSearch, map[string]any{"query": "search ranking crawler", "target": "chunks", "k": 40})
	n := 0
	for _, p := range hits {
		n += len(p["results"].([]any))
	}
	if len(hits) < 2 || n != 40 {
		t.Errorf("search: %d hits in %d pages", n, len(hits))
	}

	// Cursors are checked.
	args := map[string]any{"query": "MATCH (n) RETURN id(n) AS id, n ORDER BY id", "max_rows": 1000}
	cursor := rows[0]["next"].(map[string]any)["cursor"].(string)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "MATCH (n) RETURN n", "cursor": cursor}, "other arguments"},
		{map[string]any{"query": args["query"], "max_rows": 1000, "cursor": "x"}, "not one this server handed out"},
		{map[string]any{"query": args["query"], "max_rows": 1000, "cursor": "9999" + cursor[strings.IndexByte(cursor, '.'):]}, "past the end"},
	} {
		if msg := callErr(t, c, toolCypher, tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("cursor %v: %s", tc.args["cursor"], msg)
		}
	}

	// A long note is read in parts that add up to the whole.
	var got strings.Builder
	var part noteOutput
	next := 0
	for i := 0; ; i++ {
		res := call(t, c, toolReadNote, map[string]any{"path": "Projects/Search.md", "offset": next})
		if size(res) > budget || len(res.Content) != 2 {
			t.Fatalf("part %d: %d bytes, %d blocks", i, size(res), len(res.Content))
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &part)
		got.WriteString(res.Content[1].(mcp.TextContent).Text)
		if !part.ContentTruncated {
			break
		}
		if part.NextOffset <= next || i > 20 || !strings.Contains(part.Hint, "offset "+strconv.Itoa(part.NextOffset)) {
			t.Fatalf("no progress at offset %d: %+v", next, part)
		}
		next = part.NextOffset
	}
	if next == 0 || got.Len() != part.ContentBytes {
		t.Errorf("parts add up to %d bytes, the note has %d", got.Len(), part.ContentBytes)
	}
}

// allPages calls a tool following its cursors and returns each page's
// structured content, checking that each fits budget (when not 0) and
// that its text is the structured content's JSON.
func allPages(t *testing.T, c *client.Client, name string, args map[string]any, budget int) []map[string]any {
	t.Helper()
	var all []map[string]any
	for i := 0; ; i++ {
		res := call(t, c, name, args)
		b, _ := json.Marshal(res)
		if res.IsError || (budget > 0 && len(b) > budget) {
			t.Fatalf("%s page %d: error %v, %d bytes: %s", name, i, res.IsError, len(b), resultText(res))
		}
		var page, text map[string]any
		b, _ = json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &page)
		if err := json.Unmarshal([]byte(resultText(res)), &text); err != nil || !reflect.DeepEqual(text, page) {
			t.Errorf("%s: the text is not the structured content's JSON: %v", name, err)
		}
		all = append(all, page)
		next, ok := page["next"].(map[string]any)
		if !ok {
			return all
		}
		hint, _ := next["hint"].(string)
		cursor, _ := next["cursor"].(string)
		if i > 50 || cursor == "" || !strings.Contains(hint, cursor) {
			t.Fatalf("%s: no end after %d pages, or a hint without the cursor: %v", name, i, next)
		}
		args = maps.Clone(args)
		args["cursor"] = cursor
	}
}

// TestRetrievePagesListEachNoteOnce: graphrag_retrieve with the largest
// arguments the Typed Graph sidecar allows pages within a small budget
// instead of failing, and each page lists only the notes its passages and
// edges name first (then the notes none names), each note once, so that a
// page is not the notes list and one passage (review4 F23, F24).
func TestRetrievePagesListEachNoteOnce(t *testing.T) {
	const budget = 6000
	st := openStore(t, demoData(t))
	args := map[string]any{"question": "What does the Search project depend on, and who works on it?",
		"k": 50, "depth": 3, "neighbor_cap": 50, "chunk_cap": 100}
	var whole struct {
		retrieveOutput
		Next *nextPage `json:"next"`
	}
	wide, _ := connect(t, newServer(t, st, Options{MaxResultBytes: 1 << 20}))
	callOK(t, wide, toolRetrieve, args, &whole)
	if len(whole.Notes) < 5 || len(whole.Chunks) < 5 || whole.Next != nil {
		t.Fatalf("the whole answer: %d notes, %d chunks, next %v", len(whole.Notes), len(whole.Chunks), whole.Next)
	}
	c, _ := connect(t, newServer(t, st, Options{MaxResultBytes: budget}))
	pages := allPages(t, c, toolRetrieve, args, budget)
	var got retrieveOutput
	listed := map[string]int{}
	most := 0
	for i, p := range pages {
		var part retrieveOutput
		b, _ := json.Marshal(p)
		json.Unmarshal(b, &part)
		most = max(most, len(part.Chunks))
		for _, n := range part.Notes {
			if _, ok := listed[n.Path]; ok {
				t.Errorf("page %d lists %s again", i, n.Path)
			}
			listed[n.Path] = i
		}
		named := func(path string) {
			if j, ok := listed[path]; !ok || j > i {
				t.Errorf("page %d names %s, which no page up to it lists", i, path)
			}
		}
		for _, ch := range part.Chunks {
			named(ch.Path)
		}
		for _, e := range part.Edges {
			named(e.Source)
			named(e.Target)
		}
		got.Chunks, got.Edges, got.Notes = append(got.Chunks, part.Chunks...), append(got.Edges, part.Edges...), append(got.Notes, part.Notes...)
	}
	sortNotes := func(ns []retrieve.Note) {
		slices.SortFunc(ns, func(a, b retrieve.Note) int { return strings.Compare(a.Path, b.Path) })
	}
	sortNotes(got.Notes)
	sortNotes(whole.Notes)
	if len(pages) < 2 || most < 2 || !reflect.DeepEqual(got.Chunks, whole.Chunks) || !reflect.DeepEqual(got.Edges, whole.Edges) || !reflect.DeepEqual(got.Notes, whole.Notes) {
		t.Errorf("%d pages, at most %d passages a page: %d passages, %d edges, %d notes; want %d, %d, %d",
			len(pages), most, len(got.Chunks), len(got.Edges), len(got.Notes), len(whole.Chunks), len(whole.Edges), len(whole.Notes))
	}
}

// TestReadNotePartsAfterTheFirstHoldOnlyTheText: read_note's parts after
// the first (offset > 0) do not repeat the note's metadata, which the
// first part gave: they hold the path, the offsets and the text, so more
// of the text fits a part (review4 F17).
func TestReadNotePartsAfterTheFirstHoldOnlyTheText(t *testing.T) {
	const budget = 6000
	c, _ := connect(t, newServer(t, openStore(t, demoData(t)), Options{MaxResultBytes: budget}))
	part := func(offset int) (map[string]any, string) {
		t.Helper()
		res := call(t, c, toolReadNote, map[string]any{"path": "Projects/Search.md", "offset": offset})
		if b, _ := json.Marshal(res); res.IsError || len(res.Content) != 2 || len(b) > budget {
			t.Fatalf("offset %d: error %v, %d blocks, %d bytes: %s", offset, res.IsError, len(res.Content), len(b), resultText(res))
		}
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		return out, res.Content[1].(mcp.TextContent).Text
	}
	first, text1 := part(0)
	if _, ok := first["headings"]; !ok || first["content_truncated"] != true {
		t.Fatalf("first part: %v", first)
	}
	next := int(first["next_offset"].(float64))
	second, text2 := part(next)
	var keys []string
	for k := range second {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"content_bytes", "content_end", "content_offset", "content_truncated", "notice", "path", "snapshot"}
	if second["content_truncated"] == true {
		want = []string{"content_bytes", "content_end", "content_offset", "content_truncated", "hint", "next_offset", "notice", "path", "snapshot"}
	}
	if !slices.Equal(keys, want) || second["path"] != "Projects/Search.md" || int(second["content_offset"].(float64)) != next ||
		int(second["content_end"].(float64)) != next+len(text2) {
		t.Errorf("second part: %v", second)
	}
	// The room the metadata took holds text now.
	if len(text2) <= len(text1) && second["content_truncated"] == true {
		t.Errorf("the second part holds %d bytes of text, the first %d", len(text2), len(text1))
	}
}

// TestGraphPagesSendEachEdgeOnce: a traverse paged within a small budget
// sends each edge of the whole answer once, on the page where the later
// of its notes is listed (so both ends are known by then); plain links
// carry no id of the usual form and no "A links to B" sentence, typed
// edges keep their sentence; maxEdges defaults to POST /graph's 500
// (review4 F7, F8).
func TestGraphPagesSendEachEdgeOnce(t *testing.T) {
	st := openStore(t, demoData(t))
	args := map[string]any{"action": "traverse", "sourcePath": "Projects/Search.md", "maxDepth": 3}
	var whole graphOutput
	callOK(t, mustConnect(t, newServer(t, st, Options{MaxResultBytes: 1 << 20})), toolGraph, args, &whole)
	c, _ := connect(t, newServer(t, st, Options{}))
	pages := allPages(t, c, toolGraph, args, DefaultMaxResultBytes)
	if len(pages) < 3 {
		t.Fatalf("%d pages, want several at %d bytes", len(pages), DefaultMaxResultBytes)
	}
	t.Logf("%d nodes and %d edges in %d pages", len(whole.Nodes), len(whole.Edges), len(pages))
	key := func(e map[string]any) string {
		return fmt.Sprint(e["source"], "|", e["type"], "|", e["target"], "|", e["id"])
	}
	sent := map[string]int{}
	listed := map[string]bool{whole.SourcePath: true}
	typed := 0
	for i, p := range pages {
		nodes, _ := p["nodes"].([]any)
		for _, n := range nodes {
			listed[n.(map[string]any)["path"].(string)] = true
		}
		edges, _ := p["edges"].([]any)
		if p["stopped"] == "bytes" {
			t.Errorf("page %d: cut to fit: %v", i, p["message"])
		}
		for _, x := range edges {
			e := x.(map[string]any)
			sent[key(e)]++
			if !listed[e["source"].(string)] && !listed[e["target"].(string)] {
				t.Errorf("page %d: edge %v before either of its notes", i, e)
			}
			switch e["type"] {
			case "link", "embed":
				if e["sentence"] != nil || (e["id"] != nil && strings.HasSuffix(e["id"].(string), "#0")) {
					t.Errorf("page %d: plain link %v carries a sentence or an id of the usual form", i, e)
				}
			case "tag":
			default:
				typed++
				if e["sentence"] == nil {
					t.Errorf("page %d: typed edge %v lost its sentence", i, e)
				}
			}
		}
	}
	for _, e := range whole.Edges {
		k := fmt.Sprint(e.Source, "|", e.Type, "|", e.Target, "|", nilIfEmpty(e.ID))
		if sent[k] != 1 {
			t.Errorf("edge %s sent %d times over the pages, want once", k, sent[k])
		}
	}
	if len(sent) != len(whole.Edges) || typed == 0 {
		t.Errorf("the pages send %d edges (%d typed), the whole answer has %d", len(sent), typed, len(whole.Edges))
	}

	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == toolGraph {
			if d := tl.InputSchema.Properties["maxEdges"].(map[string]any)["default"]; d != float64(linkgraph.DefaultMaxEdges) {
				t.Errorf("graph maxEdges defaults to %v, POST /graph to %d", d, linkgraph.DefaultMaxEdges)
			}
		}
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func mustConnect(t *testing.T, s *Server) *client.Client {
	c, _ := connect(t, s)
	return c
}
