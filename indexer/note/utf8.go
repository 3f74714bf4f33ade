package note

import (
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/format"
)

// validContent returns content as a string with every byte that is not part
// of a valid UTF-8 sequence replaced by U+FFFD, and a warning naming the
// first line holding such a byte. Offsets of chunks index into the returned
// string, so the replacement happens once, before anything else looks at the
// note.
func validContent(notePath string, content []byte) (string, *format.Warning) {
	if utf8.Valid(content) {
		return string(content), nil
	}
	var b strings.Builder
	b.Grow(len(content) + 16)
	firstBad := -1
	for i := 0; i < len(content); {
		r, size := utf8.DecodeRune(content[i:])
		if r == utf8.RuneError && size == 1 {
			if firstBad < 0 {
				firstBad = i
			}
			b.WriteRune(utf8.RuneError)
		} else {
			b.Write(content[i : i+size])
		}
		i += size
	}
	line := 1 + strings.Count(string(content[:firstBad]), "\n")
	return b.String(), &format.Warning{
		File:    notePath,
		Line:    line,
		Kind:    format.WarnInvalidUTF8,
		Message: fmt.Sprintf("invalid UTF-8 replaced by U+FFFD (first at line %d)", line),
	}
}

// Text returns content as Parse stores it in Parsed.Content: valid UTF-8,
// every invalid byte replaced by U+FFFD. Callers that reuse a note's parsed
// rows rebuild its content with it instead of storing it twice.
func Text(content []byte) string {
	s, _ := validContent("", content)
	return s
}

// runeCount is utf8.RuneCountInString for valid UTF-8 (every note's text
// is, see validContent), eight bytes at a time: the runes are the bytes
// that are not continuation bytes (10xxxxxx).
func runeCount(s string) int {
	const high = 0x8080808080808080
	cont := 0
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		cont += bits.OnesCount64(x &^ (x << 1) & high)
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			cont++
		}
	}
	return len(s) - cont
}
