package indexer

import (
	"fmt"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// codeLinksOf returns the links of notes that name code: wikilinks and
// markdown links whose target starts with code:, and typed fields and
// frontmatter values written as plain text (documents:: code:api/app/cron.py,
// or a list of such values). Links keep their type as written.
func codeLinksOf(notes []format.Note, links []format.Link) []format.Link {
	var out []format.Link
	for _, l := range links {
		if format.IsCodeID(l.Target) {
			out = append(out, l)
		}
	}
	for _, n := range notes {
		if n.Stub {
			continue
		}
		for _, p := range n.Properties {
			for _, v := range codeValues(p) {
				target, anchor, _ := strings.Cut(v, "#")
				out = append(out, format.Link{Source: n.ID, Kind: format.KindWikilink, Type: p.Key, Origin: format.OriginField,
					Target: target, Anchor: anchor, Sign: 1, Line: lineOf(n.Content, v)})
			}
		}
	}
	return out
}

// hasCodeValues reports whether a property of n names code, as
// codeValues would find, without collecting the values.
func hasCodeValues(n *format.Note) bool {
	for _, p := range n.Properties {
		switch p.Kind {
		case format.KindString:
			if isCodeValue(p.Text()) {
				return true
			}
		case format.KindList:
			for _, it := range p.List {
				if it != nil && isCodeValue(*it) {
					return true
				}
			}
		}
	}
	return false
}

// codeValues are a property's string values that name code.
func codeValues(p format.Property) []string {
	var vals []string
	switch p.Kind {
	case format.KindString:
		vals = []string{p.Text()}
	case format.KindList:
		// Items that are not strings are held as their text (numbers,
		// booleans, JSON), none of which names code.
		for _, it := range p.List {
			if it != nil {
				vals = append(vals, *it)
			}
		}
	}
	var out []string
	for _, v := range vals {
		if isCodeValue(v) {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// isCodeValue reports whether a property's string value names code: a
// code id with no space in it, once trimmed.
func isCodeValue(v string) bool {
	v = strings.TrimSpace(v)
	return format.IsCodeID(v) && !strings.ContainsAny(v, " \t\n")
}

// lineOf is the 1-based line where s first occurs in content, 0 if never.
func lineOf(content, s string) int32 {
	i := strings.Index(content, s)
	if i < 0 {
		return 0
	}
	return int32(strings.Count(content[:i], "\n") + 1)
}

// resolveCodeLinks turns code links into edges from notes to code files and
// symbols, as format.CodeCatalog resolves them. A link that names no
// tracked file or symbol is kept as an unresolved edge to the id it names
// and reported as a warning saying why.
func resolveCodeLinks(links []format.Link, ct *codeTables) (edges []format.Edge, warnings []format.Warning, unresolved int) {
	cat := format.NewCodeCatalog(ct.repos, ct.files, ct.symbols)
	ordinal := map[edgeKey]int{}
	for _, l := range links {
		target := l.Target
		if l.Anchor != "" {
			target += "#" + l.Anchor
		}
		resolved, ok := cat.Resolve(target)
		if ok {
			target = resolved
		} else {
			unresolved++
			warnings = append(warnings, format.Warning{File: l.Source, Line: int(l.Line), Kind: format.WarnUnresolvedCodeLink,
				Message: fmt.Sprintf("%s:: %s: %s", l.Type, target, cat.Why(target))})
		}
		k := edgeKey{l.Source, l.Type, target}
		n := ordinal[k]
		ordinal[k] = n + 1
		sign := l.Sign
		if sign == 0 {
			sign = 1
		}
		edges = append(edges, format.Edge{ID: format.EdgeID(l.Source, l.Type, target, n), Source: l.Source, Target: target,
			Type: l.Type, Sign: sign, Properties: l.Properties, Count: 1, Origin: l.Origin, Heading: l.Heading, Line: l.Line,
			Unresolved: !ok, Sentence: fmt.Sprintf("%s %s %s", l.Source, l.Type, target)})
	}
	return edges, warnings, unresolved
}
