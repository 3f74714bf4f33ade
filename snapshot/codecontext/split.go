package codecontext

import (
	"strings"
	"unicode"

	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
)

// Terms returns the lexical terms of code or of a question: bm25's terms,
// plus the words of every camelCase or PascalCase identifier
// (fetchEpisode -> fetch, episode; HTTPServer -> http, server). snake_case
// and kebab-case split already at their separators.
func Terms(s string) []string {
	terms := bm25.Tokenize(s)
	var words []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if parts := camelParts(f); len(parts) > 1 {
			words = append(words, parts...)
		}
	}
	if len(words) > 0 {
		terms = append(terms, bm25.Tokenize(strings.Join(words, " "))...)
	}
	return terms
}

// codeTerms are Terms reduced to crude stems, so that a question's
// "uploading" finds UploadEpisode and "generating" generate_daily: the
// code lexicon is built and queried with them (the notes' BM25 index keeps
// its own terms).
func codeTerms(s string) []string {
	terms := Terms(s)
	for i, t := range terms {
		terms[i] = crudeStem(t)
	}
	return terms
}

func crudeStem(t string) string {
	for _, suf := range []struct {
		s   string
		min int
	}{{"ing", 6}, {"ed", 5}, {"es", 5}, {"e", 4}} {
		if len(t) >= suf.min && strings.HasSuffix(t, suf.s) {
			return t[:len(t)-len(suf.s)]
		}
	}
	return t
}

// camelParts splits an identifier at lower-to-upper changes and before the
// last capital of a run of capitals followed by a lower-case letter.
func camelParts(s string) []string {
	rs := []rune(s)
	var parts []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		split := unicode.IsLower(prev) && unicode.IsUpper(cur) ||
			unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) ||
			unicode.IsLetter(prev) && unicode.IsDigit(cur)
		if split {
			parts = append(parts, string(rs[start:i]))
			start = i
		}
	}
	return append(parts, string(rs[start:]))
}
