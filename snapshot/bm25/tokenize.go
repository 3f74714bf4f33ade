package bm25

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

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

// A Tokenizer tokenizes as Tokenize does, remembering how it folded the
// short runs of non-ASCII bytes it met (words of most scripts, which
// repeat): a map lookup instead of the Unicode tables for every rune. The
// zero value is ready to use; a Tokenizer is not safe for concurrent use.
//
// Only the runs of non-ASCII bytes are decomposed: NFKD leaves ASCII as it
// is, and an ASCII byte is a starter that no reordering of combining marks
// crosses, so the runs decompose to what the whole string does. A term
// that is a lower-case ASCII run of s is a substring of s, and a term that
// is one remembered run a substring of its folding, not a new string.
// Invalid UTF-8 is decomposed whole: the package norm reads a broken
// sequence at the end of a run otherwise than inside the string.
type Tokenizer struct {
	folded              map[string]string
	foldedBytes         int    // what folded holds, as counted by cachedRunCost
	decomposed, scratch []byte // a long run's NFKD form and folding
}

// Runs longer than maxCachedRun bytes are folded every time, and the
// foldings remembered take at most about maxCachedBytes (Obsidian's help
// vault, in 24 languages, has 95,000 different runs of at most 64 bytes
// in 32 MB of notes: 113,000 runs of at most 256 bytes, 9 MB as counted).
const (
	maxCachedRun   = 256
	maxCachedBytes = 32 << 20
	// cachedRunCost is what a remembered folding costs besides its bytes:
	// its map entry, the folding's string header.
	cachedRunCost = 48
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
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i = t.asciiRun(i)
			continue
		}
		j := i + 1
		for j < len(s) && s[j] >= utf8.RuneSelf {
			j++
		}
		f, kept := tk.fold(s[i:j])
		t.folded(f, kept)
		i = j
	}
	t.flush()
	return t.dst
}

// foldSeparator ends a word in a folded run; no letter or digit folds to
// it.
const foldSeparator = 0

// fold returns the folding of run, a run of non-ASCII bytes of valid
// UTF-8: its NFKD form with the letters and digits lower case, the
// nonspacing marks left out and every other rune a foldSeparator, as
// terms.rune treats them one at a time. kept reports whether the folding
// is remembered (it stays valid), else it is in tk.scratch until the
// next call.
func (tk *Tokenizer) fold(run string) (_ string, kept bool) {
	if len(run) > maxCachedRun {
		tk.decomposed = norm.NFKD.AppendString(tk.decomposed[:0], run)
		tk.scratch = appendFolded(tk.scratch[:0], unsafeString(tk.decomposed))
		return unsafeString(tk.scratch), false
	}
	if f, ok := tk.folded[run]; ok {
		return f, true
	}
	// String returns run itself when it is decomposed already, after one
	// quick check.
	tk.scratch = appendFolded(tk.scratch[:0], norm.NFKD.String(run))
	f := run // most words of scripts without case or marks
	if string(tk.scratch) != run {
		f = string(tk.scratch)
	}
	if tk.folded == nil {
		tk.folded = make(map[string]string)
	}
	if cost := len(f) + cachedRunCost; tk.foldedBytes+cost <= maxCachedBytes {
		tk.folded[run] = f
		tk.foldedBytes += cost
	}
	return f, true
}

// appendFolded appends the folding of d, a decomposed run, to dst; one
// foldSeparator stands for consecutive ones.
func appendFolded(dst []byte, d string) []byte {
	for _, r := range d {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			dst = append(dst, byte(r))
		case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
			dst = append(dst, byte(r)+'a'-'A')
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		default:
			if len(dst) == 0 || dst[len(dst)-1] != foldSeparator {
				dst = append(dst, foldSeparator)
			}
		}
	}
	return dst
}

// unsafeString is b as a string without a copy, valid while b is unchanged.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// asciiClass tells the ASCII bytes of words apart, and from the others.
var asciiClass = func() (c [256]uint8) {
	for b := range c {
		switch {
		case 'a' <= b && b <= 'z' || '0' <= b && b <= '9':
			c[b] = lowerAlnum
		case 'A' <= b && b <= 'Z':
			c[b] = upper
		case b >= utf8.RuneSelf:
			c[b] = nonASCII
		}
	}
	return c
}()

// Byte classes, as bits: a word's bytes are lowerAlnum|upper.
const (
	separator  uint8 = 0
	lowerAlnum uint8 = 1
	upper      uint8 = 2
	nonASCII   uint8 = 4
)

// asciiRun adds the ASCII bytes of src from i on and returns the offset
// of the first byte it did not add (a non-ASCII one, or len(src)). A word
// of ASCII letters and digits between separators is taken whole: as a
// substring of src when it is lower case, else lowered in one go.
func (t *terms) asciiRun(i int) int {
	s := t.src
	for i < len(s) && s[i] < utf8.RuneSelf {
		c := s[i]
		if len(t.word) == 0 && !t.long {
			class := asciiClass[c]
			if class == separator {
				i++ // flush would do nothing
				continue
			}
			j, seen := i+1, class
			for j < len(s) {
				k := asciiClass[s[j]]
				if k&(lowerAlnum|upper) == 0 {
					break
				}
				seen |= k
				j++
			}
			if j == len(s) || asciiClass[s[j]] == separator {
				if seen&upper != 0 {
					t.lowerTerm(s[i:j])
				} else {
					t.term(s[i:j])
				}
				i = j
				continue
			}
			// The word goes on in non-ASCII bytes: a byte at a time.
		}
		t.ascii(c, i)
		i++
	}
	return i
}

// term appends w, a whole word of src, unless it is dropped.
func (t *terms) term(w string) {
	if len(w) > maxTermBytes || isStopword(w) || len(w) == 1 && !('0' <= w[0] && w[0] <= '9') {
		return
	}
	t.dst = append(t.dst, stem(w))
}

// lowerTerm appends w, a whole word of src of ASCII letters and digits
// with an upper-case letter, lowered, unless it is dropped.
func (t *terms) lowerTerm(w string) {
	if len(w) > maxTermBytes {
		return
	}
	b := t.buf[:len(w)]
	for k := range len(w) {
		c := w[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[k] = c
	}
	if isStopword(unsafeString(b)) || len(b) == 1 && !('0' <= b[0] && b[0] <= '9') {
		return
	}
	t.dst = append(t.dst, stem(string(b)))
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
	// piece, when not empty, is a remembered folding's substring that
	// holds the word's bytes.
	piece string
	long  bool // the word is longer than maxTermBytes: dropped
	buf   [maxTermBytes + utf8.UTFMax]byte
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
		t.word, t.piece = utf8.AppendRune(t.word, unicode.ToLower(r)), ""
		t.checkLong()
	default:
		t.flush()
	}
}

// folded adds f, the folding of a run of non-ASCII bytes (see fold), as
// rune would add the runes of the run one at a time. When kept, a word
// that is one piece of f is taken as a substring of f.
func (t *terms) folded(f string, kept bool) {
	for len(f) > 0 {
		k := strings.IndexByte(f, foldSeparator)
		if k < 0 {
			k = len(f)
		}
		if k > 0 {
			t.appendPiece(f[:k], kept)
		}
		if k == len(f) {
			break
		}
		t.flush()
		f = f[k+1:]
	}
	t.verbatim = false // the run's bytes are in no term as they are
}

// appendPiece appends p, letters and digits of a folded run, to the word.
func (t *terms) appendPiece(p string, kept bool) {
	t.verbatim = false
	if t.long {
		return
	}
	if len(t.word)+len(p) > maxTermBytes {
		t.long, t.word, t.piece = true, t.word[:0], ""
		return
	}
	if t.word == nil {
		t.word = t.buf[:0]
	}
	if len(t.word) == 0 && kept {
		t.piece = p
	} else {
		t.piece = ""
	}
	t.word = append(t.word, p...)
}

func (t *terms) appendByte(c byte) {
	if t.long {
		return
	}
	if t.word == nil {
		t.word = t.buf[:0]
	}
	t.word, t.piece = append(t.word, c), ""
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
	piece := t.piece
	t.word, t.long, t.verbatim, t.piece = t.word[:0], false, false, ""
	if long || len(w) == 0 || isStopword(unsafeString(w)) {
		return
	}
	if _, size := utf8.DecodeRune(w); size == len(w) && !unicode.IsDigit(rune(w[0])) { // one rune
		return
	}
	if t.verbatimWord(w) {
		t.dst = append(t.dst, stem(t.src[t.start:t.start+len(w)]))
		return
	}
	if len(piece) == len(w) {
		t.dst = append(t.dst, stem(piece))
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
var stopwords = strings.Fields(`a about above after again against all am an and any are as at be because
		been before being below between both but by can could did do does doing down during each few for from
		further had has have having he her here hers herself him himself his how i if in into is it its itself
		just me more most my myself no nor not now of off on once only or other our ours ourselves out over own
		same she should so some such than that the their theirs them themselves then there these they this those
		through to too under until up very was we were what when where which while who whom why will with would
		you your yours yourself yourselves also been much many`)

// maxStopword is the length of the longest stopword.
const maxStopword = 10

// stopwordTable holds the stopwords by stopwordHash: a lookup is a hash of
// three bytes and at most three comparisons (of strings of different
// lengths, most of them), for every word of every text.
var stopwordTable = func() (t [256][]string) {
	for _, w := range stopwords {
		if len(w) > maxStopword {
			panic("bm25: stopword " + w + " is longer than maxStopword")
		}
		h := stopwordHash(w)
		if !slices.Contains(t[h], w) {
			t[h] = append(t[h], w)
		}
	}
	return t
}()

func stopwordHash(w string) uint8 {
	return uint8(uint(w[0]) + uint(w[len(w)-1])*2 + uint(len(w))*27)
}

// isStopword reports whether w, not empty, is one of stopwords.
func isStopword(w string) bool {
	if len(w) > maxStopword {
		return false
	}
	for _, s := range stopwordTable[stopwordHash(w)] {
		if s == w {
			return true
		}
	}
	return false
}
