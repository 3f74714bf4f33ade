package linkgraph

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var (
	// ErrNotFound is wrapped by errors about a note name that names no note.
	ErrNotFound = errors.New("note not found")
	// ErrAmbiguous is wrapped by *AmbiguousError.
	ErrAmbiguous = errors.New("ambiguous note name")
)

// AmbiguousError is returned for a name (a title, alias or file name) that
// several notes share. Candidates are their paths, sorted.
type AmbiguousError struct {
	Name       string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("note name %q is ambiguous: it names %d notes (%s); pass one of these paths",
		e.Name, len(e.Candidates), strings.Join(e.Candidates, ", "))
}

func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// foldName is the key of a name in the name index: Unicode NFC, lower
// case, without surrounding space, a leading slash, [[ ]] or a .md
// extension.
func foldName(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimSuffix(s, "]]"), "[[")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "!"), "/")
	s = strings.ToLower(norm.NFC.String(strings.TrimSpace(s)))
	return strings.TrimSuffix(s, ".md")
}

// foldWords splits s into lower-case words of letters and digits with
// diacritics removed ("Zoë's" -> zoe, s), the form in which names are
// found in free text.
func foldWords(s string) []string {
	var words []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, b.String())
			b.Reset()
		}
	}
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return words
}

// wordsKey returns foldWords(s) joined by one space and how many words
// that is; ASCII text, most names, is folded without the Unicode
// decomposition (buf is scratch space).
func wordsKey(s string, buf []byte) (string, int) {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			w := foldWords(s)
			return strings.Join(w, " "), len(w)
		}
	}
	b, words, in := buf[:0], 0, false
	for i := range len(s) {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		default:
			in = false
			continue
		}
		if !in {
			if words > 0 {
				b = append(b, ' ')
			}
			words++
			in = true
		}
		b = append(b, c)
	}
	return string(b), words
}

// indexNames fills the name index: path, path without .md, file name,
// title and aliases of every note; stubs by their link text.
func (g *Graph) indexNames() {
	add := func(m map[string][]int32, key string, i int32) {
		if key == "" {
			return
		}
		if l := m[key]; len(l) == 0 || l[len(l)-1] != i {
			m[key] = append(l, i)
		}
	}
	buf := make([]byte, 0, 64)
	for i := range g.notes {
		n := &g.notes[i]
		idx := int32(i)
		names := append([]string{n.ID, n.Title, path.Base(n.Name())}, n.Aliases...)
		for _, name := range names {
			add(g.names, foldName(name), idx)
		}
		for _, name := range append([]string{n.Title, strings.TrimSuffix(path.Base(n.Name()), ".md")}, n.Aliases...) {
			key, words := wordsKey(name, buf)
			if words == 0 || words > maxMentionWords {
				continue
			}
			add(g.words, key, idx)
			g.maxNameWords = max(g.maxNameWords, words)
		}
	}
}

// Resolve finds the note (or stub) a name refers to: its vault path (with
// or without .md, any case, any Unicode normalisation), its title, one of
// its aliases or its file name. A path wins over a title or alias. A name
// shared by several notes returns an *AmbiguousError listing them; a name
// of no note an error wrapping ErrNotFound, with similar names if any.
func (g *Graph) Resolve(name string) (int32, error) {
	for _, k := range []string{name, norm.NFC.String(name), name + ".md", norm.NFC.String(name) + ".md"} {
		if i, ok := g.byID[k]; ok {
			return i, nil
		}
	}
	key := foldName(name)
	cands := g.names[key]
	switch len(cands) {
	case 0:
		return 0, g.notFound(name, key)
	case 1:
		return cands[0], nil
	}
	var byPath []int32
	for _, c := range cands {
		if foldName(g.notes[c].ID) == key {
			byPath = append(byPath, c)
		}
	}
	if len(byPath) == 1 {
		return byPath[0], nil
	}
	paths := make([]string, len(cands))
	for i, c := range cands {
		paths[i] = g.notes[c].Name()
	}
	sort.Strings(paths)
	return 0, &AmbiguousError{Name: name, Candidates: paths}
}

// maxSuggestions bounds the similar names listed in a not-found error.
const maxSuggestions = 5

func (g *Graph) notFound(name, key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty note name", ErrNotFound)
	}
	if strings.HasPrefix(name, "code:") {
		// An id retrieve_context gives (review5 F22): the graph holds
		// notes; the notes about code are a query away.
		return fmt.Errorf("%w: %s is code, not a note: the link graph walks notes; retrieve_context with anchor %s lists the notes about it, "+
			"and cypher_query MATCH (n)-[r]->(c {id: %q}) RETURN n.path, type(r) their links to it", ErrNotFound, name, name, name)
	}
	var similar []string
	for i := range g.notes {
		n := &g.notes[i]
		if strings.Contains(strings.ToLower(n.Name()), key) || strings.Contains(strings.ToLower(n.Title), key) {
			similar = append(similar, n.Name())
			if len(similar) == maxSuggestions {
				break
			}
		}
	}
	if len(similar) == 0 {
		return fmt.Errorf("%w: no note has the path, title or alias %q", ErrNotFound, name)
	}
	return fmt.Errorf("%w: no note has the path, title or alias %q; similar: %s", ErrNotFound, name, strings.Join(similar, ", "))
}

// maxMentionWords bounds the length of names Mentions looks for.
const maxMentionWords = 6

// mentionStopwords are single words never taken for a note's name in free
// text, even when a note is called that.
var mentionStopwords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "is": true, "are": true, "it": true, "its": true, "what": true, "who": true,
	"which": true, "how": true, "why": true, "when": true, "where": true, "does": true, "do": true,
	"did": true, "with": true, "by": true, "at": true, "from": true, "this": true, "that": true,
	"notes": true, "note": true, "index": true, "home": true, "readme": true, "todo": true,
}

// Mentions returns the notes whose title, alias or file name occurs in
// text as whole words, ignoring case and diacritics; longer names first,
// then in order of appearance. A name several notes share gives all of
// them. Single words shorter than three letters and common words are not
// taken for names.
func (g *Graph) Mentions(text string) []int32 {
	words := foldWords(text)
	var out []int32
	seen := map[int32]bool{}
	used := make([]bool, len(words))
	for n := min(g.maxNameWords, maxMentionWords); n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			if slices.Contains(used[i:i+n], true) {
				continue
			}
			if n == 1 && (len([]rune(words[i])) < 3 || mentionStopwords[words[i]]) {
				continue
			}
			cands := g.words[strings.Join(words[i:i+n], " ")]
			if len(cands) == 0 {
				continue
			}
			for k := i; k < i+n; k++ {
				used[k] = true
			}
			for _, c := range cands {
				if !seen[c] {
					seen[c] = true
					out = append(out, c)
				}
			}
		}
	}
	return out
}
