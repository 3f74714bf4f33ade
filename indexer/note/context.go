package note

import (
	"strings"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/format"
)

// Bounds of the lines of a chunk's context: enough to say what the note is
// about without drowning the passage it introduces. They also keep a note
// with thousands of tags from repeating them in every chunk.
const (
	contextValueRunes      = 80
	contextPropertiesRunes = 400
	contextLineRunes       = 400 // title, section, and each list line
)

// NoteContext returns the lines of a chunk's context that are the same for
// every chunk of the note n: title, labels, aliases, tags and scalar
// properties, all fields of its row. The parser writes the chunks' context
// from it; the indexer calls it again for the chunks it reuses, since
// tables do not store the context (format.Chunk.Context).
func NoteContext(n *format.Note) string {
	return noteContext(n.Title, n.Labels, n.Aliases, n.Tags, n.Properties)
}

func noteContext(title string, labels, aliases, tags []string, props []format.Property) string {
	var b strings.Builder
	b.WriteString("Note: " + shorten(oneLine(title), contextLineRunes))
	writeList(&b, "Labels", labels)
	writeList(&b, "Aliases", aliases)
	writeList(&b, "Tags", tags)
	if props := contextProperties(props); props != "" {
		b.WriteString("\nProperties: " + props)
	}
	return b.String()
}

// ChunkContext returns a chunk's context: its note's (NoteContext) and
// the section's heading path (format.Chunk.Heading).
func ChunkContext(note, heading string) string {
	if heading == "" {
		return note
	}
	return note + "\nSection: " + shorten(oneLine(heading), contextLineRunes)
}

// writeList writes "Name: a, b, c" with as many items as fit in
// contextLineRunes.
func writeList(b *strings.Builder, name string, items []string) {
	var parts []string
	total := 0
	for _, it := range items {
		it = shorten(oneLine(it), contextValueRunes)
		n := utf8.RuneCountInString(it) + 2
		if total+n > contextLineRunes {
			break
		}
		total += n
		parts = append(parts, it)
	}
	if len(parts) > 0 {
		b.WriteString("\n" + name + ": " + strings.Join(parts, ", "))
	}
}

// contextProperties renders scalar properties as "key: value; ...": lists
// and maps are left out, values are shortened, and properties stop being
// added once the line would grow past contextPropertiesRunes.
func contextProperties(props []format.Property) string {
	var parts []string
	total := 0
	for _, p := range props {
		if k := strings.ToLower(p.Key); k == "type" || k == "types" {
			continue // the Labels line says it
		}
		switch p.Kind {
		case format.KindString, format.KindInt, format.KindFloat, format.KindBool, format.KindDate, format.KindDateTime:
		default:
			continue
		}
		part := oneLine(p.Key) + ": " + shorten(oneLine(p.Text()), contextValueRunes)
		n := utf8.RuneCountInString(part) + 2
		if total+n > contextPropertiesRunes {
			break
		}
		total += n
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// shorten cuts s to at most max runes, marking the cut with an ellipsis.
func shorten(s string, max int) string {
	n := 0
	for i := range s {
		if n == max-1 {
			if utf8.RuneCountInString(s[i:]) <= 1 {
				return s
			}
			return strings.TrimSpace(s[:i]) + "…"
		}
		n++
	}
	return s
}

// oneLine folds line breaks and surrounding space so that a value cannot
// break the one-item-per-line shape of the context.
func oneLine(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return strings.TrimSpace(s)
}
