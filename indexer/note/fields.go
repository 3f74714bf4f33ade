package note

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// inlineField is one Dataview inline field of a line: "key:: value" on its
// own line, or "[key:: value]" / "(key:: value)" inside prose.
type inlineField struct {
	key              string // without sign prefix and emphasis
	sign             int32  // -1 for a "-key::", else +1
	valStart, valEnd int    // byte span of the value in the line
}

// lineFields returns the inline fields of a masked line, read the way
// Dataview reads them (parseMarkdown and parseLists in its
// data-import/markdown-file.ts): the bracketed fields ("[key:: value]",
// "(key:: value)") if the line has any; otherwise the line as a whole
// ("key:: value", also as a list item or in a blockquote), but never a task
// ("- [ ] key:: value"), whose fields Dataview gives the task, not the note.
// So "works_at:: [[A]] (since:: 2020)" is the field since, as in Dataview,
// and its [[A]] a plain link.
func lineFields(s string, br brackets) []inlineField {
	if fields := bracketedFields(s, br); len(fields) > 0 {
		return fields
	}
	if f, ok := fullLineField(s); ok {
		return []inlineField{f}
	}
	return nil
}

// fullLineField reads "key:: value" after the line's indentation,
// blockquote markers and list marker. A task is no full-line field.
func fullLineField(s string) (inlineField, bool) {
	i, task := linePrefix(s)
	if task {
		return inlineField{}, false
	}
	keyEnd := scanKey(s, i, len(s))
	return fieldAt(s, i, keyEnd, len(s))
}

// linePrefix returns the offset after what may precede a full-line field:
// indentation, "> " markers, a list marker ("- ", "* ", "+ ", "1. ", "1) ")
// and a task checkbox ("[ ] "), and whether there was a checkbox.
func linePrefix(s string) (int, bool) {
	i := skipBlank(s, 0)
	for i < len(s) && s[i] == '>' {
		i = skipBlank(s, i+1)
	}
	list := false
	if i+1 < len(s) && strings.IndexByte("-*+", s[i]) >= 0 && isBlank(s[i+1]) {
		i, list = skipBlank(s, i+1), true
	} else if j := skipDigits(s, i); j > i && j-i <= 9 && j+1 < len(s) && (s[j] == '.' || s[j] == ')') && isBlank(s[j+1]) {
		i, list = skipBlank(s, j+1), true
	}
	if i+3 < len(s) && s[i] == '[' && s[i+2] == ']' && isBlank(s[i+3]) {
		return skipBlank(s, i+3), list
	}
	return i, false
}

// bracketedFields reads every "[key:: value]" and "(key:: value)" of a line.
// The opening bracket of a wikilink ("[[") never starts a field.
func bracketedFields(s string, br brackets) []inlineField {
	var fields []inlineField
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c != '[' && c != '(') || (i > 0 && (s[i-1] == '\\' || s[i-1] == '[')) {
			continue
		}
		if c == '[' && i+1 < len(s) && s[i+1] == '[' {
			continue
		}
		end := br.closeOf(s, i)
		if end < 0 {
			continue
		}
		if f, ok := fieldAt(s, i+1, scanKey(s, i+1, end), end); ok {
			fields = append(fields, f)
			i = end
		}
	}
	return fields
}

// fieldAt checks that s[start:keyEnd] is a field key followed by "::" and a
// space (or the end of the value at limit), and returns the field.
func fieldAt(s string, start, keyEnd, limit int) (inlineField, bool) {
	if !strings.HasPrefix(s[keyEnd:limit], "::") {
		return inlineField{}, false
	}
	v := keyEnd + 2
	if v < limit && !isBlank(s[v]) {
		return inlineField{}, false // "C::D", "std::vector": not the Dataview form
	}
	key, sign, ok := parseKey(s[start:keyEnd])
	if !ok {
		return inlineField{}, false
	}
	return inlineField{key: key, sign: sign, valStart: v, valEnd: limit}, true
}

// scanKey returns the offset where the run of possible key characters that
// starts at i ends (at most limit). Brackets and punctuation end a key, which
// keeps the search for fields linear.
func scanKey(s string, i, limit int) int {
	for i < limit {
		r, size := utf8.DecodeRuneInString(s[i:limit])
		if !isKeyRune(r) && r != '*' && r != '~' && r != '+' {
			break
		}
		i += size
	}
	return i
}

// isKeyRune reports whether r may appear in a field key: Dataview accepts
// letters, digits, '_', '-', spaces and emoji.
func isKeyRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) ||
		unicode.In(r, unicode.So) || r == '_' || r == '-' || r == ' ' || r == '\t'
}

// parseKey strips markdown emphasis ("**key**") and the sign prefix from a
// raw key. A key must not start with a space ("[ key:: x]" is prose) and
// needs at least one letter or digit.
func parseKey(raw string) (key string, sign int32, ok bool) {
	if raw == "" || isBlank(raw[0]) {
		return "", 0, false
	}
	k := strings.Trim(strings.TrimRight(raw, " \t"), "*_~")
	sign = 1
	if strings.HasPrefix(k, "-") {
		sign, k = -1, k[1:]
	} else if strings.HasPrefix(k, "+") {
		k = k[1:]
	}
	k = strings.Trim(k, "*_~")
	if k == "" || isBlank(k[0]) || isBlank(k[len(k)-1]) {
		return "", 0, false
	}
	alnum := false
	for _, r := range k {
		if !isKeyRune(r) {
			return "", 0, false
		}
		alnum = alnum || unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return k, sign, alnum
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func skipBlank(s string, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
