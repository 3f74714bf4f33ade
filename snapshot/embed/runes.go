package embed

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// runeInfo is what the tokenizers need to know of a rune, packed in one
// int32: its classes in the low byte, and fold(r)-r above them. Looking it
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

	runeFoldShift = 8
)

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

// nfkc returns norm.NFKC.String(text). A text whose runes are all ASCII
// or nfkcStable (most text in most scripts) is returned as it is after one
// table look-up per rune, cheaper than norm's own check; any other text
// (and invalid UTF-8, which norm treats in its own way) goes to norm.
func (t *runeTable) nfkc(text string) string {
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if size == 1 || t.info(r)&runeStable == 0 {
			return norm.NFKC.String(text)
		}
		i += size
	}
	return text
}
