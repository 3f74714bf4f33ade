package retrieve_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// embedderCase is one embedder the evaluation compares.
type embedderCase struct {
	name string
	new  func() (embed.Embedder, error)
}

func staticWith(o embed.StaticOptions) func() (embed.Embedder, error) {
	return func() (embed.Embedder, error) { return embed.NewStaticWith(o) }
}

// evalEmbedders are lexical (the embedder before issue 16), the default and
// its parts; VAULTGRAPH_EVAL_WEIGHTS=1 adds the weights it was chosen from.
func evalEmbedders() []embedderCase {
	cases := []embedderCase{
		{"lexical (hashed n-grams)", func() (embed.Embedder, error) { return embed.NewBuiltin(), nil }},
		{"word vectors only", staticWith(embed.StaticOptions{SemanticWeight: 1})},
		{"default: word vectors + lexical", func() (embed.Embedder, error) { return embed.NewStatic() }},
	}
	if os.Getenv("VAULTGRAPH_EVAL_WEIGHTS") != "" {
		for _, w := range []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8} {
			for _, d := range []int{156, 284, 384} {
				cases = append(cases, embedderCase{fmt.Sprintf("w %.1f, lexical %d dims", w, d),
					staticWith(embed.StaticOptions{SemanticWeight: w, LexicalDims: d})})
			}
		}
	}
	return cases
}

// budgetScore is recall and first-note precision at one budget.
type budgetScore struct {
	found, need     int
	first, answered int
}

// add counts what got surfaced of what q needs: its notes, and with edges
// its edges (chunk search returns no edges).
func (b *budgetScore) add(q evalQuestion, got surfaced, first string, edges bool) {
	for _, n := range q.Notes {
		b.need++
		if got.notes[n] {
			b.found++
		}
	}
	for _, e := range q.Edges {
		if edges {
			b.need++
			if got.edges[e] {
				b.found++
			}
		}
	}
	if len(q.Notes) > 0 {
		b.answered++
		for _, n := range q.Notes {
			if n == first {
				b.first++
				break
			}
		}
	}
}

func (b budgetScore) recall() float64 { return float64(b.found) / float64(max(b.need, 1)) }
func (b budgetScore) firstRight() float64 {
	return float64(b.first) / float64(max(b.answered, 1))
}

// evalMethods are the ways of answering the evaluation compares: retrieve,
// and chunk search with each of its methods.
var evalMethods = []string{"retrieve", "search", "search vectors", "search bm25"}

// evalRow is one embedder's scores on one question set, per method, at 5
// and 10 passages.
type evalRow map[string]*[2]budgetScore

func (r evalRow) String() string {
	var b strings.Builder
	for i, m := range evalMethods {
		if i > 0 {
			b.WriteString(" |")
		}
		s := r[m]
		fmt.Fprintf(&b, " %4.2f %4.2f %4.2f", s[0].recall(), s[1].recall(), s[0].firstRight())
	}
	return b.String()
}

// TestEvalEmbedders compares embedders on the evaluation set, split into
// the original questions and the paraphrases (questions whose key words
// occur in none of the notes they need): recall at 5 and 10 passages and
// the share of questions whose first cited note is one they need, for
// retrieve (notes and edges) and for chunk search (notes) with fused,
// vector and BM25 rankings. Run with -v for the table the README quotes.
func TestEvalEmbedders(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the demo vault once per embedder")
	}
	set := loadEval(t)
	vault := filepath.Join("..", "..", "testdata", "demo-vault")
	var table strings.Builder
	fmt.Fprintf(&table, "%-32s %-6s", "embedder", "set")
	for _, m := range evalMethods {
		fmt.Fprintf(&table, " | %-14s", m)
	}
	fmt.Fprintf(&table, "\n%-39s", "")
	for range evalMethods {
		fmt.Fprintf(&table, " | r@5  r@10 1st")
	}
	table.WriteString("\n")
	rows := map[string][2]evalRow{}
	for _, ec := range evalEmbedders() {
		e, err := ec.new()
		if err != nil {
			t.Fatal(err)
		}
		s, err := indexVault(vault, &indexer.EmbedStage{Embedder: e}, indexer.BM25Stage{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := linkgraph.Load(s)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := search.Open(s, search.Options{Text: true})
		if err != nil {
			t.Fatal(err)
		}
		r, err := retrieve.New(retrieve.Sources{Snapshot: s, Graph: g, Search: ix, Embedder: e})
		if err != nil {
			t.Fatal(err)
		}
		row := [2]evalRow{{}, {}} // original, paraphrase
		for _, m := range evalMethods {
			row[0][m], row[1][m] = &[2]budgetScore{}, &[2]budgetScore{}
		}
		for _, q := range set.Questions {
			if q.Tool != "" {
				continue
			}
			k := 0
			if q.Kind == "paraphrase" {
				k = 1
			}
			for b, chunks := range []int{5, 10} {
				res, err := r.Retrieve(context.Background(), retrieve.Request{Question: q.Question, MaxChunks: chunks})
				if err != nil {
					t.Fatal(err)
				}
				first := ""
				if len(res.Chunks) > 0 {
					first = res.Chunks[0].Path
				}
				row[k]["retrieve"][b].add(q, fromResult(res), first, true)
				for _, m := range []search.Method{search.Fused, search.VectorsOnly, search.BM25Only} {
					name := "search"
					if m != search.Fused {
						name += " " + string(m)
					}
					got, first := searchChunks(t, ix, e, m, q.Question, chunks)
					row[k][name][b].add(q, got, first, false)
				}
			}
		}
		ix.Close()
		rows[ec.name] = row
		fmt.Fprintf(&table, "%-32s %-6s %s\n%-32s %-6s %s\n", ec.name, "orig.", row[0], "", "para.", row[1])
	}
	t.Log("\n" + table.String())
	lex, def := rows["lexical (hashed n-grams)"], rows["default: word vectors + lexical"]
	// The point of the default: paraphrases are found that the lexical
	// embedder misses, at both budgets, by retrieve and by search.
	for _, m := range []string{"retrieve", "search"} {
		for b := range 2 {
			if d, l := def[1][m][b].recall(), lex[1][m][b].recall(); d <= l {
				t.Errorf("%s at %d passages: on paraphrases the default's recall %.2f does not beat lexical's %.2f", m, 5*(b+1), d, l)
			}
		}
	}
}

// searchChunks is chunk search with a budget and a method: the notes of
// the passages and the first one.
func searchChunks(t *testing.T, ix *search.Index, e embed.Embedder, m search.Method, question string, chunks int) (surfaced, string) {
	t.Helper()
	got := surfaced{notes: map[string]bool{}, edges: map[evalEdge]bool{}}
	res, err := ix.Search(context.Background(), search.Query{Text: question, Target: search.Chunks, K: chunks, Method: m}, e)
	if err != nil {
		t.Fatal(err)
	}
	first := ""
	for i, c := range res.Chunks {
		got.notes[c.Note] = true
		if i == 0 {
			first = c.Note
		}
	}
	return got, first
}

// TestParaphrasesShareNoKeyWords checks what makes a paraphrase one: at
// least 15 of them, and none of their key words begins a word of a note
// they need (so "worr" rules out worried and worries).
func TestParaphrasesShareNoKeyWords(t *testing.T) {
	set := loadEval(t)
	n := 0
	for _, q := range set.Questions {
		if q.Kind != "paraphrase" {
			continue
		}
		n++
		if len(q.KeyWords) == 0 || len(q.Notes) == 0 {
			t.Errorf("q%d has no key words or no notes", q.ID)
		}
		for _, path := range q.Notes {
			b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo-vault", path))
			if err != nil {
				t.Fatal(err)
			}
			words := strings.FieldsFunc(strings.ToLower(norm.NFC.String(string(b))), func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r)
			})
			for _, k := range q.KeyWords {
				for _, w := range words {
					if strings.HasPrefix(w, strings.ToLower(k)) {
						t.Errorf("q%d %q: key word %q occurs in %s as %q", q.ID, q.Question, k, path, w)
						break
					}
				}
			}
		}
	}
	if n < 15 {
		t.Errorf("%d paraphrase questions, want at least 15", n)
	}
}
