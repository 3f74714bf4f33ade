package bm25

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TokenizerVersion identifies the tokenizer below. Changing what it
// produces for any text must change it, so that an index is never queried
// with terms it was not built with.
const TokenizerVersion = 1

// maxTermBytes drops longer runs (hashes, URLs without separators, base64).
const maxTermBytes = 48

// Tokenize returns the terms of s: Unicode compatibility decomposition with
// diacritics removed ("Zoë" -> zoe), lower case, runs of letters and
// digits; English stopwords, one-letter words and runs over 48 bytes are
// dropped, and plural endings stripped ("dependencies" -> dependency,
// "funds" -> fund).
func Tokenize(s string) []string { return AppendTerms(nil, s) }

// AppendTerms appends the terms of s to dst.
func AppendTerms(dst []string, s string) []string {
	if !isASCIILower(s) {
		s = norm.NFKD.String(s)
	}
	var b strings.Builder
	flush := func() {
		if b.Len() == 0 {
			return
		}
		t := b.String()
		b.Reset()
		if len(t) > maxTermBytes || stopwords[t] {
			return
		}
		if n := utf8.RuneCountInString(t); n == 1 && !unicode.IsDigit(rune(t[0])) {
			return
		}
		dst = append(dst, stem(t))
	}
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			b.WriteByte(byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			b.WriteByte(byte(r) + 'a' - 'A')
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return dst
}

// isASCIILower reports whether s needs no Unicode decomposition: plain
// ASCII, which NFKD leaves as it is.
func isASCIILower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// stem strips English plural endings (Harman's S stemmer): -ies -> -y,
// -es -> -e, -s -> "", except after e, a or o (-ies), u or s (-s).
func stem(t string) string {
	n := len(t)
	switch {
	case n > 4 && strings.HasSuffix(t, "ies") && !strings.HasSuffix(t, "eies") && !strings.HasSuffix(t, "aies"):
		return t[:n-3] + "y"
	case n > 3 && strings.HasSuffix(t, "es") && !strings.HasSuffix(t, "aes") && !strings.HasSuffix(t, "ees") && !strings.HasSuffix(t, "oes"):
		return t[:n-1]
	case n > 3 && t[n-1] == 's' && t[n-2] != 'u' && t[n-2] != 's' && t[n-2] != 'i':
		return t[:n-1]
	}
	return t
}

// stopwords are English function words: frequent, and no help in telling
// passages apart.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because
		been before being below between both but by can could did do does doing down during each few for from
		further had has have having he her here hers herself him himself his how i if in into is it its itself
		just me more most my myself no nor not now of off on once only or other our ours ourselves out over own
		same she should so some such than that the their theirs them themselves then there these they this those
		through to too under until up very was we were what when where which while who whom why will with would
		you your yours yourself yourselves also been much many`) {
		m[w] = true
	}
	return m
}()
