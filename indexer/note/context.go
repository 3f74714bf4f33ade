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

// noteContext returns the lines of a chunk's context that are the same for
// every chunk of the note: title, labels, aliases, tags and scalar
// properties.
func noteContext(p *Parsed) string {
	var b strings.Builder
	b.WriteString("Note: " + shorten(oneLine(p.Title), contextLineRunes))
	writeList(&b, "Labels", p.Labels)
	writeList(&b, "Aliases", p.Aliases)
	writeList(&b, "Tags", p.Tags)
	if props := contextProperties(p.Properties); props != "" {
		b.WriteString("\nProperties: " + props)
	}
	return b.String()
}

// chunkContext adds the section's heading path to the note's context.
func chunkContext(note, heading string) string {
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
