package cypher

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/format/spell"
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

// unknownNoteProperty records a notice for x.key on a node when no node
// of the snapshot has the key: the value is null, as in openCypher, which
// an agent cannot tell from a property left empty (review5 F7: f.paht).
func (t *translator) unknownNoteProperty(key string) {
	names := make([]string, 0, len(t.s.noteCols)+len(t.s.noteProps))
	for n := range t.s.noteCols {
		names = append(names, n)
	}
	for n := range t.s.noteProps {
		names = append(names, n)
	}
	t.unknownProperty("no node in this snapshot has a property "+printName(key), key, names, "CALL db.propertyKeys() lists them")
}

// unknownEdgeProperty is unknownNoteProperty for r.key on a relationship
// of the given tables (nil: any) that none of them has.
func (t *translator) unknownEdgeProperty(key string, tables []string) {
	var names []string
	for n := range t.s.edgeCols {
		names = append(names, n)
	}
	for n := range t.s.edgeProps {
		if _, _, ok := t.s.edgeColumn(n, tables); ok {
			names = append(names, n)
		}
	}
	what := "no relationship in this snapshot has a property " + printName(key)
	if tables != nil {
		what = "no relationship of the matched types has a property " + printName(key)
	}
	t.unknownProperty(what, key, names, "CALL db.propertyKeys() lists them")
}

func (t *translator) unknownProperty(msg, key string, names []string, orElse string) {
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, "_") || strings.HasPrefix(n, "vg_") })
	slices.Sort(names)
	if s := closestName(key, names); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", printName(s))
	} else {
		msg += "; " + orElse
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
	switch spell.Fold(name) {
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
	norm := spell.Fold(name)
	if norm == "" {
		return ""
	}
	limit := min(2, max(1, len([]rune(norm))/3))
	best, bestDist, bestRaw := "", 0, 0
	for _, n := range names {
		d := spell.Distance(norm, spell.Fold(n), limit)
		if d > limit {
			continue
		}
		// Between names as near once folded (knows, Knows), the one
		// nearer as written.
		raw := spell.Distance(name, n, 64)
		if best == "" || d < bestDist || d == bestDist && raw < bestRaw {
			best, bestDist, bestRaw = n, d, raw
		}
	}
	return best
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
