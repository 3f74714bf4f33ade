package cypher

import (
	"fmt"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// Notices on names the snapshot does not have. A label or relationship
// type that no note or edge carries matches nothing, as in openCypher, so
// MATCH (n:Dailyy) RETURN count(n) answers 0 — which an agent cannot tell
// from a true 0. The translator keeps the rows and says so in
// Translation.Notices: the name is not in this snapshot, and the name
// meant when one is close (another case, a typo or two away), or, for the
// words the graph tool and POST /graph use for plain links and embeds
// (link, embed), the type Cypher calls them by.

// unknownLabel records a notice for a note label the snapshot lacks.
func (t *translator) unknownLabel(name string) {
	if t.s.labels[name] {
		return
	}
	msg := fmt.Sprintf("no label %s in this snapshot", printName(name))
	if s := closestName(name, t.s.labelList); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", printName(s))
	} else {
		msg += "; CALL db.labels() lists them"
	}
	t.notice(msg)
}

// unknownType records a notice for a relationship type the snapshot lacks.
func (t *translator) unknownType(name string) {
	if _, ok := t.s.tables[name]; ok {
		return
	}
	if typ, what, word := plainLinkType(name); typ != "" {
		if _, ok := t.s.tables[typ]; ok {
			t.notice(fmt.Sprintf("%s is %s in Cypher (the graph tool and POST /graph call %s %s); this snapshot has no relationship type %s",
				printName(name), typ, what, word, printName(name)))
			return
		}
	}
	msg := fmt.Sprintf("no relationship type %s in this snapshot", printName(name))
	if s := closestName(name, t.s.typeList); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", printName(s))
	} else {
		msg += "; CALL db.relationshipTypes() lists them"
	}
	t.notice(msg)
}

func (t *translator) notice(msg string) {
	for _, m := range t.notices {
		if m == msg {
			return
		}
	}
	t.notices = append(t.notices, msg)
}

// plainLinkType maps the graph tool's words for plain links and embeds
// (link, embed, in any case, and their plurals) to the types Cypher calls
// them by, saying what they are and the graph tool's word.
func plainLinkType(name string) (typ, what, word string) {
	switch normalName(name) {
	case "link", "links", "linkto", "linksto":
		return format.TypeLinksTo, "plain links", "link"
	case "embed", "embeds", "embedded":
		return format.TypeEmbeds, "embeds", "embed"
	}
	return "", "", ""
}

// closestName returns the name of names that name most likely meant: one
// that differs only in case, underscores, dashes or spaces, else the
// nearest within a typo or two (one for names under six letters); "" when
// none is near enough.
func closestName(name string, names []string) string {
	norm := normalName(name)
	if norm == "" {
		return ""
	}
	limit := min(2, max(1, len([]rune(norm))/3))
	best, bestDist, bestRaw := "", 0, 0
	for _, n := range names {
		d := editDistance(norm, normalName(n), limit)
		if d > limit {
			continue
		}
		// Between names as near once folded (knows, Knows), the one
		// nearer as written.
		raw := editDistance(name, n, 64)
		if best == "" || d < bestDist || d == bestDist && raw < bestRaw {
			best, bestDist, bestRaw = n, d, raw
		}
	}
	return best
}

// normalName folds case and drops underscores, dashes and spaces, so that
// depends_on, dependsOn and `depends on` compare equal.
func normalName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// editDistance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and swaps of neighbours count
// one), or limit+1 when it is surely larger than limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit || len(ra) > 64 || len(rb) > 64 {
		if a == b {
			return 0
		}
		return limit + 1
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// printName writes a label or type as a query would: backquoted unless it
// is a plain word.
func printName(name string) string {
	if name == "" || reserved[strings.ToUpper(name)] {
		return quoteName(name)
	}
	for i, r := range name {
		if i == 0 && !isIdentStart(r) || !isIdentPart(r) {
			return quoteName(name)
		}
	}
	return name
}
