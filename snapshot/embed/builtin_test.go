package embed_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

func embedOne(t testing.TB, e embed.Embedder, task embed.Task, text string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), task, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestBuiltinIsDeterministicAndUnit(t *testing.T) {
	texts := []string{
		"Note: Acme\nLabels: Company\n\nAcme funds the Search project with 250000 EUR.",
		"a",
		"Straße, Größe — naïve café; 東京は日本の首都です。",
		strings.Repeat("long passage about crawlers and indexes ", 200),
	}
	a, b := embed.NewBuiltin(), embed.NewBuiltin()
	for _, text := range texts {
		va, vb := embedOne(t, a, embed.Document, text), embedOne(t, b, embed.Query, text)
		if len(va) != embed.BuiltinDims {
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
	// Text without a single word character has no features.
	if v := embedOne(t, a, embed.Document, " -- !! "); dot(v, v) != 0 {
		t.Errorf("punctuation-only text has a non-zero vector")
	}
}

func TestBuiltinFoldsCaseAndUnicodeForms(t *testing.T) {
	e := embed.NewBuiltin()
	pairs := []struct{ a, b string }{
		{"ACME Funds Search", "acme funds search"},
		{"Café", "Cafe\u0301"},     // NFC and NFD
		{"ΟΔΥΣΣΕΥΣ", "οδυσσευς"},   // final sigma folds like sigma
		{"ｆｕｌｌｗｉｄｔｈ", "fullwidth"}, // NFKC
		{"Müller GmbH", "MÜLLER gmbh"},
	}
	for _, p := range pairs {
		if s := dot(embedOne(t, e, embed.Document, p.a), embedOne(t, e, embed.Document, p.b)); s < 0.999 {
			t.Errorf("similarity(%q, %q) = %.3f, want 1", p.a, p.b, s)
		}
	}
}

// TestBuiltinRanksRelatedPassagesFirst checks what a lexical embedder can
// promise: passages sharing the query's words (or their stems) rank above
// passages that do not.
func TestBuiltinRanksRelatedPassagesFirst(t *testing.T) {
	e := embed.NewBuiltin()
	docs := map[string]string{
		"acme-funds":   format.EmbedText("Note: Acme\nLabels: Company", "Acme funds the Search project: 250000 EUR over two years."),
		"acme-funding": format.EmbedText("Note: Search\nLabels: Project", "Funding comes from Acme; the grant covers the crawler."),
		"acme-profile": format.EmbedText("Note: Acme\nLabels: Company", "Acme is a company based in Berlin that builds robots."),
		"bob":          format.EmbedText("Note: Bob Smith\nLabels: Person", "Bob works on the crawler and likes climbing."),
		"recipe":       format.EmbedText("Note: Pancakes", "Mix flour, eggs and milk; fry in butter until golden."),
		"meeting":      format.EmbedText("Note: Weekly meeting", "We discussed the roadmap, hiring and the office move."),
		"cjk":          format.EmbedText("Note: 東京", "東京は日本の首都です。人口は多い。"),
	}
	rank := func(query string) []string {
		q := embedOne(t, e, embed.Query, query)
		var ids []string
		scores := map[string]float64{}
		for id, text := range docs {
			ids = append(ids, id)
			scores[id] = dot(q, embedOne(t, e, embed.Document, text))
		}
		sort.Slice(ids, func(i, j int) bool { return scores[ids[i]] > scores[ids[j]] })
		return ids
	}
	tests := []struct {
		query string
		top   []string // must be the first len(top), in any order
	}{
		{"Acme funds", []string{"acme-funds", "acme-funding", "acme-profile"}},
		{"who funds the search project", []string{"acme-funds", "acme-funding"}},
		{"pancake recipe with eggs", []string{"recipe"}},
		{"crawler", []string{"bob", "acme-funding"}},
		{"東京の人口", []string{"cjk"}},
	}
	for _, tc := range tests {
		got := rank(tc.query)
		top := map[string]bool{}
		for _, id := range got[:len(tc.top)] {
			top[id] = true
		}
		for _, id := range tc.top {
			if !top[id] {
				t.Errorf("query %q ranks %v; want %v first", tc.query, got, tc.top)
				break
			}
		}
	}
}

func TestBuiltinFingerprint(t *testing.T) {
	a, b := embed.NewBuiltin().Info(), embed.NewBuiltinDims(512).Info()
	if a.Fingerprint == b.Fingerprint {
		t.Error("fingerprint does not change with the dimension")
	}
	if a.Fingerprint != embed.NewBuiltin().Info().Fingerprint {
		t.Error("fingerprint is not stable")
	}
	if a.Kind != format.EmbedderLexical || !strings.Contains(a.Note, "not semantic") {
		t.Errorf("builtin is not recorded as lexical: %+v", a)
	}
}

// BenchmarkBuiltin measures builtin throughput on chunk-sized passages
// (about 1,500 characters, like format.DefaultChunkChars) on one core.
func BenchmarkBuiltin(b *testing.B) {
	texts := benchTexts()
	e := embed.NewBuiltin()
	benchEmbed(b, e, texts)
}

// benchTexts are 256 passages of about 1,500 characters.
func benchTexts() []string {
	words := strings.Fields("the crawler indexes notes about Acme funding projects people and companies " +
		"Müller visited Zürich while Bob wrote a report on embeddings vectors graphs search latency recall")
	texts := make([]string, 256)
	for i := range texts {
		var sb strings.Builder
		for j := 0; sb.Len() < 1500; j++ {
			sb.WriteString(words[(i*7+j*13)%len(words)])
			sb.WriteString(fmt.Sprint(" ", j%5, " "))
		}
		texts[i] = "Note: Bench\nLabels: Test\n\n" + sb.String()
	}
	return texts
}

// benchEmbed embeds one passage per iteration on one locked OS thread and
// reports chunks per second of wall-clock time and per second of that
// thread's CPU time (chunks/cpu-s: throughput per core, whatever else the
// machine runs).
func benchEmbed(b *testing.B, e embed.Embedder, texts []string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx := context.Background()
	n := 0
	cpu := threadCPU()
	for b.Loop() {
		if _, err := e.Embed(ctx, embed.Document, texts[n%len(texts):n%len(texts)+1]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
	if used := threadCPU() - cpu; used > 0 {
		b.ReportMetric(float64(n)/used, "chunks/cpu-s")
	}
}
