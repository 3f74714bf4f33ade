// Package glob is the pattern language of --ignore, --repo-include and
// --repo-exclude, which manifests record: '*' and '?' stay within one path
// element, '**' spans elements, a pattern without a slash matches any path
// element, and a folder's pattern (a trailing '/' is dropped) matches
// everything below it.
package glob

import (
	"fmt"
	"regexp"
	"strings"
)

// Set is a compiled list of patterns.
type Set struct {
	patterns []pattern
}

type pattern struct {
	text   string // as written, for messages
	re     *regexp.Regexp
	byName bool // no slash: matches any path element
}

// Compile turns glob patterns into a Set; blank patterns are left out.
func Compile(globs []string) (*Set, error) {
	s := &Set{}
	for _, g := range globs {
		text := strings.TrimSpace(g)
		g = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(text, "/"), "/"))
		if g == "" {
			continue
		}
		re, err := regexpOf(g)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", g, err)
		}
		s.patterns = append(s.patterns, pattern{text: text, re: re, byName: !strings.Contains(g, "/")})
	}
	return s, nil
}

// Empty reports whether the set has no pattern.
func (s *Set) Empty() bool { return len(s.patterns) == 0 }

// Match reports whether the slash-separated path rel, or one of the
// folders above it, matches a pattern.
func (s *Set) Match(rel string) bool { return s.Which(rel) != "" }

// Which is the first pattern (as written) that matches rel or a folder
// above it, or "".
func (s *Set) Which(rel string) string {
	if len(s.patterns) == 0 {
		return ""
	}
	elems := strings.Split(rel, "/")
	for i := range elems {
		prefix := ""
		for _, p := range s.patterns {
			if p.byName {
				if p.re.MatchString(elems[i]) {
					return p.text
				}
				continue
			}
			if prefix == "" {
				prefix = strings.Join(elems[:i+1], "/")
			}
			if p.re.MatchString(prefix) {
				return p.text
			}
		}
	}
	return ""
}

func regexpOf(g string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			i++
			if i+1 < len(g) && g[i+1] == '/' {
				// "a/**/b" also matches "a/b".
				b.WriteString("(?:.*/)?")
				i++
			} else {
				b.WriteString(".*")
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
