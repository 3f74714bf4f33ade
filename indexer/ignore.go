package indexer

import (
	"fmt"
	"regexp"
	"strings"
)

// ignoreRules decide which vault paths a run skips besides dot-folders.
type ignoreRules struct {
	patterns []*regexp.Regexp
	byName   []*regexp.Regexp // patterns without a slash: match any path element
}

// compileIgnore turns glob patterns into matchers. '*' and '?' stay within
// one path element, '**' spans elements, and a trailing '/' is dropped (a
// folder's pattern skips everything below it).
func compileIgnore(globs []string) (*ignoreRules, error) {
	r := &ignoreRules{}
	for _, g := range globs {
		g = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(g, "/"), "/"))
		if g == "" {
			continue
		}
		re, err := globRegexp(g)
		if err != nil {
			return nil, fmt.Errorf("ignore pattern %q: %w", g, err)
		}
		if strings.Contains(g, "/") {
			r.patterns = append(r.patterns, re)
		} else {
			r.byName = append(r.byName, re)
		}
	}
	return r, nil
}

// match reports whether the vault path rel (slash-separated) or one of the
// folders above it is ignored.
func (r *ignoreRules) match(rel string) bool {
	elems := strings.Split(rel, "/")
	for i := range elems {
		for _, re := range r.byName {
			if re.MatchString(elems[i]) {
				return true
			}
		}
		prefix := strings.Join(elems[:i+1], "/")
		for _, re := range r.patterns {
			if re.MatchString(prefix) {
				return true
			}
		}
	}
	return false
}

func globRegexp(g string) (*regexp.Regexp, error) {
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
