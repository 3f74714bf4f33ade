package format

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The per-note signatures are nearly all of a manifest (1.7 of 1.74 MB
// at 10,000 notes), and encoding/json took 32 ms to decode them: a run
// reads the newest manifest twice (the embedder it recorded, then the
// parent) and the server once per swap. unmarshalManifest reads them
// with a parser that accepts only the plain shape Encode writes (any
// whitespace, keys in any order); anything else (an escape in a value,
// an unknown or case-changed field, a number that is not a plain
// integer, a top-level key spelt like "notes" in another case) makes it
// decode the whole manifest with encoding/json, so that every manifest
// decodes to exactly what encoding/json makes of it, errors included.

// unmarshalManifest decodes data into m as json.Unmarshal does.
func unmarshalManifest(data []byte, m *Manifest) error {
	if notes, start, end, ok := topLevelNotes(data); ok {
		// The rest, with an empty object in place of the notes.
		rest := make([]byte, 0, len(data)-(end-start)+2)
		rest = append(append(append(rest, data[:start]...), "{}"...), data[end:]...)
		var fast Manifest
		if err := json.Unmarshal(rest, &fast); err == nil {
			fast.Notes = notes
			*m = fast
			return nil
		}
	}
	return json.Unmarshal(data, m)
}

// topLevelNotes parses the value of the top-level "notes" key in data,
// data[start:end]. It fails when data is not an object, when that value
// is not of the plain shape, or when data holds the key twice or in
// another spelling that encoding/json would match to the field too (its
// matching ignores case).
func topLevelNotes(data []byte) (notes map[string]NoteSignature, start, end int, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, 0, 0, false
	}
	i++
	found := false
	for {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' {
			return notes, start, end, found
		}
		keyEnd, ok := stringEnd(data, i)
		if !ok {
			return nil, 0, 0, false
		}
		key := data[i:keyEnd]
		i = skipSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return nil, 0, 0, false
		}
		i = skipSpace(data, i+1)
		var next int
		switch {
		case string(key) == `"notes"`:
			if found {
				return nil, 0, 0, false
			}
			if notes, next, ok = parseNotes(data, i); !ok {
				return nil, 0, 0, false
			}
			start, end, found = i, next, true
		case matchesNotes(key):
			return nil, 0, 0, false
		default:
			if next, ok = valueEnd(data, i); !ok {
				return nil, 0, 0, false
			}
		}
		i = skipSpace(data, next)
		if i < len(data) && data[i] == ',' {
			i++
			continue
		}
		if i < len(data) && data[i] == '}' {
			return notes, start, end, found
		}
		return nil, 0, 0, false
	}
}

// matchesNotes reports whether the key token (quotes included) is one
// encoding/json could match to the "notes" field: "notes" in any case,
// written with escapes or not.
func matchesNotes(token []byte) bool {
	inner := token[1 : len(token)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return strings.EqualFold(string(inner), "notes")
	}
	var key string
	if err := json.Unmarshal(token, &key); err != nil {
		return true // let encoding/json judge it
	}
	return strings.EqualFold(key, "notes")
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string token starting at b[i].
func stringEnd(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// valueEnd returns the index after the JSON value starting at b[i],
// without checking it (encoding/json does, decoding the rest).
func valueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				e, ok := stringEnd(b, i)
				if !ok {
					return 0, false
				}
				i = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\n', '\t', '\r':
			return i, true
		}
	}
	return i, true
}

// parseNotes parses the notes object at b[i], of the plain shape only,
// returning the index after it.
func parseNotes(b []byte, i int) (map[string]NoteSignature, int, bool) {
	if i >= len(b) || b[i] != '{' {
		return nil, 0, false
	}
	notes := make(map[string]NoteSignature, (len(b)-i)/170)
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return notes, i + 1, true
	}
	for {
		key, next, ok := plainKey(b, i)
		if !ok {
			return nil, 0, false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return nil, 0, false
		}
		var sig NoteSignature
		if sig, i, ok = parseSignature(b, skipSpace(b, i+1)); !ok {
			return nil, 0, false
		}
		notes[key] = sig
		i = skipSpace(b, i)
		if i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return notes, i + 1, true
		default:
			return nil, 0, false
		}
	}
}

// plainKey reads the string token at b[i] as a map key: a token with an
// escape, or bytes that are not UTF-8, is decoded by encoding/json (a
// path with & in it is written \u0026).
func plainKey(b []byte, i int) (string, int, bool) {
	s, end, ok := plainString(b, i)
	if ok {
		return s, end, true
	}
	end, ok = stringEnd(b, i)
	if !ok {
		return "", 0, false
	}
	for _, c := range b[i+1 : end-1] {
		if c < 0x20 {
			return "", 0, false
		}
	}
	var key string
	if err := json.Unmarshal(b[i:end], &key); err != nil {
		return "", 0, false
	}
	return key, end, true
}

// plainString reads a string token without escapes or control
// characters, in UTF-8.
func plainString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	n := bytes.IndexByte(b[i+1:], '"')
	if n < 0 {
		return "", 0, false
	}
	s := b[i+1 : i+1+n]
	ascii := true
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			return "", 0, false
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(s) {
		return "", 0, false
	}
	return string(s), i + 2 + n, true
}

// parseSignature parses one note's {"sha256":...,"size":...,"modified":...}
// at b[i], returning the index after it.
func parseSignature(b []byte, i int) (NoteSignature, int, bool) {
	var sig NoteSignature
	if i >= len(b) || b[i] != '{' {
		return sig, 0, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return sig, i + 1, true
	}
	for {
		end, ok := stringEnd(b, i)
		if !ok {
			return sig, 0, false
		}
		field := string(b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return sig, 0, false
		}
		i = skipSpace(b, i+1)
		switch field {
		case `"sha256"`:
			if sig.SHA256, i, ok = plainString(b, i); !ok {
				return sig, 0, false
			}
		case `"size"`:
			if sig.Size, i, ok = plainInt(b, i); !ok {
				return sig, 0, false
			}
		case `"modified"`:
			// time.Time decodes itself from the token, as it does
			// under encoding/json.
			_, end, ok := plainString(b, i)
			if !ok {
				return sig, 0, false
			}
			var t time.Time
			if err := t.UnmarshalJSON(b[i:end]); err != nil {
				return sig, 0, false
			}
			sig.Modified, i = t, end
		default:
			return sig, 0, false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return sig, 0, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return sig, i + 1, true
		default:
			return sig, 0, false
		}
	}
}

// plainInt reads an integer as JSON writes it (no fraction or exponent)
// that fits an int64.
func plainInt(b []byte, i int) (int64, int, bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	digits := j
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == digits || (b[digits] == '0' && j > digits+1) {
		return 0, 0, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(string(b[i:j]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return n, j, true
}
