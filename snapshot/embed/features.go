package embed

import (
	"unicode"
	"unicode/utf8"
)

// Seeds keep the hash spaces of the feature groups apart.
const (
	seedWord   = 0x9e3779b97f4a7c15
	seedBigram = 0xc2b2ae3d27d4eb4f
	seedGram   = 0x165667b19e3779f9
	seedStem   = 0x27d4eb2f165667c5
)

// extract appends the features of text, in NFKC already (fz.runes.nfkc),
// to fz.words, fz.bigrams and fz.grams. Words are runs of letters, marks
// and digits, case-folded; every Han, Hiragana, Katakana or Thai character
// is a word of its own, since those scripts do not separate words with
// spaces (their word pairs then act as character bigrams). Stop words
// count only inside word pairs, unless the text has no other words.
//
// With fz.wv set it also writes the sum of the text's word vectors into
// fz.wvOut (see addWordVector), in the same pass.
func (fz *featurizer) extract(text string) {
	rt := fz.runes
	var prev uint64
	havePrev, prevStop := false, false
	emit := func() {
		if len(fz.tok) == 0 {
			return
		}
		h := hashRunes(seedWord, fz.tok)
		stop := len(fz.tok) <= maxStopLen && stopwords.has(h)
		if !stop {
			fz.words = append(fz.words, h)
			if st := stem(fz.tok); len(st) < len(fz.tok) {
				fz.words = append(fz.words, hashRunes(seedStem, st))
			}
			fz.addGrams()
		} else {
			fz.stops = append(fz.stops, h)
		}
		if havePrev && !(stop && prevStop) {
			fz.bigrams = append(fz.bigrams, mix(prev*31^h^seedBigram))
		}
		prev, havePrev, prevStop = h, true, stop
		fz.tok = fz.tok[:0]
	}
	wv := fz.wv != nil
	if wv {
		fz.bytes = fz.bytes[:0]
		clear(fz.wvOut)
	}
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				emit()
				if wv && len(fz.bytes) > 0 {
					fz.addWordVector()
				}
				continue
			}
			fz.tok = append(fz.tok, rune(c))
			if wv {
				fz.bytes = append(fz.bytes, c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		ri := rt.info(r)
		if wv {
			// Word vectors' words do not split Han, Hiragana, Katakana
			// and Thai into single characters.
			if ri&runeWord != 0 {
				fz.bytes = utf8.AppendRune(fz.bytes, ri.fold(r))
			} else if len(fz.bytes) > 0 {
				fz.addWordVector()
			}
		}
		switch {
		case ri&runeSingle != 0:
			emit()
			fz.tok = append(fz.tok, r)
			emit()
		case ri&runeWord != 0:
			fz.tok = append(fz.tok, ri.fold(r))
		default:
			emit()
		}
	}
	emit()
	if wv && len(fz.bytes) > 0 {
		fz.addWordVector()
	}
	// A text of stop words only ("to be or not to be") still has words.
	if len(fz.words) == 0 {
		fz.words = append(fz.words, fz.stops...)
	}
}

// addGrams adds the character 3- to 5-grams of the current word framed by
// boundary marks: "<fund>" gives "<fu", "fun", "und", "nd>", "<fun", ...
func (fz *featurizer) addGrams() {
	if len(fz.tok) < 2 {
		return
	}
	w := append(append(append(fz.framed[:0], '<'), fz.tok...), '>')
	fz.framed = w
	// FNV-1a of each gram, seeded by its size; one loop per size (in the
	// order 3, 4, 5, which the counts' order depends on) with the runes
	// of a gram read at once.
	const p = 0x100000001b3
	h3, h4, h5 := uint64(seedGram)^3, uint64(seedGram)^4, uint64(seedGram)^5
	for i := 0; i+3 <= len(w); i++ {
		g := w[i : i+3 : i+3]
		fz.grams = append(fz.grams, mix((((h3^uint64(g[0]))*p^uint64(g[1]))*p^uint64(g[2]))*p))
	}
	for i := 0; i+4 <= len(w); i++ {
		g := w[i : i+4 : i+4]
		fz.grams = append(fz.grams, mix(((((h4^uint64(g[0]))*p^uint64(g[1]))*p^uint64(g[2]))*p^uint64(g[3]))*p))
	}
	for i := 0; i+5 <= len(w); i++ {
		g := w[i : i+5 : i+5]
		fz.grams = append(fz.grams, mix((((((h5^uint64(g[0]))*p^uint64(g[1]))*p^uint64(g[2]))*p^uint64(g[3]))*p^uint64(g[4]))*p))
	}
}

// stem strips one common English inflection ("funding", "funded",
// "funds" -> "fund") so inflected forms share a word feature; words keep
// their own feature too. Short words and other languages are left alone
// (their character n-grams still overlap).
func stem(w []rune) []rune {
	n := len(w)
	if n < 4 {
		return w
	}
	switch w[n-1] {
	case 'g', 'd', 'y', 's': // the last letters of the suffixes below
	default:
		return w
	}
	has := func(suffix string) bool {
		if n < len(suffix) {
			return false
		}
		for i, c := range suffix {
			if w[n-len(suffix)+i] != c {
				return false
			}
		}
		return true
	}
	switch {
	case n > 5 && has("ing"):
		return w[:n-3]
	case n > 4 && (has("ed") || has("ly")):
		return w[:n-2]
	case n > 4 && (has("ies")):
		return append(w[:n-3:n-3], 'y')
	case n > 4 && (has("ches") || has("shes") || has("sses") || has("xes")):
		return w[:n-2]
	case n > 3 && has("s") && !has("ss") && !has("us") && !has("is"):
		return w[:n-1]
	}
	return w
}

func isSingleCharWord(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai)
}

// fold case-folds one rune: lower case, with the final sigma folded to
// sigma as full case folding does.
func fold(r rune) rune {
	if r == 'ς' {
		return 'σ'
	}
	return unicode.ToLower(r)
}

// hashRunes is FNV-1a over the runes, finished with a 64-bit mixer so that
// both halves of the result are well spread.
func hashRunes(seed uint64, rs []rune) uint64 {
	h := seed ^ 0xcbf29ce484222325
	for _, r := range rs {
		h = (h ^ uint64(r)) * 0x100000001b3
	}
	return mix(h)
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// stopwords are frequent English function words, by word hash. They carry
// little about a passage alone, so they count only inside word pairs.
var stopwords = func() *hashSet {
	set := &hashSet{}
	for _, w := range []string{
		"a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "did", "do", "does",
		"for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is",
		"it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "she", "so", "that", "the",
		"their", "them", "then", "there", "these", "they", "this", "to", "us", "was", "we", "were",
		"what", "when", "where", "which", "who", "why", "will", "with", "you", "your",
	} {
		if len(w) > maxStopLen {
			panic("stop word " + w + " is longer than maxStopLen")
		}
		set.add(hashRunes(seedWord, []rune(w)))
	}
	return set
}()

// maxStopLen is the length of the longest stop word: longer words (most
// words) are not looked up.
const maxStopLen = 5

// hashSet is a set of the few dozen stop word hashes, by open addressing
// (a map[uint64]bool cost a quarter of the word features' time).
type hashSet struct{ slots [256]uint64 }

func (s *hashSet) add(h uint64) {
	i := h % uint64(len(s.slots))
	for s.slots[i] != 0 && s.slots[i] != h {
		i = (i + 1) % uint64(len(s.slots))
	}
	s.slots[i] = h
}

func (s *hashSet) has(h uint64) bool {
	for i := h % uint64(len(s.slots)); s.slots[i] != 0; i = (i + 1) % uint64(len(s.slots)) {
		if s.slots[i] == h {
			return true
		}
	}
	return false
}
