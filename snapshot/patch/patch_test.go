package patch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand"
	"slices"
	"testing"
	"testing/iotest"
)

func seededBytes(seed int64, n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

// TestApplyRefusesBadPatches: a patch that reads outside the base's
// file, writes past the file's size, is cut short or holds an unknown
// operation wraps ErrCorrupt.
func TestApplyRefusesBadPatches(t *testing.T) {
	base := bytes.NewReader([]byte("0123456789"))
	for name, patch := range map[string][]byte{
		"copy past the end":      {opCopy, 8, 5},
		"copy from past the end": {opCopy, 11, 0},
		"copy more than limit":   {opCopy, 0, 10, opCopy, 0, 10},
		"literal past limit":     append([]byte{opLiteral, 30}, bytes.Repeat([]byte("x"), 30)...),
		"literal cut short":      {opLiteral, 5, 'a'},
		"operation cut short":    {opCopy, 0x80},
		"unknown operation":      {'x'},
	} {
		err := Apply(io.Discard, bytes.NewReader(patch), base, 10, 15)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
	var out bytes.Buffer
	if err := Apply(&out, bytes.NewReader([]byte{opCopy, 2, 3, opLiteral, 2, 'a', 'b', opCopy, 0, 1}), base, 10, 15); err != nil || out.String() != "234ab0" {
		t.Errorf("a good patch: %q, %v", out.String(), err)
	}
}

// TestPiecesAreContentDefined: cutting points depend on the bytes around
// them, so an insertion changes only the pieces it falls in.
func TestPiecesAreContentDefined(t *testing.T) {
	data := seededBytes(5, 1<<20)
	cut := func(b []byte) map[string]bool {
		m := map[string]bool{}
		if _, err := pieces(bytes.NewReader(b), func(_ int64, p []byte) error {
			if len(p) > maxPiece {
				t.Fatalf("a piece of %d bytes", len(p))
			}
			m[string(p)] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := cut(data)
	b := cut(append(append(append([]byte(nil), data[:1000]...), 'x'), data[1000:]...))
	shared := 0
	for p := range b {
		if a[p] {
			shared++
		}
	}
	if len(a) < 120 || shared < len(b)-2 {
		t.Errorf("%d pieces of 1 MiB; after an insertion %d of %d pieces are the old ones", len(a), shared, len(b))
	}
}

// referencePieces is the cutting rule byte by byte, as written first:
// pieces must cut exactly where it does, however the reader splits its
// reads (patches made by one build apply with another's cut points only
// if they agree).
func referencePieces(data []byte) []int {
	var cuts []int
	var g uint64
	n := 0
	for i, c := range data {
		n++
		g = g<<1 + gear[c]
		if (n >= minPiece && g&(1<<pieceBits-1) == 0) || n >= maxPiece {
			cuts = append(cuts, i+1)
			n, g = 0, 0
		}
	}
	if n > 0 {
		cuts = append(cuts, len(data))
	}
	return cuts
}

func TestPiecesCutWhereTheRuleSays(t *testing.T) {
	// Random bytes, and runs of one byte (no boundary: maxPiece cuts).
	data := append(seededBytes(7, 3<<20), bytes.Repeat([]byte{0}, 100<<10)...)
	data = append(data, seededBytes(8, 1<<20)...)
	want := referencePieces(data)
	for name, r := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(data) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
		"halves":   func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
	} {
		var got []int
		var off int64
		sum, err := pieces(r(), func(o int64, p []byte) error {
			if o != off {
				t.Fatalf("%s: a piece at %d, want %d", name, o, off)
			}
			off += int64(len(p))
			got = append(got, int(off))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d cuts, the rule makes %d (first difference near %v)", name, len(got), len(want), firstDiff(got, want))
		}
		if s := sha256.Sum256(data); sum != hex.EncodeToString(s[:]) {
			t.Errorf("%s: sha256 %s is not the data's", name, sum)
		}
	}
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i]
		}
	}
	return -1
}
