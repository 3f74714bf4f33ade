package embed

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestRuneTableMatchesUnicode checks every rune's table entry against the
// package unicode functions the tokenizers called before the table.
func TestRuneTableMatchesUnicode(t *testing.T) {
	rt := runes()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		ri := rt.info(r)
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
		if ri&runeWord != 0 != word || ri&runeSingle != 0 != isSingleCharWord(r) || ri.fold(r) != fold(r) {
			t.Fatalf("%U: info %#x, want word %v, single %v, fold %U", r, ri, word, isSingleCharWord(r), fold(r))
		}
		if r > 0xFFFF {
			r += 0x3F // a sample of the other planes: classify does the same for them
		}
	}
}

// TestStableRunesStayNFKC checks that a text of ASCII and nfkcStable runes
// is in NFKC, wherever the runes stand, and that nfkc is norm.NFKC.String
// on texts that mix them with marks (long runs of them too), other runes
// and invalid UTF-8.
func TestStableRunesStayNFKC(t *testing.T) {
	rt := runes()
	var stable, other []rune
	for r := rune(0x80); r <= 0x2FFFF; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		if rt.info(r)&runeStable != 0 {
			stable = append(stable, r)
		} else if r <= 0xFFFF {
			other = append(other, r)
		}
	}
	if len(stable) < 50000 || len(other) < 1000 {
		t.Fatalf("%d stable runes, %d others: the check is broken", len(stable), len(other))
	}
	for _, r := range stable {
		s := string(r)
		for _, text := range []string{s, "a" + s + "e", s + s, strings.Repeat(s, 40), "\u00e9" + s + "\uac00"} {
			if !norm.NFKC.IsNormalString(text) || rt.nfkc(text) != text {
				t.Fatalf("%U: %+q is not in NFKC", r, text)
			}
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	// Marks that combine, marks that do not (Khmer, Bengali, Thai, Arabic),
	// marks of other combining classes, Hangul jamo.
	marks := []rune{0x0301, 0x0323, 0x0327, 0x17D2, 0x09CD, 0x09BE, 0x0E48, 0x0E38, 0x064B, 0x0651, 0x3099, 0xFF9E, 0x1161, 0x11A8}
	for range 20000 {
		var sb strings.Builder
		for range 1 + rnd.IntN(12) {
			switch rnd.IntN(7) {
			case 5:
				sb.WriteString(strings.Repeat(string(marks[rnd.IntN(len(marks))]), 20+rnd.IntN(20)))
			case 0:
				sb.WriteRune(other[rnd.IntN(len(other))])
			case 1:
				sb.WriteRune(marks[rnd.IntN(len(marks))])
			case 2:
				sb.WriteString("e ")
			case 3:
				sb.WriteByte(byte(0x80 + rnd.IntN(0x80))) // invalid UTF-8
			default:
				sb.WriteRune(stable[rnd.IntN(len(stable))])
			}
		}
		text := sb.String()
		if got, want := rt.nfkc(text), norm.NFKC.String(text); got != want {
			t.Fatalf("nfkc(%+q) = %+q, norm gives %+q", text, got, want)
		}
	}
}
