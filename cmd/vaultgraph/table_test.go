package main

import (
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// TestWriteTableAlignsWideText: columns line up on the screen with CJK
// text (two columns a character) and combining marks (none).
func TestWriteTableAlignsWideText(t *testing.T) {
	var b strings.Builder
	if err := writeTable(&b, [][]string{
		{"type", "count", "note"},
		{"依存", "12", "a"},
		{"depends_on", "3", "b"},
		{"Zoe\u0308", "1", "c"},
	}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	// The last column starts at the same screen column on every line.
	want := -1
	for _, l := range lines {
		col := runewidth.StringWidth(l[:strings.LastIndex(l, " ")+1])
		if want == -1 {
			want = col
		}
		if col != want {
			t.Errorf("last column at %d, want %d:\n%s", col, want, b.String())
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space in %q", l)
		}
	}
}
