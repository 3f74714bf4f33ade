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
	var tk Tokenizer
	return tk.AppendTerms(dst, s)
}

// A Tokenizer tokenizes as Tokenize does, remembering how it decomposed
// the short runs of non-ASCII bytes it met (words of most scripts, which
// repeat): a map lookup instead of the Unicode tables for every rune. The
// zero value is ready to use; a Tokenizer is not safe for concurrent use.
//
// Only the runs of non-ASCII bytes are decomposed: NFKD leaves ASCII as it
// is, and an ASCII byte is a starter that no reordering of combining marks
// crosses, so the runs decompose to what the whole string does. A term
// that is a lower-case ASCII run of s is a substring of s, not a new
// string. Invalid UTF-8 is decomposed whole: the package norm reads a
// broken sequence at the end of a run otherwise than inside the string.
type Tokenizer struct {
	decomposed map[string]string
}

// Runs longer than maxCachedRun bytes are decomposed every time, and at
// most maxCachedRuns runs are remembered.
const (
	maxCachedRun  = 64
	maxCachedRuns = 1 << 16
)

// AppendTerms appends the terms of s to dst.
func (tk *Tokenizer) AppendTerms(dst []string, s string) []string {
	t := terms{dst: dst, src: s}
	if !utf8.ValidString(s) {
		for _, r := range norm.NFKD.String(s) {
			t.rune(r)
		}
		t.flush()
		return t.dst
	}
	var scratch [128]byte
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i = t.asciiRun(i)
			continue
		}
		j := i + 1
		for j < len(s) && s[j] >= utf8.RuneSelf {
			j++
		}
		for _, r := range tk.decompose(s[i:j], scratch[:0]) {
			t.rune(r)
		}
		i = j
	}
	t.flush()
	return t.dst
}

// decompose returns the NFKD form of run, a run of non-ASCII bytes of
// valid UTF-8, in buf or remembered.
func (tk *Tokenizer) decompose(run string, buf []byte) string {
	if len(run) > maxCachedRun {
		return string(norm.NFKD.AppendString(buf, run))
	}
	if d, ok := tk.decomposed[run]; ok {
		return d
	}
	d := run
	if norm.NFKD.QuickSpanString(run) < len(run) {
		d = norm.NFKD.String(run)
	}
	if tk.decomposed == nil {
		tk.decomposed = make(map[string]string)
	}
	if len(tk.decomposed) < maxCachedRuns {
		tk.decomposed[run] = d
	}
	return d
}

// asciiClass tells the ASCII bytes of words apart.
var asciiClass = func() (c [utf8.RuneSelf]uint8) {
	for b := range c {
		switch {
		case 'a' <= b && b <= 'z' || '0' <= b && b <= '9':
			c[b] = lowerAlnum
		case 'A' <= b && b <= 'Z':
			c[b] = upper
		}
	}
	return c
}()

const (
	separator uint8 = iota
	lowerAlnum
	upper
)

// asciiRun adds the ASCII bytes of src from i on and returns the offset
// of the first byte it did not add (a non-ASCII one, or len(src)). A word
// of lower-case letters and digits between separators becomes a term
// without being copied.
func (t *terms) asciiRun(i int) int {
	s := t.src
	for i < len(s) && s[i] < utf8.RuneSelf {
		c := s[i]
		if len(t.word) == 0 && !t.long && asciiClass[c] == lowerAlnum {
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] == lowerAlnum {
				j++
			}
			if j == len(s) || (s[j] < utf8.RuneSelf && asciiClass[s[j]] == separator) {
				t.term(s[i:j])
				i = j
				continue
			}
		}
		t.ascii(c, i)
		i++
	}
	return i
}

// term appends w, a whole word of src, unless it is dropped.
func (t *terms) term(w string) {
	if len(w) > maxTermBytes || stopwords[w] || len(w) == 1 && !('0' <= w[0] && w[0] <= '9') {
		return
	}
	t.dst = append(t.dst, stem(w))
}

// terms collects the terms of one string, a word at a time.
type terms struct {
	dst []string
	src string
	// word is the current word, lower case; start its first byte in src
	// and verbatim whether it is src[start:start+len(word)] unchanged.
	word     []byte
	start    int
	verbatim bool
	long     bool // the word is longer than maxTermBytes: dropped
	buf      [maxTermBytes + utf8.UTFMax]byte
}

// ascii adds byte c, at offset i of src.
func (t *terms) ascii(c byte, i int) {
	switch {
	case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		if len(t.word) == 0 && !t.long {
			t.start, t.verbatim = i, true
		}
		t.appendByte(c)
	case 'A' <= c && c <= 'Z':
		t.verbatim = false
		t.appendByte(c + 'a' - 'A')
	default:
		t.flush()
	}
}

// rune adds r, a rune of a decomposed run of non-ASCII bytes.
func (t *terms) rune(r rune) {
	switch {
	case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
		t.verbatim = false
		t.appendByte(byte(r))
	case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
		t.verbatim = false
		t.appendByte(byte(r) + 'a' - 'A')
	case unicode.Is(unicode.Mn, r):
		t.verbatim = false // a mark left out: the word is not src's bytes
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		t.verbatim = false
		if t.long {
			return
		}
		if t.word == nil {
			t.word = t.buf[:0]
		}
		t.word = utf8.AppendRune(t.word, unicode.ToLower(r))
		t.checkLong()
	default:
		t.flush()
	}
}

func (t *terms) appendByte(c byte) {
	if t.long {
		return
	}
	if t.word == nil {
		t.word = t.buf[:0]
	}
	t.word = append(t.word, c)
	t.checkLong()
}

// checkLong drops the word once it is longer than any term.
func (t *terms) checkLong() {
	if len(t.word) > maxTermBytes {
		t.long, t.word = true, t.word[:0]
	}
}

// flush ends the current word, appending its term unless it is dropped.
func (t *terms) flush() {
	w := t.word
	long := t.long
	t.word, t.long, t.verbatim = t.word[:0], false, false
	if long || len(w) == 0 || stopwords[string(w)] {
		return
	}
	if n := utf8.RuneCount(w); n == 1 && !unicode.IsDigit(rune(w[0])) {
		return
	}
	if t.verbatimWord(w) {
		t.dst = append(t.dst, stem(t.src[t.start:t.start+len(w)]))
		return
	}
	t.dst = append(t.dst, stem(string(w)))
}

// verbatimWord reports whether w is the bytes of src at start.
func (t *terms) verbatimWord(w []byte) bool {
	return t.verbatim && t.start+len(w) <= len(t.src) && t.src[t.start:t.start+len(w)] == string(w)
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
