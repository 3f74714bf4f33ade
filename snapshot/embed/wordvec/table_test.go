package wordvec

import (
	"math"
	"strings"
	"testing"
)

func TestTableLoadsWhole(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.verify(); err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 100000 || tb.Dims != 100 {
		t.Fatalf("%d words of %d dimensions, want 100000 of 100", tb.Len(), tb.Dims)
	}
	// Rows are in frequency order: "the" first, and ranks only grow.
	if r := tb.Lookup("the"); r != 0 || tb.Rank(r) != 0 {
		t.Errorf(`"the" is row %d`, r)
	}
	for i := int32(1); i < int32(tb.Len()); i++ {
		if tb.Rank(i) <= tb.Rank(i-1) {
			t.Fatalf("row %d has rank %d after %d", i, tb.Rank(i), tb.Rank(i-1))
		}
	}
	for _, w := range []string{"company", "funds", "money", "pays"} {
		if tb.Lookup(w) < 0 {
			t.Errorf("%q is not in the table", w)
		}
	}
	if tb.Lookup("Company") >= 0 || tb.Lookup("zoë") >= 0 {
		t.Error("the table holds words its tokenizer never looks up")
	}
	var n float64
	for _, x := range tb.Common {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-4 {
		t.Errorf("common direction has norm %v", math.Sqrt(n))
	}
}

// TestTableMeansSomething checks that the vectors survived quantisation:
// words of one meaning are closer than unrelated ones.
func TestTableMeansSomething(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	cos := func(a, b string) float64 {
		ra, rb := tb.Lookup(a), tb.Lookup(b)
		va, vb := tb.Row(ra), tb.Row(rb)
		var d, na, nb float64
		for i := range va {
			x, y := float64(va[i])*float64(tb.Scale(ra)), float64(vb[i])*float64(tb.Scale(rb))
			d, na, nb = d+x*y, na+x*x, nb+y*y
		}
		return d / math.Sqrt(na*nb)
	}
	for _, c := range [][3]string{{"funds", "finances", "banana"}, {"company", "firm", "river"}, {"car", "vehicle", "poem"}} {
		if near, far := cos(c[0], c[1]), cos(c[0], c[2]); near <= far+0.2 {
			t.Errorf("cos(%s, %s) = %.2f is not well above cos(%s, %s) = %.2f", c[0], c[1], near, c[0], c[2], far)
		}
	}
}

func TestParseRefusesDamagedTables(t *testing.T) {
	for name, b := range map[string]string{
		"empty":     "",
		"magic":     "NOTATABLE" + raw[9:200],
		"truncated": raw[:len(raw)/2],
		"no words":  raw[:len(raw)-1000],
	} {
		if _, err := parse(b); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// TestIndexFindsEveryWord checks the index against a map of the word
// list: every word finds its row, in bytes as in a string, and words the
// list lacks (prefixes, extensions, other cases) find none.
func TestIndexFindsEveryWord(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int32{}
	words := tb.index.words
	for i, off := 0, 0; i < tb.Len(); i++ {
		l := int(words[off])
		rows[words[off+1:off+1+l]] = int32(i)
		off += 1 + l
	}
	if len(rows) < 99000 {
		t.Fatalf("%d distinct words", len(rows))
	}
	for w, r := range rows {
		if got := tb.Lookup(w); got != r {
			t.Fatalf("Lookup(%q) = %d, want %d", w, got, r)
		}
		if got := tb.LookupBytes([]byte(w)); got != r {
			t.Fatalf("LookupBytes(%q) = %d, want %d", w, got, r)
		}
		for _, other := range []string{w + "q", w[:len(w)-1], strings.ToUpper(w), w + w} {
			if _, ok := rows[other]; !ok && tb.Lookup(other) != -1 {
				t.Fatalf("Lookup(%q) = %d, want -1", other, tb.Lookup(other))
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { tb.LookupBytes([]byte("company")) }); n != 0 {
		t.Errorf("LookupBytes allocates %v times", n)
	}
}
