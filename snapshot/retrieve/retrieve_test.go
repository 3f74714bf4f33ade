package retrieve_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// The example: the question names neither money nor people, yet
// the answer must include who works on Search and Acme's funding edge.
func TestSearchDependenciesAndPeople(t *testing.T) {
	r := demoRetriever(t)
	res, err := r.Retrieve(context.Background(), retrieve.Request{Question: "What does the Search project depend on, and who works on it?"})
	if err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Logf("%s", b)
	}
	notes := map[string]retrieve.Note{}
	for _, n := range res.Notes {
		notes[n.Path] = n
	}
	for _, want := range []string{"Projects/Search.md", "Projects/Ranking.md", "Projects/Crawler.md", "People/Alice.md", "People/Bob.md", "People/Zoë.md"} {
		if _, ok := notes[want]; !ok {
			t.Errorf("note %s not returned", want)
		}
	}
	if n := notes["Projects/Search.md"]; n.Role != retrieve.RoleHit || n.Chunks == 0 {
		t.Errorf("Search is %+v, want a hit with chunks", n)
	}
	edges := map[string]retrieve.Edge{}
	for _, e := range res.Edges {
		edges[e.Source+" "+e.Type+" "+e.Target] = e
	}
	for _, want := range []string{
		"Projects/Search.md depends_on Projects/Ranking.md",
		"Projects/Search.md depends_on Projects/Crawler.md",
		"People/Alice.md leads Projects/Search.md",
		"People/Bob.md contributes Projects/Search.md",
		"People/Zoë.md contributes Projects/Search.md",
		"Companies/Acme.md funds Projects/Search.md",
	} {
		if _, ok := edges[want]; !ok {
			t.Errorf("edge %s not returned", want)
		}
	}
	funds := edges["Companies/Acme.md funds Projects/Search.md"]
	if p := funds.Properties.Map(); p["amount"] != int64(250000) || p["currency"] != "EUR" {
		t.Errorf("funding edge properties = %v", p)
	}
	if h := edges["People/Bob.md contributes Projects/Search.md"].Properties.Map(); h["hours"] != int64(120) {
		t.Errorf("Bob's hours = %v", h)
	}
	if h := edges["People/Zoë.md contributes Projects/Search.md"].Properties.Map(); h["hours"] != int64(60) {
		t.Errorf("Zoë's hours = %v", h)
	}
	checkShape(t, res)
}

// checkShape checks what every result promises: the notice, hits before
// neighbours, neighbours by distance, chunks of returned notes only, edges
// between returned notes, the budget.
func checkShape(t *testing.T, res *retrieve.Result) {
	t.Helper()
	if res.Notice != retrieve.Notice || !strings.Contains(res.Notice, "data") || !strings.Contains(res.Notice, "instructions") {
		t.Errorf("notice = %q", res.Notice)
	}
	returned := map[string]bool{}
	for _, n := range res.Notes {
		returned[n.Path] = true
	}
	seenNeighbor, lastHops := false, 0
	for _, c := range res.Chunks {
		if c.Text == "" || c.Path == "" || !returned[c.Path] {
			t.Errorf("chunk %s: empty or of a note not returned", c.ID)
		}
		switch c.Role {
		case retrieve.RoleHit:
			if seenNeighbor {
				t.Errorf("hit chunk %s after a neighbour", c.ID)
			}
			if c.Hops != 0 {
				t.Errorf("hit chunk %s at %d hops", c.ID, c.Hops)
			}
		case retrieve.RoleNeighbor:
			seenNeighbor = true
			if c.Hops < lastHops && res.Rank == retrieve.RankDistance {
				t.Errorf("neighbour %s at %d hops after one at %d", c.ID, c.Hops, lastHops)
			}
			lastHops = c.Hops
			if c.Hops < 1 || c.Via == "" {
				t.Errorf("neighbour chunk %s: hops %d, via %q", c.ID, c.Hops, c.Via)
			}
		default:
			t.Errorf("chunk %s has role %q", c.ID, c.Role)
		}
	}
	for _, e := range res.Edges {
		if e.Role == retrieve.RoleConnecting && (!returned[e.Source] || !returned[e.Target]) {
			t.Errorf("connecting edge %s between notes not returned", e.ID)
		}
		if e.Sentence == "" || e.Properties == nil {
			t.Errorf("edge %s lacks sentence or properties", e.ID)
		}
	}
}

func TestRetrieveOptions(t *testing.T) {
	r := demoRetriever(t)
	ctx := context.Background()
	q := "Who funds Ranking, and how much?"
	base, err := r.Retrieve(ctx, retrieve.Request{Question: q, Depth: retrieve.Depth(0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range base.Chunks {
		if c.Role != retrieve.RoleHit {
			t.Errorf("depth 0 returned neighbour %s", c.ID)
		}
	}
	small, err := r.Retrieve(ctx, retrieve.Request{Question: q, Depth: retrieve.Depth(2), MaxChunks: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(small.Chunks) != 3 || !small.Truncated {
		t.Errorf("max_chunks 3: %d chunks, truncated %v", len(small.Chunks), small.Truncated)
	}
	checkShape(t, small)
	typed, err := r.Retrieve(ctx, retrieve.Request{Question: q, Types: []string{"funds"}, Depth: retrieve.Depth(1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range typed.Edges {
		if e.Type != "funds" {
			t.Errorf("types [funds] returned a %s edge", e.Type)
		}
	}
	found := false
	for _, e := range typed.Edges {
		found = found || (e.Source == "Companies/Initech.md" && e.Target == "Projects/Ranking.md")
	}
	if !found {
		t.Errorf("Initech's funding of Ranking not found: %+v", typed.Edges)
	}
	ppr, err := r.Retrieve(ctx, retrieve.Request{Question: q, Rank: "ppr", Depth: retrieve.Depth(2)})
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, ppr)
	for _, c := range ppr.Chunks {
		if c.Role == retrieve.RoleNeighbor && c.PPR <= 0 {
			t.Errorf("ppr neighbour %s without a PageRank", c.ID)
		}
	}

	for _, bad := range []retrieve.Request{
		{},
		{Question: "x", K: -1},
		{Question: "x", Rank: "random"},
		{Question: strings.Repeat("x", 5000)},
	} {
		if _, err := r.Retrieve(ctx, bad); !errors.Is(err, retrieve.ErrInvalidRequest) {
			t.Errorf("%+v: err = %v, want ErrInvalidRequest", bad, err)
		}
	}
}

func TestRequestJSON(t *testing.T) {
	var req retrieve.Request
	body := `{"question":"q","k":3,"depth":0,"types":["funds"],"chunk_cap":7,"neighbor_cap":2,"rank":"ppr"}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if req.K != 3 || req.Depth == nil || *req.Depth != 0 || req.MaxChunks != 7 || req.PerNodeCap != 2 || req.Rank != "ppr" || req.Types[0] != "funds" {
		t.Errorf("decoded %+v", req)
	}
}

// TestConcurrentRetrieve runs questions from several goroutines at once on
// one Retriever (run with -race): it is shared by every request a server
// answers from a snapshot.
func TestConcurrentRetrieve(t *testing.T) {
	r := demoRetriever(t)
	questions := []string{"Who funds Ranking?", "Who leads Search?", "Why is Atlas paused?", "Who wrote Learning to Rank Notes?"}
	want := make([]string, len(questions))
	for i, q := range questions {
		res, err := r.Retrieve(context.Background(), retrieve.Request{Question: q, Rank: "ppr"})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = fingerprint(res)
	}
	errs := make(chan error, 8)
	for w := range 8 {
		go func() {
			for i := range 12 {
				k := (w + i) % len(questions)
				res, err := r.Retrieve(context.Background(), retrieve.Request{Question: questions[k], Rank: "ppr"})
				if err == nil && fingerprint(res) != want[k] {
					err = errors.New("answer differs under concurrency: " + questions[k])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func fingerprint(res *retrieve.Result) string {
	var b strings.Builder
	for _, c := range res.Chunks {
		b.WriteString(c.ID + "|")
	}
	for _, e := range res.Edges {
		b.WriteString(e.ID + "|")
	}
	return b.String()
}

// TestTypedWalkEqualsNamedTypes: a request naming the typed edges' types
// (and one no edge has) walks the same edges as one naming none, which
// takes the adjacency of typed edges listed once per snapshot; so the
// answers are the same, at every depth and with either ranking.
func TestTypedWalkEqualsNamedTypes(t *testing.T) {
	r := demoRetriever(t)
	s, err := snapshot.Open(r.SnapshotDir(), snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := linkgraph.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	named := append(slices.Clone(g.TypedEdgeTypes()), "no_edge_has_this_type")
	if len(named) < 3 {
		t.Fatalf("the demo vault has typed edges of %d types", len(named)-1)
	}
	ctx := context.Background()
	for _, q := range []string{"Who funds Ranking, and how much?", "Who leads Search?", "Why is Atlas paused?", "What does the crawler depend on?"} {
		for _, rank := range []string{retrieve.RankDistance, retrieve.RankPPR} {
			for depth := range retrieve.MaxDepth + 1 {
				req := retrieve.Request{Question: q, Rank: rank, Depth: retrieve.Depth(depth), PerNodeCap: 2}
				want, err := r.Retrieve(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				req.Types = named
				got, err := r.Retrieve(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				want.ElapsedMS, got.ElapsedMS = 0, 0
				w, _ := json.Marshal(want)
				h, _ := json.Marshal(got)
				if string(w) != string(h) {
					t.Errorf("%q rank %s depth %d: with the types named\n%s\nwithout\n%s", q, rank, depth, h, w)
				}
			}
		}
	}
}
