package mcp

import (
	"encoding/json"
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

func TestTextEndKeepsValidUTF8AndTheRoom(t *testing.T) {
	text := strings.Repeat("ü\"", 10000) // no newline to cut at; quotes cost two bytes in JSON
	for _, start := range []int{0, 3, 4000} {
		start = runeStart(text, start)
		end := textEnd(text, start, maxNoteBytes, 4000)
		page := text[start:end]
		b, _ := json.Marshal(page)
		if !utf8.ValidString(page) || len(b)-2 > 4000 || len(b) < 3900 {
			t.Errorf("textEnd from %d: %d bytes, %d as JSON, valid %v", start, len(page), len(b)-2, utf8.ValidString(page))
		}
	}
	lines := strings.Repeat("a line of text\n", 1000)
	if end := textEnd(lines, 0, maxNoteBytes, 1000); lines[end-1] != '\n' {
		t.Errorf("textEnd cut a line: %q", lines[end-10:end])
	}
	if end := textEnd("short", 0, maxNoteBytes, 1000); end != 5 {
		t.Errorf("textEnd of a short text = %d", end)
	}
	if end := textEnd(lines, 0, 100, 1000); end > 100 {
		t.Errorf("textEnd past max: %d", end)
	}
}
