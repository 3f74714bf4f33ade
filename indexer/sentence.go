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
	return sentenceOf(e, description(source, e.Source), description(target, e.Target))
}

// sentenceOf is sentence given its ends' descriptions (description): a
// note is described once however many edges it ends.
func sentenceOf(e format.Edge, source, target string) string {
	var b strings.Builder
	b.Grow(len(source) + len(e.Type) + len(target) + 16)
	b.WriteString(source)
	b.WriteByte(' ')
	for i := 0; i < len(e.Type); i++ {
		if c := e.Type[i]; c == '_' {
			b.WriteByte(' ')
		} else {
			b.WriteByte(c)
		}
	}
	if e.Sign < 0 {
		b.WriteString(" (negative)")
	}
	b.WriteByte(' ')
	b.WriteString(target)
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

// description is how a sentence names the note n (id when there is no
// such note): its title, with its labels or "missing note" for a stub.
func description(n *format.Note, id string) string {
	var b strings.Builder
	describeNote(&b, n, id)
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
