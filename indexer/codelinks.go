package indexer

import (
	"fmt"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/format/spell"
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
		v = strings.TrimSpace(v)
		if format.IsCodeID(v) && !strings.ContainsAny(v, " \t\n") {
			out = append(out, v)
		}
	}
	return out
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
// symbols. A link that names no tracked file or symbol is kept as an
// unresolved edge to the id it names and reported as a warning.
func resolveCodeLinks(links []format.Link, ct *codeTables) (edges []format.Edge, warnings []format.Warning, unresolved int) {
	known := make(map[string]bool, len(ct.files)+len(ct.symbols))
	for _, f := range ct.files {
		known[f.ID] = true
	}
	symbolsOf := map[string][]string{} // file id -> its symbols' names
	for _, s := range ct.symbols {
		known[s.ID] = true
		symbolsOf[s.File] = append(symbolsOf[s.File], s.Name)
	}
	indexed := map[string]bool{}
	for _, r := range ct.repos {
		indexed[r.Name] = true
	}
	ordinal := map[edgeKey]int{}
	for _, l := range links {
		target := l.Target
		if l.Anchor != "" {
			target += "#" + l.Anchor
		}
		ok := known[target]
		if !ok {
			unresolved++
			why := "no tracked file or symbol has this id"
			if repo, _, _, valid := format.SplitCodeID(target); !valid {
				why = "write code:REPO/path or code:REPO/path#Symbol"
			} else if !indexed[repo] {
				why = "no repository named " + repo + " is indexed in this run (index it with --repo " + repo + "=PATH)"
			} else if l.Anchor != "" && known[l.Target] {
				why = "the file has no symbol " + l.Anchor
				if m := closestSymbol(l.Anchor, symbolsOf[l.Target]); m != "" {
					why += "; did you mean " + m + "?"
				}
			}
			warnings = append(warnings, format.Warning{File: l.Source, Line: int(l.Line), Kind: format.WarnUnresolvedCodeLink,
				Message: fmt.Sprintf("%s:: %s: %s", l.Type, target, why)})
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

// closestSymbol returns the symbol of a file an anchor most likely meant:
// the method whose name after its type is the anchor (handleEvent for
// inotify.handleEvent), else the closest by spelling, or "".
func closestSymbol(anchor string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if short := n[strings.LastIndex(n, ".")+1:]; short == anchor {
			return n
		}
		if d := spell.Distance(spell.Fold(anchor), spell.Fold(n), 2); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
