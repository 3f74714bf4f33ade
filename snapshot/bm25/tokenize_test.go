package bm25

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// wholeTerms is AppendTerms as tokenizer version 1 was first written: the
// whole string decomposed, then one word at a time. AppendTerms must give
// the same terms for every string.
func wholeTerms(s string) []string {
	var dst []string
	s = norm.NFKD.String(s)
	var b strings.Builder
	flush := func() {
		if b.Len() == 0 {
			return
		}
		t := b.String()
		b.Reset()
		if len(t) > maxTermBytes || slices.Contains(stopwords, t) {
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

// shared is one Tokenizer for every string the tests check: its
// remembered runs must not change the terms of the next strings.
var shared Tokenizer

func checkSameTerms(t *testing.T, s string) {
	t.Helper()
	want := wholeTerms(s)
	if got := Tokenize(s); !slices.Equal(got, want) {
		t.Fatalf("Tokenize(%q) = %q, want %q", s, got, want)
	}
	if got := shared.AppendTerms(nil, s); !slices.Equal(got, want) {
		t.Fatalf("shared Tokenizer: AppendTerms(%q) = %q, want %q", s, got, want)
	}
}

// TestTokenizeDecomposesRuns: decomposing each run of non-ASCII bytes on
// its own gives the terms of decomposing the whole string, on text with
// marks before and after ASCII letters, compatibility characters that
// decompose to ASCII, long runs of marks, long words and invalid UTF-8.
func TestTokenizeDecomposesRuns(t *testing.T) {
	for _, s := range []string{
		"Zoë Über café naïve e\u0301te\u0301 a\u0317\u0301b \u0301start end\u0301",
		"ﬁle ﬂow ＡＣＭＥ ½ ² ℌello Ⅻ ㎒ ǅungla ß İstanbul ΣΊΣΥΦΟΣ",
		"x" + strings.Repeat("\u0301", 40) + "y" + strings.Repeat("\u0317\u0301", 20),
		strings.Repeat("a", 48) + " " + strings.Repeat("b", 49) + " " + strings.Repeat("é", 30) + " " + strings.Repeat("c", 47) + "é",
		"bad \xff\xfe bytes\xc3 and \xe2\x82 cut é\xff",
		"日本語のテキスト 한국어 텍스트 العربية ١٢٣ ٣ 5",
		"dependencies studies USES focus glass Cafés",
		// Runs longer than maxCachedRun, folded every time.
		strings.Repeat("日本語のテキスト、", 40) + "x" + strings.Repeat("Ééﬁ́—", 60) + "A Zoë",
		"MiXeD CASE Words I A 7 X1 THE The ThE ÉCOLE École",
	} {
		checkSameTerms(t, s)
	}
	// Every note of the demo vault, and random mixes of its characters.
	var pool []rune
	filepath.WalkDir("../../testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checkSameTerms(t, string(data))
		pool = append(pool, []rune(string(data))...)
		return nil
	})
	pool = append(pool, []rune("\u0301\u0317\u0345éÉﬁ½ＡßİΣ日\uFFFD")...)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(80) {
			if rng.IntN(20) == 0 {
				b.WriteByte(byte(0x80 + rng.IntN(0x80))) // invalid UTF-8
				continue
			}
			b.WriteRune(pool[rng.IntN(len(pool))])
		}
		checkSameTerms(t, b.String())
	}
}

func FuzzTokenize(f *testing.F) {
	f.Add("Zoë's Über-Ranking: dependencies, funds & crawlers")
	f.Add("e\u0301 ﬁ ＡＣＭＥ \xff")
	f.Fuzz(func(t *testing.T, s string) { checkSameTerms(t, s) })
}

// BenchmarkTokenize tokenizes the demo vault's notes.
func BenchmarkTokenize(b *testing.B) {
	var texts []string
	filepath.WalkDir("../../testdata/demo-vault", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			data, _ := os.ReadFile(p)
			texts = append(texts, string(data))
		}
		return nil
	})
	var buf []string
	var tk Tokenizer
	for b.Loop() {
		for _, s := range texts {
			buf = tk.AppendTerms(buf[:0], s)
		}
	}
}
