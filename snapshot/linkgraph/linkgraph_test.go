package linkgraph_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
)

// demoRows are the demo vault's golden notes and edges tables, the
// authoritative account of its graph (testdata/golden/demo).
var demoRows = sync.OnceValues(func() (struct {
	notes []format.Note
	edges []format.Edge
}, error) {
	var rows struct {
		notes []format.Note
		edges []format.Edge
	}
	dir := filepath.Join("..", "..", "testdata", "golden", "demo")
	for name, v := range map[string]any{"nodes.json": &rows.notes, "edges.json": &rows.edges} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return rows, err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return rows, err
		}
	}
	return rows, nil
})

func demoGraph(t testing.TB) *linkgraph.Graph {
	t.Helper()
	rows, err := demoRows()
	if err != nil {
		t.Fatal(err)
	}
	g, err := linkgraph.New("demo", rows.notes, rows.edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func do(t *testing.T, g *linkgraph.Graph, req linkgraph.Request) *linkgraph.Response {
	t.Helper()
	resp, err := g.Do(context.Background(), req)
	if err != nil {
		t.Fatalf("%+v: %v", req, err)
	}
	return resp
}

func nodePaths(resp *linkgraph.Response) []string {
	var out []string
	for _, n := range resp.Nodes {
		out = append(out, n.Path)
	}
	return out
}

func hasEdge(edges []linkgraph.Edge, source, typ, target string) bool {
	for _, e := range edges {
		if e.Source == source && e.Type == typ && e.Target == target {
			return true
		}
	}
	return false
}

func TestResolve(t *testing.T) {
	g := demoGraph(t)
	for name, want := range map[string]string{
		"Projects/Search.md":       "Projects/Search.md",
		"Projects/Search":          "Projects/Search.md",
		"projects/search.MD":       "Projects/Search.md",
		"Search":                   "Projects/Search.md",
		"search v2":                "Projects/Search.md",
		"[[Acme Corp]]":            "Companies/Acme.md",
		"Zoe":                      "People/Zoë.md",
		"People/Zoe\u0308.md":      "People/Zoë.md", // NFD, as macOS writes it
		"Query Understanding":      "Query Understanding",
		"BM25 Revisited":           "Papers/BM25 Revisited.md",
		"Meetings/2024/Kickoff":    "Meetings/2024/Kickoff.md",
		"IR":                       "Topics/Information Retrieval.md",
		"Learning to Rank Notes: ": "", // title differs from the file name; checked below
	} {
		if want == "" {
			continue
		}
		i, err := g.Resolve(name)
		if err != nil {
			t.Errorf("Resolve(%q): %v", name, err)
			continue
		}
		if got := g.Note(i).Name(); got != want {
			t.Errorf("Resolve(%q) = %s, want %s", name, got, want)
		}
	}
	// A paper's frontmatter title names it as well as its file name.
	if i, err := g.Resolve("BM25 Revisited: Length Normalisation for Very Short Documents"); err != nil || g.Note(i).Path != "Papers/BM25 Revisited.md" {
		t.Errorf("resolve by frontmatter title: %v", err)
	}

	_, err := g.Resolve("Kickoff")
	var amb *linkgraph.AmbiguousError
	if !errors.As(err, &amb) || !errors.Is(err, linkgraph.ErrAmbiguous) {
		t.Fatalf("Resolve(Kickoff) err = %v, want an AmbiguousError", err)
	}
	if want := []string{"Journal/Kickoff.md", "Meetings/2024/Kickoff.md"}; !slices.Equal(amb.Candidates, want) {
		t.Errorf("candidates = %v, want %v", amb.Candidates, want)
	}
	if !strings.Contains(err.Error(), "Journal/Kickoff.md, Meetings/2024/Kickoff.md") {
		t.Errorf("error does not list the candidates: %v", err)
	}
	_, err = g.Resolve("Crawl")
	if !errors.Is(err, linkgraph.ErrNotFound) || !strings.Contains(err.Error(), "Projects/Crawler.md") {
		t.Errorf("Resolve(Crawl) err = %v, want not found with similar names", err)
	}
	// A code id is not a note: the error says where its notes are
	// (review5 F22).
	_, err = g.Resolve("code:app/api/cron.py#run")
	if !errors.Is(err, linkgraph.ErrNotFound) || !strings.Contains(err.Error(), "is code, not a note") || !strings.Contains(err.Error(), "retrieve_context with anchor code:app/api/cron.py#run") {
		t.Errorf("Resolve of a code id: %v", err)
	}
}

func TestTraverse(t *testing.T) {
	g := demoGraph(t)
	resp := do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Search", MaxDepth: 1, EdgeTypes: []string{"depends_on", "leads", "contributes", "funds"}})
	want := []string{"Projects/Search.md", "Companies/Acme.md", "People/Alice.md", "People/Bob.md", "People/Zoë.md", "Projects/Atlas.md", "Projects/Crawler.md", "Projects/Ranking.md"}
	got := nodePaths(resp)
	if !slices.Equal(sorted(got[1:]), sorted(want[1:])) || got[0] != want[0] {
		t.Errorf("nodes = %v, want %v", got, want)
	}
	for _, n := range resp.Nodes {
		if (n.Path == "Projects/Search.md") != (n.Depth == 0) || n.Depth > 1 {
			t.Errorf("%s at depth %d", n.Path, n.Depth)
		}
	}
	for _, e := range [][3]string{
		{"Companies/Acme.md", "funds", "Projects/Search.md"},
		{"Projects/Search.md", "depends_on", "Projects/Crawler.md"},
		{"People/Bob.md", "contributes", "Projects/Search.md"},
		{"Projects/Atlas.md", "depends_on", "Projects/Search.md"},
	} {
		if !hasEdge(resp.Edges, e[0], e[1], e[2]) {
			t.Errorf("edge %v missing", e)
		}
	}
	for _, e := range resp.Edges {
		if !slices.Contains([]string{"depends_on", "leads", "contributes", "funds"}, e.Type) {
			t.Errorf("edge of type %s despite edgeTypes", e.Type)
		}
	}
	if resp.Truncated || resp.GraphStats.TotalNodes != len(want) || resp.GraphStats.MaxDepthReached != 1 {
		t.Errorf("stats = %+v, truncated %v", resp.GraphStats, resp.Truncated)
	}

	// Forward only, depth 2: Search's dependencies and theirs; the stub
	// Ranking depends on only with includeUnresolved.
	no := false
	req := linkgraph.Request{Action: "traverse", SourcePath: "Search", MaxDepth: 2, EdgeTypes: []string{"depends_on"}, FollowBacklinks: &no}
	if got := nodePaths(do(t, g, req)); !slices.Equal(got, []string{"Projects/Search.md", "Projects/Crawler.md", "Projects/Ranking.md"}) {
		t.Errorf("forward depends_on = %v", got)
	}
	yes := true
	req.IncludeUnresolved = &yes
	resp = do(t, g, req)
	if got := nodePaths(resp); !slices.Contains(got, "Query Understanding") || resp.Nodes[len(resp.Nodes)-1].Type != "stub" {
		t.Errorf("with includeUnresolved = %v", got)
	}
}

func hasEdgeFrom(edges []linkgraph.Edge, source, target string) bool {
	for _, e := range edges {
		if e.Source == source && e.Target == target {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestTraverseBoundsAndFilters(t *testing.T) {
	g := demoGraph(t)
	resp := do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Search", MaxNodes: 4})
	if len(resp.Nodes) != 4 || !resp.Truncated || resp.Stopped != "maxNodes" {
		t.Fatalf("maxNodes 4: %d nodes, truncated %v, stopped %q", len(resp.Nodes), resp.Truncated, resp.Stopped)
	}
	// Typed neighbours are kept before plain links when the bound cuts.
	for _, n := range resp.Nodes[1:] {
		typed := false
		for _, e := range resp.Edges {
			if (e.Source == n.Path || e.Target == n.Path) && e.Type != linkgraph.EdgeTypeLink && e.Type != linkgraph.EdgeTypeEmbed {
				typed = true
			}
		}
		if !typed {
			t.Errorf("%s kept through a plain link while typed neighbours were left out", n.Path)
		}
	}

	resp = do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Search", MaxDepth: 2, FileFilter: "^People/"})
	for _, p := range nodePaths(resp)[1:] {
		if !strings.HasPrefix(p, "People/") {
			t.Errorf("fileFilter let %s through", p)
		}
	}
	if len(resp.Nodes) < 5 {
		t.Errorf("fileFilter: only %v", nodePaths(resp))
	}
	resp = do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Alice", MaxDepth: 3, FolderFilter: "Projects/"})
	for _, p := range nodePaths(resp)[1:] {
		if !strings.HasPrefix(p, "Projects/") {
			t.Errorf("folderFilter let %s through", p)
		}
	}

	// Shared tags connect notes with no link between them.
	no := false
	resp = do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Evaluation", MaxDepth: 1, FollowTags: true,
		FollowBacklinks: &no, FollowForwardLinks: &no})
	if !slices.Contains(nodePaths(resp), "Projects/Ranking.md") || !hasEdge(resp.Edges, "Topics/Evaluation.md", "tag", "Projects/Ranking.md") {
		t.Errorf("followTags: %v", nodePaths(resp))
	}

	resp = do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Search", MaxDepth: 3, MaxNodes: 100, MaxEdges: 10})
	if len(resp.Edges) != 10 || !resp.Truncated || resp.Stopped != "maxEdges" || !strings.Contains(resp.Message, "edges cut at maxEdges (10)") {
		t.Errorf("maxEdges 10: %d edges, stopped %q, message %q", len(resp.Edges), resp.Stopped, resp.Message)
	}
	// Both bounds reached: Stopped names the first, the message both.
	resp = do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Search", MaxDepth: 3, MaxNodes: 6, MaxEdges: 3})
	if len(resp.Nodes) != 6 || len(resp.Edges) != 3 || resp.Stopped != "maxNodes" ||
		!strings.Contains(resp.Message, "stopped at maxNodes (6)") || !strings.Contains(resp.Message, "edges cut at maxEdges (3)") {
		t.Errorf("maxNodes 6, maxEdges 3: %d nodes, %d edges, stopped %q, message %q", len(resp.Nodes), len(resp.Edges), resp.Stopped, resp.Message)
	}
}

func TestNeighborsAndLinks(t *testing.T) {
	g := demoGraph(t)
	resp := do(t, g, linkgraph.Request{Action: "neighbors", SourcePath: "Projects/Search.md"})
	got := nodePaths(resp)
	if got[0] != "Projects/Search.md" {
		t.Errorf("first node %s, want the source", got[0])
	}
	for _, want := range []string{"Vector Search", "Query Understanding", "Companies/Acme.md", "Projects/Ranking.md"} {
		if !slices.Contains(got, want) {
			t.Errorf("neighbors lack %s", want)
		}
	}
	if resp.GraphStats.TotalNodes != len(got)-1 {
		t.Errorf("totalNodes %d, listed %d", resp.GraphStats.TotalNodes, len(got)-1)
	}

	resp = do(t, g, linkgraph.Request{Action: "backlinks", SourcePath: "Search"})
	var funds *linkgraph.Edge
	for i, e := range resp.Edges {
		if e.Target != "Projects/Search.md" {
			t.Errorf("backlink edge %s -> %s", e.Source, e.Target)
		}
		if e.Type == "funds" {
			funds = &resp.Edges[i]
		}
	}
	if funds == nil {
		t.Fatal("no funds backlink")
	}
	b, _ := json.Marshal(funds)
	for _, want := range []string{`"properties":{"amount":250000,"currency":"EUR"}`, `"sign":1`, `"sentence":"Acme (Company) funds Search (Project) - amount 250000, currency EUR"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("funds edge JSON %s lacks %s", b, want)
		}
	}
	var back linkgraph.Edge
	if err := json.Unmarshal(b, &back); err != nil || back.Properties.Map()["amount"] != int64(250000) {
		t.Errorf("round trip: %v %+v", err, back.Properties)
	}

	resp = do(t, g, linkgraph.Request{Action: "forwardlinks", SourcePath: "Search", MaxNodes: 2})
	if len(resp.Nodes) != 2 || !resp.Truncated || resp.GraphStats.TotalNodes <= 2 {
		t.Errorf("forwardlinks limited to 2: %v, stats %+v", nodePaths(resp), resp.GraphStats)
	}
	for _, e := range resp.Edges {
		if !slices.Contains(nodePaths(resp), e.Target) {
			t.Errorf("edge to unlisted %s", e.Target)
		}
	}
}

func TestPath(t *testing.T) {
	g := demoGraph(t)
	resp := do(t, g, linkgraph.Request{Action: "path", SourcePath: "Mallory", TargetPath: "Crawler", EdgeTypes: []string{"distrusts", "leads", "depends_on"}})
	want := []string{"People/Mallory.md", "People/Alice.md", "Projects/Search.md", "Projects/Crawler.md"}
	if resp.Found == nil || !*resp.Found || len(resp.Paths) != 1 || !slices.Equal(resp.Paths[0], want) {
		t.Fatalf("paths = %v, want [%v]", resp.Paths, want)
	}
	if e := resp.PathEdges[0]; len(e) != 3 || e[0].Type != "distrusts" || e[0].Sign != -1 || e[2].Type != "depends_on" {
		t.Errorf("path edges = %+v", e)
	}

	resp = do(t, g, linkgraph.Request{Action: "path", SourcePath: "Mallory", TargetPath: "Crawler", EdgeTypes: []string{"distrusts", "leads", "depends_on"}, MaxDepth: 2})
	if *resp.Found || len(resp.Paths) != 0 || !strings.Contains(resp.Message, "No path") {
		t.Errorf("maxDepth 2 found %v", resp.Paths)
	}

	resp = do(t, g, linkgraph.Request{Action: "path", SourcePath: "Search", TargetPath: "Erin", All: true, MaxDepth: 2, MaxPaths: 1000})
	if resp.Truncated || len(resp.Paths) < 3 {
		t.Fatalf("all paths: %d, stopped %q", len(resp.Paths), resp.Stopped)
	}
	seen := map[string]bool{}
	for i, p := range resp.Paths {
		if i > 0 && len(p) < len(resp.Paths[i-1]) {
			t.Errorf("paths not shortest first")
		}
		if p[0] != "Projects/Search.md" || p[len(p)-1] != "People/Erin.md" || len(p) > 3 {
			t.Errorf("bad path %v", p)
		}
		k := strings.Join(p, "|")
		if seen[k] {
			t.Errorf("path %v twice", p)
		}
		seen[k] = true
		if len(slices.Compact(sorted(p))) != len(p) {
			t.Errorf("path %v is not simple", p)
		}
	}
	all := len(resp.Paths)
	resp = do(t, g, linkgraph.Request{Action: "path", SourcePath: "Search", TargetPath: "Erin", All: true, MaxDepth: 2, MaxPaths: 2})
	if len(resp.Paths) != 2 || !resp.Truncated || resp.Stopped != "maxPaths" || all <= 2 {
		t.Errorf("maxPaths 2: %d paths, stopped %q", len(resp.Paths), resp.Stopped)
	}
}

func TestStatistics(t *testing.T) {
	g := demoGraph(t)
	rows, _ := demoRows()
	resp := do(t, g, linkgraph.Request{Action: "statistics", SourcePath: "Search"})
	st := resp.Statistics
	in, out := map[string]bool{}, map[string]bool{}
	inEdges, outEdges, unresolved := 0, 0, map[string]bool{}
	for _, e := range rows.edges {
		if e.Target == "Projects/Search.md" {
			in[e.Source] = true
			inEdges++
		}
		if e.Source == "Projects/Search.md" {
			outEdges++
			if e.Unresolved {
				unresolved[e.Target] = true
			} else {
				out[e.Target] = true
			}
		}
	}
	if st.InDegree != len(in) || st.OutDegree != len(out) || st.InEdges != inEdges || st.OutEdges != outEdges ||
		st.UnresolvedCount != len(unresolved) || st.TotalDegree != len(in)+len(out) {
		t.Errorf("statistics %+v; want in %d out %d edges %d/%d unresolved %d", st, len(in), len(out), inEdges, outEdges, len(unresolved))
	}
	if st.ByType["depends_on"] != (linkgraph.TypeCount{In: 1, Out: 2}) || st.ByType["funds"].In != 1 || st.TagCount != 3 {
		t.Errorf("byType %+v, tags %v", st.ByType, st.Tags)
	}

	resp = do(t, g, linkgraph.Request{Action: "statistics"})
	vs := resp.VaultStatistics
	if vs.Notes != 31 || vs.Stubs != 3 || vs.Edges != len(rows.edges) || vs.EdgeTypes["funds"] != 2 {
		t.Errorf("vault statistics %+v", vs)
	}
	if vs.MostLinked[0].Path != "Projects/Search.md" || vs.MostLinked[0].Links.Backward != len(in) {
		t.Errorf("most linked %+v", vs.MostLinked[:3])
	}
	if !slices.Equal(vs.Orphans, []string{"Templates/Meeting.md"}) {
		t.Errorf("orphans %v", vs.Orphans)
	}
	if u := vs.Unresolved; len(u) != 3 || u[0] != (linkgraph.UnresolvedTarget{Target: "Query Understanding", Links: 5, Sources: 5}) {
		t.Errorf("unresolved %+v", u)
	}
}

func TestRequestJSONAndErrors(t *testing.T) {
	g := demoGraph(t)
	var req linkgraph.Request
	body := `{"action":"traverse","sourcePath":"Projects/Search.md","maxDepth":1,"maxNodes":5,"followBacklinks":false,"followForwardLinks":true,"followTags":false}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	resp := do(t, g, req)
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	json.Unmarshal(b, &generic)
	node := generic["nodes"].([]any)[0].(map[string]any)
	for _, k := range []string{"path", "title", "tags", "links", "depth", "labels", "type"} {
		if _, ok := node[k]; !ok {
			t.Errorf("node lacks %q: %v", k, node)
		}
	}
	if l := node["links"].(map[string]any); l["forward"] == nil || l["backward"] == nil || l["total"] == nil {
		t.Errorf("links = %v", l)
	}
	for _, k := range []string{"operation", "nodes", "edges", "graphStats", "message", "truncated"} {
		if _, ok := generic[k]; !ok {
			t.Errorf("response lacks %q", k)
		}
	}
	for _, n := range resp.Nodes[1:] {
		if !hasEdgeFrom(resp.Edges, "Projects/Search.md", n.Path) {
			t.Errorf("followBacklinks false, yet %s was reached", n.Path)
		}
	}

	for _, bad := range []linkgraph.Request{
		{Action: "explode", SourcePath: "Search"},
		{Action: "traverse"},
		{Action: "traverse", SourcePath: "Search", FileFilter: "("},
		{Action: "path", SourcePath: "Search"},
		{Action: "neighbors", SourcePath: "Search", MaxNodes: -1},
	} {
		if _, err := g.Do(context.Background(), bad); !errors.Is(err, linkgraph.ErrInvalidRequest) {
			t.Errorf("%+v: err = %v, want ErrInvalidRequest", bad, err)
		}
	}
	if _, err := g.Do(context.Background(), linkgraph.Request{Operation: "neighbors", SourcePath: "Kickoff"}); !errors.Is(err, linkgraph.ErrAmbiguous) {
		t.Errorf("ambiguous source: %v", err)
	}
	resp = do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Search", MaxDepth: 99})
	if !strings.Contains(resp.Message, "maxDepth capped at 10") {
		t.Errorf("message %q does not say maxDepth was capped", resp.Message)
	}
}

func TestMentions(t *testing.T) {
	g := demoGraph(t)
	names := func(text string) []string {
		var out []string
		for _, i := range g.Mentions(text) {
			out = append(out, g.Note(i).Name())
		}
		return out
	}
	if got := names("What does the Search project depend on, and who works on it?"); !slices.Equal(got, []string{"Projects/Search.md"}) {
		t.Errorf("mentions = %v", got)
	}
	if got := names("Who mentors Zoe, and what is Uber Ranking about?"); !slices.Equal(got, []string{"Topics/Über Ranking.md", "People/Zoë.md"}) {
		t.Errorf("mentions = %v", got)
	}
	if got := names("Who attended the Kickoff?"); len(got) != 2 {
		t.Errorf("an ambiguous name gives all its notes: %v", got)
	}
}

// TestShortestPathIsShortest compares the bidirectional search with a
// plain breadth-first search over the golden edges, for every pair of notes.
func TestShortestPathIsShortest(t *testing.T) {
	g := demoGraph(t)
	rows, _ := demoRows()
	stub := map[string]bool{}
	for _, n := range rows.notes {
		stub[n.ID] = n.Stub
	}
	adj := map[string][]string{}
	for _, e := range rows.edges {
		adj[e.Source] = append(adj[e.Source], e.Target)
		adj[e.Target] = append(adj[e.Target], e.Source)
	}
	bfs := func(src string) map[string]int {
		dist := map[string]int{src: 0}
		queue := []string{src}
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			if stub[u] && u != src {
				continue // stubs end paths; walks do not pass through them
			}
			for _, v := range adj[u] {
				if _, ok := dist[v]; !ok {
					dist[v] = dist[u] + 1
					queue = append(queue, v)
				}
			}
		}
		return dist
	}
	ctx := context.Background()
	for _, a := range rows.notes {
		want := bfs(a.ID)
		for _, b := range rows.notes {
			resp, err := g.Path(ctx, linkgraph.Request{SourcePath: a.ID, TargetPath: b.ID})
			if err != nil {
				t.Fatal(err)
			}
			d, reachable := want[b.ID]
			if !reachable {
				if *resp.Found {
					t.Errorf("%s -> %s: found %v, want none", a.ID, b.ID, resp.Paths)
				}
				continue
			}
			if !*resp.Found || len(resp.Paths[0])-1 != d {
				t.Errorf("%s -> %s: %v, want %d hops", a.ID, b.ID, resp.Paths, d)
				continue
			}
			if len(resp.PathEdges[0]) < d {
				t.Errorf("%s -> %s: %d hop edges for %d hops", a.ID, b.ID, len(resp.PathEdges[0]), d)
			}
		}
	}
}

// TestConcurrentQueries runs every action from several goroutines on one
// graph (run with -race).
func TestConcurrentQueries(t *testing.T) {
	g := demoGraph(t)
	reqs := []linkgraph.Request{
		{Action: "traverse", SourcePath: "Search", FollowTags: true},
		{Action: "neighbors", SourcePath: "Alice"},
		{Action: "path", SourcePath: "Mallory", TargetPath: "Crawler", All: true, MaxDepth: 3},
		{Action: "statistics"},
		{Action: "statistics", SourcePath: "Bob"},
		{Action: "backlinks", SourcePath: "Ranking"},
		{Action: "forwardlinks", SourcePath: "Ranking"},
	}
	done := make(chan error, 8)
	for w := range 8 {
		go func() {
			for i := range 20 {
				if _, err := g.Do(context.Background(), reqs[(w+i)%len(reqs)]); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// The plugin's names: plain links are "link" and embeds "embed" in answers,
// and edgeTypes takes either those or the tables' names; tagFilter keeps
// notes with a tag, written with or without '#'.
func TestPluginVocabulary(t *testing.T) {
	g := demoGraph(t)
	resp := do(t, g, linkgraph.Request{Action: "neighbors", SourcePath: "Search"})
	types := map[string]bool{}
	for _, e := range resp.Edges {
		types[e.Type] = true
	}
	if !types[linkgraph.EdgeTypeLink] || types[format.TypeLinksTo] {
		t.Errorf("plain links should be type %q: %v", linkgraph.EdgeTypeLink, types)
	}
	for _, name := range []string{"link", "links_to", "LINK"} {
		resp := do(t, g, linkgraph.Request{Action: "neighbors", SourcePath: "Search", EdgeTypes: []string{name}})
		if len(resp.Edges) == 0 {
			t.Errorf("edgeTypes [%q] kept no edge", name)
		}
		for _, e := range resp.Edges {
			if e.Type != linkgraph.EdgeTypeLink {
				t.Errorf("edgeTypes [%q] kept a %s edge", name, e.Type)
			}
		}
	}
	all := do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Search", MaxDepth: 2})
	tagged := ""
	for _, n := range all.Nodes[1:] {
		if len(n.Tags) > 0 {
			tagged = n.Tags[0]
			break
		}
	}
	if tagged == "" {
		t.Fatal("no tagged note within 2 hops of Search")
	}
	for _, f := range []string{tagged, "#" + tagged} {
		resp := do(t, g, linkgraph.Request{Action: "traverse", SourcePath: "Search", MaxDepth: 2, TagFilter: []string{f}})
		if len(resp.Nodes) < 2 || len(resp.Nodes) >= len(all.Nodes) {
			t.Errorf("tagFilter [%q]: %d of %d notes", f, len(resp.Nodes), len(all.Nodes))
		}
		for _, n := range resp.Nodes[1:] {
			if !slices.Contains(n.Tags, tagged) && !slices.ContainsFunc(n.Tags, func(x string) bool { return strings.HasPrefix(x, tagged+"/") }) {
				t.Errorf("tagFilter [%q] let %s (tags %v) through", f, n.Path, n.Tags)
			}
		}
	}
}
