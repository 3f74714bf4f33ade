package bm25

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"What does the Search project depend on, and who works on it?", []string{"search", "project", "depend", "work"}},
		{"Zoë's Über-Ranking: dependencies, funds & crawlers", []string{"zoe", "uber", "ranking", "dependency", "fund", "crawler"}},
		{"BM25 b = 0.3; p95 latency 150 ms; nDCG@10 0.47", []string{"bm25", "0", "3", "p95", "latency", "150", "ms", "ndcg", "10", "0", "47"}},
		{"depends_on:: [[Crawler]] {critical: true}", []string{"depend", "crawler", "critical", "true"}},
		{"analysis bus glass status", []string{"analysis", "bus", "glass", "status"}},
		{"ＡＣＭＥ Corp", []string{"acme", "corp"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := Tokenize(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// sample builds a small index and returns its file's bytes.
func sample(t testing.TB) ([]byte, []string) {
	t.Helper()
	docs := []string{
		"Acme funds the Search project with 250000 EUR",
		"Search depends on Ranking and the Crawler",
		"Bob contributes 120 hours to Search; Zoë contributes 60 hours",
		"The crawler recrawls pages every 36 hours",
		"",
	}
	b := NewBuilder()
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = "doc" + string(rune('0'+i))
		b.Add(ids[i], Tokenize(d))
	}
	path := filepath.Join(t.TempDir(), format.BM25File)
	sec, err := b.WriteFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sec.Docs != len(docs) || sec.File != format.BM25File || sec.Terms == 0 {
		t.Fatalf("section %+v", sec)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data, ids
}

func TestRoundTrip(t *testing.T) {
	data, ids := sample(t)
	ix, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Docs() != 5 || ix.DocsDigest() != DocsDigest(ids) {
		t.Fatalf("docs %d, digest mismatch %v", ix.Docs(), ix.DocsDigest() != DocsDigest(ids))
	}
	hits := ix.Search(Tokenize("how many hours does Zoe contribute"), 10)
	if len(hits) == 0 || hits[0].Doc != 2 {
		t.Fatalf("hits = %+v, want doc 2 first", hits)
	}
	hits = ix.Search(Tokenize("crawler"), 10)
	if len(hits) != 2 || !(hits[0].Doc == 3 || hits[0].Doc == 1) {
		t.Errorf("crawler hits = %+v", hits)
	}
	if hits := ix.Search(Tokenize("zeppelin"), 10); len(hits) != 0 {
		t.Errorf("unknown term found %+v", hits)
	}
	// Rarer terms weigh more: "250000" is in one document, "search" in three.
	s := ix.Scores(Tokenize("250000 search"))
	if !(s[0] > s[1] && s[0] > s[2]) {
		t.Errorf("scores %v", s)
	}
	if len(Top(s, 0)) != 0 || len(Top(s, 1)) != 1 {
		t.Error("Top bounds")
	}
}

func TestCorruptFiles(t *testing.T) {
	data, _ := sample(t)
	le := binary.LittleEndian
	set32 := func(off int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { le.PutUint32(b[off:], v); return b }
	}
	tests := map[string]func([]byte) []byte{
		"empty":          func([]byte) []byte { return nil },
		"bad magic":      func(b []byte) []byte { b[0] = 'X'; return b },
		"layout version": set32(8, format.BM25Version+1),
		"layout 1":       set32(8, 1),
		"layout 2, not compressed": func(b []byte) []byte {
			body := sections(t, b)
			le.PutUint32(b[8:], 2)
			return append(b[:headerSize], body...)
		},
		"no terms section":           set32(48, 0),
		"term section short":         func(b []byte) []byte { le.PutUint32(b[48:], le.Uint32(b[48:])-1); return b },
		"term section long":          func(b []byte) []byte { le.PutUint32(b[48:], le.Uint32(b[48:])+1); return b },
		"sections shorter than said": func(b []byte) []byte { le.PutUint64(b[88:], le.Uint64(b[88:])+1); return b },
		"sections longer than said":  func(b []byte) []byte { le.PutUint64(b[88:], le.Uint64(b[88:])-1); return b },
		"sections of any size":       func(b []byte) []byte { le.PutUint64(b[88:], 1<<62); return b },
		"not zstd":                   func(b []byte) []byte { b[headerSize] ^= 0xff; return b },
		"first term shares a prefix": withSections(t, func(hdr, body []byte) []byte {
			body[4*le.Uint32(hdr[16:])] = 1 // after the documents' lengths
			return body
		}),
		"term longer than any": withSections(t, func(hdr, body []byte) []byte {
			body[4*le.Uint32(hdr[16:])+1] = 49
			return body
		}),
		"tokenizer version":  set32(12, 99),
		"truncated":          func(b []byte) []byte { return b[:len(b)-3] },
		"extra byte":         func(b []byte) []byte { return append(b, 0) },
		"huge doc count":     set32(16, 1<<31),
		"huge term count":    set32(20, 1<<31),
		"postings count":     func(b []byte) []byte { le.PutUint64(b[24:], 1); return b },
		"total terms":        func(b []byte) []byte { le.PutUint64(b[32:], 3); return b },
		"k1 NaN":             set32(40, 0x7fc00000),
		"blob length":        set32(48, 1<<30),
		"doc length zero":    withSections(t, func(_, body []byte) []byte { le.PutUint32(body, 0); return body }),
		"flipped posting":    withSections(t, func(_, body []byte) []byte { body[len(body)-2] ^= 0xff; return body }),
		"extra section byte": withSections(t, func(_, body []byte) []byte { return append(body, 0) }),
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(mutate(bytes.Clone(data)))
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

// sections returns the decompressed sections of a file.
func sections(t testing.TB, b []byte) []byte {
	body, err := bodyDecoder.DecodeAll(b[headerSize:], nil)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// withSections damages a file's sections (given the header) and
// compresses them again, with their new length in the header.
func withSections(t testing.TB, damage func(hdr, body []byte) []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		body := damage(b[:headerSize], sections(t, b))
		binary.LittleEndian.PutUint64(b[88:], uint64(len(body)))
		return append(b[:headerSize], bodyEncoder.EncodeAll(body, nil)...)
	}
}

func FuzzDecode(f *testing.F) {
	data, _ := sample(f)
	f.Add(data)
	f.Add(data[:headerSize])
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not wrapping ErrCorrupt: %v", err)
			}
			return
		}
		// Whatever decodes must answer queries without panicking.
		for t := range min(ix.Terms(), 8) {
			ix.Search([]string{string(ix.term(t))}, 3)
		}
		ix.Search([]string{"search", "crawler"}, 5)
	})
}

// TestRecycledScores: a slice handed back to Recycle and reused by Scores
// holds the new query's scores only, as a fresh one does.
func TestRecycledScores(t *testing.T) {
	data, _ := sample(t)
	ix, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	fresh := append([]float32(nil), ix.Scores(Tokenize("crawler"))...)
	for range 3 {
		ix.Recycle(ix.Scores(Tokenize("how many hours does Zoe contribute 250000 search")))
		got := ix.Scores(Tokenize("crawler"))
		if fmt.Sprint(got) != fmt.Sprint(fresh) {
			t.Fatalf("scores after a recycled query %v, want %v", got, fresh)
		}
		ix.Recycle(got)
	}
	ix.Recycle(make([]float32, 2)) // another length: not kept
	if got := ix.Scores(Tokenize("crawler")); len(got) != ix.Docs() {
		t.Fatalf("scores of length %d, want %d", len(got), ix.Docs())
	}
	(*Index)(nil).Recycle(fresh)
}

// TestScoreEqualsScores: Score gives the scores Scores gives, bit for bit,
// lists exactly the documents scored, and its Top keeps the hits
// Top(Scores) keeps, ties included (the corpus repeats documents, so that
// many scores tie); a Scored handed back and reused holds the new query's
// scores only.
func TestScoreEqualsScores(t *testing.T) {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	rng := rand.New(rand.NewPCG(1, 2))
	b := NewBuilder()
	var docs []string
	for i := range 300 {
		var text []string
		if i%3 == 2 {
			text = append(text, docs[i-1]) // the document before, again
		} else {
			for range 1 + rng.IntN(12) {
				text = append(text, words[rng.IntN(len(words))])
			}
		}
		docs = append(docs, strings.Join(text, " "))
		b.Add(fmt.Sprintf("doc%d", i), Tokenize(docs[i]))
	}
	path := filepath.Join(t.TempDir(), format.BM25File)
	if _, err := b.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for q := range 200 {
		var terms []string
		for range 1 + rng.IntN(4) {
			terms = append(terms, words[rng.IntN(len(words))])
		}
		if q%10 == 0 {
			terms = append(terms, "unknown")
		}
		want := ix.Scores(terms)
		got := ix.Score(terms)
		var positive []int32
		var best float32
		for d, s := range want {
			if math.Float32bits(got.Scores[d]) != math.Float32bits(s) {
				t.Fatalf("query %v: doc %d scores %v, Scores says %v", terms, d, got.Scores[d], s)
			}
			if s > 0 {
				positive = append(positive, int32(d))
				best = max(best, s)
			}
		}
		docs := slices.Sorted(slices.Values(got.Docs))
		if !slices.Equal(docs, positive) || got.Max != best {
			t.Fatalf("query %v: docs %v max %v, want %v max %v", terms, docs, got.Max, positive, best)
		}
		// Docs are in no particular order: Top must not depend on it.
		rng.Shuffle(len(got.Docs), func(i, j int) { got.Docs[i], got.Docs[j] = got.Docs[j], got.Docs[i] })
		for _, k := range []int{1, 3, 10, 40, 400} {
			if g, w := got.Top(k), Top(want, k); !slices.Equal(g, w) {
				t.Fatalf("query %v: Top(%d) %v, want %v", terms, k, g, w)
			}
		}
		ix.Recycle(want)
		ix.Release(got)
	}
	ix.Release(nil)
	(*Index)(nil).Release(&Scored{})
}
