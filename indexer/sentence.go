package indexer

import (
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// sentence describes an edge in words, for embedding and for citing it:
//
//	Acme (Company) funds Search (Project) - amount 250000, currency EUR
//	Mallory (Person) distrusts (negative) Alice (Person)
//
// The pinned "id" property is left out: it names the edge, it says nothing
// about it.
func sentence(e format.Edge, source, target *format.Note) string {
	var b strings.Builder
	describeNote(&b, source, e.Source)
	b.WriteByte(' ')
	b.WriteString(strings.ReplaceAll(e.Type, "_", " "))
	if e.Sign < 0 {
		b.WriteString(" (negative)")
	}
	b.WriteByte(' ')
	describeNote(&b, target, e.Target)
	sep := " - "
	for _, p := range e.Properties {
		if p.Key == "id" {
			continue
		}
		b.WriteString(sep)
		b.WriteString(p.Key)
		b.WriteByte(' ')
		b.WriteString(p.Text())
		sep = ", "
	}
	return b.String()
}

func describeNote(b *strings.Builder, n *format.Note, id string) {
	if n == nil {
		b.WriteString(format.NoteTitleFromPath(id))
		return
	}
	b.WriteString(n.Title)
	switch {
	case n.Stub:
		b.WriteString(" (missing note)")
	case len(n.Labels) > 0:
		b.WriteString(" (")
		b.WriteString(strings.Join(n.Labels, ", "))
		b.WriteByte(')')
	}
}
