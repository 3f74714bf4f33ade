package bm25

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestUpdateWritesWhatABuildWrites updates random indexes (documents
// removed, kept, changed and added, old documents taken out of order
// refused) and checks that every update writes the bytes a fresh build of
// the same documents writes.
func TestUpdateWritesWhatABuildWrites(t *testing.T) {
	words := []string{"acme", "funds", "search", "crawler", "hours", "zoë", "ranking", "pages", "36", "eur", "bob", "graph"}
	text := func(r *rand.Rand) string {
		var b bytes.Buffer
		for range r.IntN(12) {
			fmt.Fprintf(&b, "%s ", words[r.IntN(len(words))])
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "rare%d", r.IntN(1000)) // a term only this document has
		}
		return b.String()
	}
	write := func(b *Builder) []byte {
		path := filepath.Join(t.TempDir(), "bm25")
		if _, err := b.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		type doc struct{ id, text string }
		var parent []doc
		for i := range r.IntN(30) {
			parent = append(parent, doc{fmt.Sprintf("p%d", i), text(r)})
		}
		full := NewBuilder()
		for _, d := range parent {
			full.Add(d.id, Tokenize(d.text))
		}
		ix, err := Decode(write(full))
		if err != nil {
			t.Fatal(err)
		}
		var next []doc
		var from []int
		for j, d := range parent {
			switch r.IntN(5) {
			case 0: // removed
			case 1: // changed
				next, from = append(next, doc{d.id, text(r)}), append(from, -1)
			default:
				next, from = append(next, d), append(from, j)
			}
			if r.IntN(4) == 0 {
				next, from = append(next, doc{fmt.Sprintf("n%d", j), text(r)}), append(from, -1)
			}
		}
		ids := make([]string, len(next))
		want := NewBuilder()
		for i, d := range next {
			ids[i] = d.id
			want.Add(d.id, Tokenize(d.text))
		}
		got, err := Update(ix, ids, from, func(i int) []string {
			if from[i] >= 0 {
				t.Fatalf("seed %d: document %d taken from the parent was tokenized", seed, i)
			}
			return Tokenize(next[i].text)
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(write(got), write(want)) {
			t.Fatalf("seed %d: the updated index differs from a build of the same documents", seed)
		}
	}
	full := NewBuilder()
	full.Add("a", Tokenize("one two"))
	full.Add("b", Tokenize("two three"))
	ix, err := Decode(write(full))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Update(ix, []string{"b", "a"}, []int{1, 0}, nil); err == nil {
		t.Error("parent documents out of order were accepted")
	}
	if _, err := Update(ix, []string{"a"}, []int{5}, nil); err == nil {
		t.Error("a parent document out of range was accepted")
	}
}
