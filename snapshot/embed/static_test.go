package embed_test

import (
	"math"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

func newStatic(t testing.TB, o embed.StaticOptions) *embed.Static {
	t.Helper()
	e, err := embed.NewStaticWith(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestStaticIsDeterministicAndUnit(t *testing.T) {
	a, b := newStatic(t, embed.StaticOptions{}), newStatic(t, embed.StaticOptions{})
	for _, text := range []string{
		"Note: Acme\nLabels: Company\n\nAcme funds the Search project with 250000 EUR.",
		"the",                      // one frequent word
		"Lindqvist Okafor xq-7781", // no word the table has: lexical half only
		"Straße, Größe — naïve café; 東京は日本の首都です。", // other scripts
		strings.Repeat("long passage about crawlers and indexes ", 200),
	} {
		va, vb := embedOne(t, a, embed.Document, text), embedOne(t, b, embed.Query, text)
		if len(va) != 100+embed.StaticLexicalDims {
			t.Fatalf("dims = %d", len(va))
		}
		for i := range va {
			if va[i] != vb[i] {
				t.Fatalf("%.30q: vectors differ at %d between two embedders or tasks", text, i)
			}
		}
		if n := math.Sqrt(dot(va, va)); math.Abs(n-1) > 1e-5 {
			t.Errorf("%.30q: norm %v, want 1", text, n)
		}
	}
	if v := embedOne(t, a, embed.Document, " -- !! "); dot(v, v) != 0 {
		t.Errorf("punctuation-only text has a non-zero vector")
	}
}

// paraphrases are (question, passage that answers it in other words,
// passage on another subject); neither passage shares a content word with
// the question.
var paraphrases = [][3]string{
	{"which company pays for the search work", "Acme funds the project with 250,000 EUR.", "The garden was full of roses in June."},
	{"who is the boss of the spider", "Erin leads the crawler team and manages its engineers.", "The soup needs more salt and a little pepper."},
	{"how fast must results appear", "The latency target is 150 milliseconds at the 95th percentile.", "Her grandmother grew up on a farm near the coast."},
	{"automobile repair costs", "Fixing a car at the garage cost 800 euros.", "The choir sang two hymns at the wedding."},
	{"physician salaries", "Doctors earn more than nurses in most hospitals.", "The river froze early that winter."},
	{"people who quit the firm", "Mallory left Acme after a dispute about credit.", "A blue kite drifted over the beach."},
	{"when was the meeting held", "The kickoff took place on Monday 6 May 2024.", "Penguins cannot fly but swim very well."},
	{"the kitten slept on the rug", "A cat was resting on the carpet.", "Interest rates rose for the third quarter."},
	{"money for the research lab", "Initech's grant covers the scientists' salaries.", "The violin was tuned before the concert."},
	{"programming language of the engine", "The core is written in Rust and the glue code in Go.", "We picked apples and baked a pie."},
	{"who distrusts the team lead", "Mallory is suspicious of Alice and doubts her motives.", "The bakery opens at seven on weekdays."},
	{"why was the graph initiative put on ice", "Atlas is paused until the interface it waits for ships.", "The hikers reached the summit before noon."},
}

// TestStaticFindsParaphrases checks what the word vectors add: a passage
// that answers a question in other words is closer to it than a passage
// on another subject, although neither shares a word with it. The lexical
// embedder can only guess (its features of unshared words are noise).
func TestStaticFindsParaphrases(t *testing.T) {
	wins := func(e embed.Embedder) (n int, lost []string) {
		for _, p := range paraphrases {
			q := embedOne(t, e, embed.Query, p[0])
			if dot(q, embedOne(t, e, embed.Document, p[1])) > dot(q, embedOne(t, e, embed.Document, p[2])) {
				n++
			} else {
				lost = append(lost, p[0])
			}
		}
		return n, lost
	}
	static, lost := wins(newStatic(t, embed.StaticOptions{}))
	lexical, _ := wins(embed.NewBuiltin())
	t.Logf("paraphrase wins: static %d/%d, lexical %d/%d", static, len(paraphrases), lexical, len(paraphrases))
	if static < len(paraphrases) {
		t.Errorf("static embedder wins %d of %d paraphrase triplets; lost %q", static, len(paraphrases), lost)
	}
	if static <= lexical {
		t.Errorf("static embedder (%d wins) is no better than the lexical one (%d)", static, lexical)
	}
}

// TestStaticKeepsLexicalSignal checks that words the table lacks (names,
// identifiers) still find their passages through the lexical half.
func TestStaticKeepsLexicalSignal(t *testing.T) {
	e := newStatic(t, embed.StaticOptions{})
	docs := []string{
		"Zoë Lindqvist owns the evaluation harness.",
		"Bob Okafor owns the posting-list code.",
		"Ticket VG-4711 tracks the crash in the exporter.",
		"The weather in Rotterdam was grey all week.",
	}
	for i, q := range []string{"Lindqvist", "Okafor", "VG-4711"} {
		qv := embedOne(t, e, embed.Query, q)
		best, bestScore := -1, -1.0
		for j, d := range docs {
			if s := dot(qv, embedOne(t, e, embed.Document, d)); s > bestScore {
				best, bestScore = j, s
			}
		}
		if best != i {
			t.Errorf("query %q finds %q first", q, docs[best])
		}
	}
}

func TestStaticInfoAndSpec(t *testing.T) {
	def := newStatic(t, embed.StaticOptions{}).Info()
	if def.Kind != format.EmbedderStatic || def.Provider != "builtin" || def.Model != embed.StaticModel ||
		def.Dimensions != 256 || !strings.Contains(def.Note, "GloVe") {
		t.Errorf("info %+v", def)
	}
	// The spec a manifest records selects the same embedder again.
	e, err := embed.ForSnapshot(def.Manifest(def.Dimensions), embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Info().Fingerprint != def.Fingerprint {
		t.Error("ForSnapshot gives another fingerprint")
	}
	// So does the lexical embedder's, as manifests before the static one
	// recorded it.
	lex := embed.NewBuiltin().Info()
	e, err = embed.ForSnapshot(&format.Embedder{Provider: "builtin", Model: lex.Model, Dimensions: 384, Fingerprint: lex.Fingerprint}, embed.Config{})
	if err != nil || e.Info().Fingerprint != lex.Fingerprint {
		t.Errorf("a lexical snapshot gets %v, %v", e, err)
	}
	// Other weights are other vectors.
	other := newStatic(t, embed.StaticOptions{SemanticWeight: 1}).Info()
	if other.Fingerprint == def.Fingerprint || other.Model == def.Model || other.Dimensions != 100 {
		t.Errorf("word vectors only: %+v", other)
	}
	if _, err := embed.ForSnapshot(other.Manifest(100), embed.Config{}); err == nil {
		t.Error("ForSnapshot accepts a measurement variant")
	}
	if err := embed.Check(lex.Manifest(384), def); err == nil {
		t.Error("lexical and static vectors compare")
	}
	if _, err := embed.NewStaticWith(embed.StaticOptions{SemanticWeight: 1.5}); err == nil {
		t.Error("weight 1.5 accepted")
	}
}

// BenchmarkStatic measures the default embedder's throughput on the
// passages of BenchmarkBuiltin, on one core.
func BenchmarkStatic(b *testing.B) {
	texts := benchTexts()
	e := newStatic(b, embed.StaticOptions{})
	benchEmbed(b, e, texts)
}
