package embed

import (
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// runeInfo is what the tokenizers need to know of a rune, packed in one
// int32: its classes in bits 0-3, its canonical combining class in bits
// 4-11 (for runeMark), and fold(r)-r above them. Looking it
// up in a table replaced unicode.IsLetter, IsDigit, Is(Mn), In and ToLower,
// each a binary search over range tables, which cost a fifth of the
// static embedder's time on a vault in many languages.
type runeInfo int32

const (
	// runeWord marks letters, digits and nonspacing marks: word runes.
	runeWord runeInfo = 1 << iota
	// runeSingle marks Han, Hiragana, Katakana and Thai: isSingleCharWord.
	runeSingle
	// runeStable marks runes that NFKC leaves alone wherever they stand
	// (see nfkcStable).
	runeStable
	// runeMark marks the combining marks that NFKC leaves alone after a
	// starter and marks of no higher combining class (see nfkcMark).
	runeMark

	runeCCCShift  = 4
	runeFoldShift = 12
)

// ccc is the canonical combining class of a runeMark.
func (ri runeInfo) ccc() uint8 { return uint8(ri >> runeCCCShift) }

// fold is fold(r), r the rune ri describes.
func (ri runeInfo) fold(r rune) rune { return r + rune(ri>>runeFoldShift) }

// runeTable holds the runeInfo of the Basic Multilingual Plane in blocks
// of 256 runes; blocks that are alike (most of them: whole scripts of one
// class that case folding leaves alone) are stored once.
type runeTable struct {
	index  [256]uint16 // block of runes r>>8
	blocks []runeInfo  // 256 entries per block
}

// runes is built on first use (some milliseconds), not when a program
// that never embeds starts.
var runes = sync.OnceValue(newRuneTable)

func newRuneTable() *runeTable {
	t := &runeTable{}
	seen := map[[256]runeInfo]uint16{}
	for b := range 256 {
		var blk [256]runeInfo
		for i := range blk {
			blk[i] = classify(rune(b<<8 | i))
		}
		n, ok := seen[blk]
		if !ok {
			n = uint16(len(seen))
			seen[blk] = n
			t.blocks = append(t.blocks, blk[:]...)
		}
		t.index[b] = n
	}
	return t
}

// info returns r's runeInfo.
func (t *runeTable) info(r rune) runeInfo {
	if uint32(r) <= 0xFFFF {
		return t.blocks[int(t.index[r>>8])<<8|int(r&0xFF)]
	}
	return classify(r)
}

// classify computes r's runeInfo.
func classify(r rune) runeInfo {
	var ri runeInfo
	if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
		ri |= runeWord
	}
	if isSingleCharWord(r) {
		ri |= runeSingle
	}
	if nfkcStable(r) {
		ri |= runeStable
	}
	if ccc, ok := nfkcMark(r); ok {
		ri |= runeMark | runeInfo(ccc)<<runeCCCShift
	}
	return ri | runeInfo(fold(r)-r)<<runeFoldShift
}

// nfkcStable reports whether NFKC leaves r alone wherever it stands: r is
// a starter (combining class 0, also at the start of its decomposition)
// that combines with no rune before it, and in NFKC already. These are
// the runes the package norm's quick check passes one by one without
// looking back (UAX #15, section 9), so a text of them and ASCII is its
// own NFKC, and norm.NFKC.String returns it as it is.
func nfkcStable(r rune) bool {
	if !utf8.ValidRune(r) {
		return false
	}
	var buf [utf8.UTFMax]byte
	b := utf8.AppendRune(buf[:0], r)
	p := norm.NFKC.Properties(b)
	return p.CCC() == 0 && p.LeadCCC() == 0 && p.BoundaryBefore() && norm.NFKC.QuickSpan(b) == len(b)
}

// nfkcMark reports whether r is a combining mark (combining class ccc,
// not 0) without a decomposition that NFKC keeps (no Maybe or No quick
// check): norm's quick check passes it after a starter, or after marks of
// a class no higher, as long as fewer than 30 non-starters follow one
// another (UAX #15, Stream-Safe Text Format).
func nfkcMark(r rune) (ccc uint8, ok bool) {
	if !utf8.ValidRune(r) {
		return 0, false
	}
	var buf [utf8.UTFMax]byte
	b := utf8.AppendRune(buf[:0], r)
	p := norm.NFKC.Properties(b)
	c := p.CCC()
	return c, c != 0 && p.LeadCCC() == c && p.TrailCCC() == c && p.Decomposition() == nil &&
		norm.NFKC.QuickSpan(b) == len(b)
}

// maxMarks bounds the marks after a starter that nfkc passes: norm counts
// up to 3 non-starters in a starter's decomposition, and more than 30 in a
// row make it insert U+034F.
const maxMarks = 30 - 3

// nfkc returns norm.NFKC.String(text). It runs norm's quick check with a
// table: ASCII, runeStable runes and runeMark runes in canonical order
// after them pass with one look-up each, and the text is returned as it
// is (most text in most scripts). At the first other rune (or invalid
// UTF-8, which norm treats in its own way) the rest of the text from the
// starter before it goes to norm: text before a starter that combines
// with nothing before it normalises on its own, and is in NFKC already.
func (t *runeTable) nfkc(text string) string {
	start, lastCC, marks := 0, uint8(0), 0 // the last starter, and the marks after it
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			start, lastCC, marks = i, 0, 0
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		ri := t.info(r)
		switch {
		case size == 1:
		case ri&runeStable != 0:
			start, lastCC, marks = i, 0, 0
			i += size
			continue
		case ri&runeMark != 0 && ri.ccc() >= lastCC && marks < maxMarks:
			lastCC, marks = ri.ccc(), marks+1
			i += size
			continue
		}
		rest := norm.NFKC.String(text[start:])
		if len(rest) == len(text)-start && unsafe.StringData(rest) == unsafe.StringData(text[start:]) {
			return text // norm returns a text in NFKC as it is
		}
		return text[:start] + rest
	}
	return text
}
