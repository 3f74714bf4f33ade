package retrieve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// evalSet is testdata/eval/retrieve.json.
type evalSet struct {
	Questions []evalQuestion `json:"questions"`
}

type evalQuestion struct {
	ID          int        `json:"id"`
	Question    string     `json:"question"`
	Kind        string     `json:"kind"`
	Tool        string     `json:"tool"`
	Notes       []string   `json:"notes"`
	Edges       []evalEdge `json:"edges"`
	AbsentText  []string   `json:"absent_text"`
	AbsentEdges []evalEdge `json:"absent_edges"`
	// KeyWords are, for a paraphrase, the words that carry its meaning;
	// no word of the notes it needs starts with one of them.
	KeyWords []string `json:"key_words"`
}

type evalEdge struct {
	Source string `json:"source"`
	Type   string `json:"type"`
	Target string `json:"target"`
}

func (e evalEdge) String() string { return e.Source + " -" + e.Type + "-> " + e.Target }

func loadEval(t testing.TB) evalSet {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "eval", "retrieve.json"))
	if err != nil {
		t.Fatal(err)
	}
	var set evalSet
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	return set
}

// surfaced is what one method returned for a question.
type surfaced struct {
	notes  map[string]bool
	edges  map[evalEdge]bool
	text   string
	chunks int
}

// score counts the required notes and edges a method surfaced.
type score struct {
	notes, noteHits, edges, edgeHits, questions, complete int
	// returned counts what the method returned, to weigh recall against.
	returnedNotes, returnedEdges, returnedChunks int
}

func (s *score) add(q evalQuestion, got surfaced) (missing []string) {
	s.questions++
	s.returnedNotes += len(got.notes)
	s.returnedEdges += len(got.edges)
	s.returnedChunks += got.chunks
	for _, n := range q.Notes {
		s.notes++
		if got.notes[n] {
			s.noteHits++
		} else {
			missing = append(missing, n)
		}
	}
	for _, e := range q.Edges {
		s.edges++
		if got.edges[e] {
			s.edgeHits++
		} else {
			missing = append(missing, e.String())
		}
	}
	if len(missing) == 0 {
		s.complete++
	}
	return missing
}

func (s score) recall() float64 {
	return float64(s.noteHits+s.edgeHits) / float64(max(s.notes+s.edges, 1))
}

func (s score) String() string {
	q := float64(max(s.questions, 1))
	return fmt.Sprintf("%5.1f%%  notes %3d/%3d  edges %2d/%2d  complete %2d/%2d  | per question: %4.1f chunks, %4.1f notes, %4.1f edges",
		100*s.recall(), s.noteHits, s.notes, s.edgeHits, s.edges, s.complete, s.questions,
		float64(s.returnedChunks)/q, float64(s.returnedNotes)/q, float64(s.returnedEdges)/q)
}

func fromResult(res *retrieve.Result) surfaced {
	got := surfaced{notes: map[string]bool{}, edges: map[evalEdge]bool{}}
	var text strings.Builder
	for _, n := range res.Notes {
		got.notes[n.Path] = true
	}
	for _, e := range res.Edges {
		got.edges[evalEdge{e.Source, e.Type, e.Target}] = true
	}
	for _, c := range res.Chunks {
		text.WriteString(c.Text)
	}
	got.text = text.String()
	got.chunks = len(res.Chunks)
	return got
}

// vectorBaseline is plain vector search: the top chunks (as many as
// retrieve returns at most) and, with edges, the top k edges and their ends.
func vectorBaseline(t *testing.T, ix *search.Index, e embed.Embedder, question string, chunks int, withEdges bool) surfaced {
	t.Helper()
	got := surfaced{notes: map[string]bool{}, edges: map[evalEdge]bool{}}
	res, err := ix.Search(context.Background(), search.Query{Text: question, Target: search.Chunks, K: chunks}, e)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range res.Chunks {
		got.notes[c.Note] = true
		text.WriteString(c.Text)
	}
	got.text = text.String()
	got.chunks = len(res.Chunks)
	if withEdges {
		res, err := ix.Search(context.Background(), search.Query{Text: question, Target: search.Edges, K: retrieve.DefaultK}, e)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Edges {
			got.edges[evalEdge{h.Source, h.Type, h.Target}] = true
			got.notes[h.Source], got.notes[h.Target] = true, true
		}
	}
	return got
}

// recallFloor is the recall retrieve must keep on the evaluation set with
// the builtin embedder; it sits a little below the measured figure so that
// an honest change of tuning can move it, and a regression cannot.
const recallFloor = 0.90

// TestEvalRecall runs the evaluation set with retrieve (several settings)
// and with plain vector search, and prints the recall of each; run it with
// -v for the table the README quotes.
func TestEvalRecall(t *testing.T) {
	set := loadEval(t)
	r := demoRetriever(t)
	s, err := snapshot.Open(filepath.Join(r.SnapshotDir()), snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := search.Open(s, search.Options{Text: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	e := embed.NewBuiltin()

	type method struct {
		name string
		run  func(q string) surfaced
	}
	retrieveWith := func(name string, req retrieve.Request) method {
		return method{name, func(q string) surfaced {
			req := req
			req.Question = q
			return mustRetrieve(t, r, req)
		}}
	}
	vector := func(name string, chunks int, edges bool) method {
		return method{name, func(q string) surfaced { return vectorBaseline(t, ix, e, q, chunks, edges) }}
	}
	// The first four run with the default budget of 20 chunks; the others
	// compare retrieve and vector search at smaller equal budgets.
	methods := []method{
		retrieveWith("retrieve (k 5, depth 1, 20 chunks)", retrieve.Request{}),
		retrieveWith("retrieve depth 0 (fused seeds only)", retrieve.Request{Depth: retrieve.Depth(0)}),
		retrieveWith("retrieve depth 2", retrieve.Request{Depth: retrieve.Depth(2)}),
		retrieveWith("retrieve depth 1, rank ppr", retrieve.Request{Rank: "ppr"}),
		vector("vector search: 20 chunks", 20, false),
		vector("vector search: 20 chunks + 5 edges", 20, true),
		retrieveWith("retrieve, 10 chunks", retrieve.Request{MaxChunks: 10}),
		vector("vector search: 10 chunks + 5 edges", 10, true),
		retrieveWith("retrieve, 5 chunks", retrieve.Request{MaxChunks: 5}),
		vector("vector search: 5 chunks + 5 edges", 5, true),
	}
	scores := make([]score, len(methods))
	for _, q := range set.Questions {
		if q.Tool != "" || q.Kind == "paraphrase" {
			continue // paraphrases: TestEvalEmbedders
		}
		for i, m := range methods {
			got := m.run(q.Question)
			missing := scores[i].add(q, got)
			if i == 0 && len(missing) > 0 {
				t.Logf("q%-2d %s\n      missing: %s", q.ID, q.Question, strings.Join(missing, "; "))
			}
			if i < 4 || i == 6 || i == 8 {
				checkAbsent(t, q, got)
			}
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "recall on testdata/eval/retrieve.json (%d questions, builtin lexical embedder):\n", scores[0].questions)
	for i, m := range methods {
		fmt.Fprintf(&table, "  %-38s %s\n", m.name, scores[i])
	}
	t.Log("\n" + table.String())
	if got := scores[0].recall(); got < recallFloor {
		t.Errorf("retrieve recall %.3f is below the floor %.2f", got, recallFloor)
	}
	for _, pair := range [][2]int{{0, 5}, {6, 7}} {
		if a, b := scores[pair[0]].recall(), scores[pair[1]].recall(); a <= b {
			t.Errorf("%s (%.3f) does not beat %s (%.3f)", methods[pair[0]].name, a, methods[pair[1]].name, b)
		}
	}
	// At 5 passages plain vector search with 5 edges (78.8%) beats
	// retrieve (72.7%) since plain links have no vectors: its 5 edges are
	// typed ones, no longer "A links to B" sentences (66.7% with them).
	// Retrieve never used those vectors and keeps its figure.
	if got := scores[8].recall(); got < smallBudgetFloor {
		t.Errorf("%s recall %.3f is below the floor %.2f", methods[8].name, got, smallBudgetFloor)
	}
}

// smallBudgetFloor is retrieve's recall at 5 passages (measured 0.727),
// a little below as recallFloor is.
const smallBudgetFloor = 0.70

func mustRetrieve(t *testing.T, r *retrieve.Retriever, req retrieve.Request) surfaced {
	t.Helper()
	res, err := r.Retrieve(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return fromResult(res)
}

func checkAbsent(t *testing.T, q evalQuestion, got surfaced) {
	t.Helper()
	for _, w := range q.AbsentText {
		if strings.Contains(strings.ToLower(got.text), w) {
			t.Errorf("q%d: %q surfaced although only the trash holds it", q.ID, w)
		}
	}
	for _, a := range q.AbsentEdges {
		for e := range got.edges {
			if (a.Source == "*" || a.Source == e.Source) && a.Type == e.Type && a.Target == e.Target {
				t.Errorf("q%d: edge %s surfaced, which the vault does not have", q.ID, e)
			}
		}
	}
}

// TestEvalSetMatchesVault checks the evaluation set against the demo
// snapshot: every note and edge it requires exists, so that a change to the
// vault cannot silently make questions unanswerable.
func TestEvalSetMatchesVault(t *testing.T) {
	set := loadEval(t)
	if n := len(set.Questions); n < 25 {
		t.Fatalf("%d questions, want at least 25", n)
	}
	r := demoRetriever(t)
	s, err := snapshot.Open(r.SnapshotDir(), snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notes, err := s.Notes()
	if err != nil {
		t.Fatal(err)
	}
	edges, err := s.Edges()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, n := range notes {
		ids[n.ID] = true
	}
	have := map[evalEdge]bool{}
	for _, e := range edges {
		have[evalEdge{e.Source, e.Type, e.Target}] = true
	}
	for _, q := range set.Questions {
		for _, n := range q.Notes {
			if !ids[n] {
				t.Errorf("q%d requires note %s, which the vault does not have", q.ID, n)
			}
		}
		for _, e := range q.Edges {
			if !have[e] {
				t.Errorf("q%d requires edge %s, which the vault does not have", q.ID, e)
			}
		}
	}
}
