package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWindowPutsTheCaretUnderTheColumn(t *testing.T) {
	long := strings.Repeat("x", 150) + "ÉRROR" + strings.Repeat("y", 150)
	for _, tc := range []struct {
		line   string
		column int
		want   string // the rune the caret points at
	}{
		{"MATCH (p:Person RETURN p", 17, "R"},
		{"MATCH (n)", 1, "M"},
		{long, 151, "É"},
		{"short", 40, ""}, // past the end: the caret points after the line
	} {
		text, caret := window([]rune(tc.line), tc.column)
		runes := []rune(text)
		got := ""
		if caret < len(runes) {
			got = string(runes[caret])
		}
		if got != tc.want || len(runes) > 101 {
			t.Errorf("window(%.20q, %d) = %.30q caret %d pointing at %q, want %q", tc.line, tc.column, text, caret, got, tc.want)
		}
	}
}

func TestCapTextKeepsValidUTF8(t *testing.T) {
	text := strings.Repeat("ü", 10000) // no newline to cut at
	got := capText(text, MinResultBytes)
	if len(got) > MinResultBytes || !utf8.ValidString(got) || !strings.Contains(got, "text cut") {
		t.Errorf("capText: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
	if capText("short", MinResultBytes) != "short" {
		t.Error("capText changed a short text")
	}
}
