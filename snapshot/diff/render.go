package diff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/vaultgraph/vaultgraph/format"
)

// Formats a Report renders in.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// DefaultLimit is how many items of one list the text and Markdown forms
// show before "... and N more". JSON always has every item.
const DefaultLimit = 50

// Render writes the report in the named format. limit caps every list of
// the text and Markdown forms (DefaultLimit when <= 0).
func (r *Report) Render(w io.Writer, formatName string, limit int) error {
	if limit <= 0 {
		limit = DefaultLimit
	}
	switch formatName {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case FormatText, "":
		bw := bufio.NewWriter(w)
		r.text(bw, limit)
		return bw.Flush()
	case FormatMarkdown:
		bw := bufio.NewWriter(w)
		r.markdown(bw, limit)
		return bw.Flush()
	}
	return fmt.Errorf("unknown diff format %q: use text, markdown or json", formatName)
}

// Summary is a one-line account of the changes.
func (r *Report) Summary() string {
	if r.Empty() {
		return "no changes"
	}
	var parts []string
	add := func(n int, s string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	n := r.Notes
	add(len(n.Added), "notes added")
	add(len(n.Removed), "notes removed")
	add(len(n.Renamed), "notes renamed")
	add(len(n.Changed), "notes changed")
	add(len(r.Edges.Added), "edges added")
	add(len(r.Edges.Removed), "edges removed")
	add(len(r.Edges.Changed), "edges changed")
	add(len(r.Unresolved.Gained), "unresolved links gained")
	add(len(r.Unresolved.Lost), "unresolved links lost")
	add(len(r.Warnings.Gained), "new warnings")
	add(len(r.Warnings.Resolved), "warnings resolved")
	if r.Embedder != nil {
		parts = append(parts, "embedding model changed")
	}
	return strings.Join(parts, ", ")
}

func (r *Report) text(w *bufio.Writer, limit int) {
	fmt.Fprintf(w, "snapshot diff %s -> %s: %s\n", r.From.ID, r.To.ID, r.Summary())
	if r.Empty() {
		return
	}
	if e := r.Embedder; e != nil {
		fmt.Fprintf(w, "\nembedding model: %s -> %s\n", describeEmbedder(e.Before), describeEmbedder(e.After))
	}
	section := func(title string, n int, item func(i int) string) {
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s (%d)\n", title, n)
		for i := range min(n, limit) {
			fmt.Fprintf(w, "  %s\n", item(i))
		}
		if n > limit {
			fmt.Fprintf(w, "  ... and %d more (--format json lists all)\n", n-limit)
		}
	}
	n := r.Notes
	section("notes added", len(n.Added), func(i int) string { return "+ " + n.Added[i] })
	section("notes removed", len(n.Removed), func(i int) string { return "- " + n.Removed[i] })
	section("notes renamed", len(n.Renamed), func(i int) string { return "~ " + n.Renamed[i].From + " -> " + n.Renamed[i].To })
	section("notes changed", len(n.Changed), func(i int) string {
		c := n.Changed[i]
		var b strings.Builder
		b.WriteString("* " + c.Note)
		for _, line := range changeLines(c) {
			b.WriteString("\n      " + line)
		}
		return b.String()
	})
	if len(r.Edges.ByType) > 0 {
		fmt.Fprintf(w, "\nedges by type\n")
		for _, t := range r.Edges.ByType {
			fmt.Fprintf(w, "  %s +%d -%d", runewidth.FillRight(t.Type, 24), t.Added, t.Removed)
			if t.Changed > 0 {
				fmt.Fprintf(w, " ~%d", t.Changed)
			}
			fmt.Fprintln(w)
		}
	}
	section("edges added", len(r.Edges.Added), func(i int) string { return "+ " + edgeText(r.Edges.Added[i]) })
	section("edges removed", len(r.Edges.Removed), func(i int) string { return "- " + edgeText(r.Edges.Removed[i]) })
	section("edges changed", len(r.Edges.Changed), func(i int) string {
		c := r.Edges.Changed[i]
		var b strings.Builder
		b.WriteString("~ " + changedEdgeText(c))
		for _, line := range propertyLines(c.Properties) {
			b.WriteString("\n      " + line)
		}
		return b.String()
	})
	section("unresolved links gained", len(r.Unresolved.Gained), func(i int) string { return "+ " + edgeText(r.Unresolved.Gained[i]) })
	section("unresolved links lost", len(r.Unresolved.Lost), func(i int) string { return "- " + edgeText(r.Unresolved.Lost[i]) })
	section("new warnings", len(r.Warnings.Gained), func(i int) string { return "+ " + warningText(r.Warnings.Gained[i]) })
	section("warnings resolved", len(r.Warnings.Resolved), func(i int) string { return "- " + warningText(r.Warnings.Resolved[i]) })
}

// changeLines describes a changed note, one line per aspect.
func changeLines(c NoteChange) []string {
	var out []string
	if c.Title != nil {
		out = append(out, fmt.Sprintf("title: %q -> %q", c.Title.Before, c.Title.After))
	}
	set := func(name string, s SetChange) {
		if s.empty() {
			return
		}
		var parts []string
		for _, x := range s.Added {
			parts = append(parts, "+"+x)
		}
		for _, x := range s.Removed {
			parts = append(parts, "-"+x)
		}
		out = append(out, name+": "+strings.Join(parts, " "))
	}
	set("labels", c.Labels)
	set("tags", c.Tags)
	set("aliases", c.Aliases)
	out = append(out, propertyLines(c.Properties)...)
	if ch := c.Chunks; ch != nil {
		out = append(out, fmt.Sprintf("chunks: %d -> %d (%d new, %d gone)", ch.Before, ch.After, ch.Added, ch.Removed))
	}
	if len(out) == 0 {
		out = append(out, "content changed (no property, label, tag or passage text differs)")
	}
	return out
}

// propertyLines describes property changes, one line each.
func propertyLines(props []PropertyChange) []string {
	var out []string
	for _, p := range props {
		switch p.Change {
		case PropertyAdded:
			out = append(out, fmt.Sprintf("property %s: added %s", p.Key, p.After))
		case PropertyRemoved:
			out = append(out, fmt.Sprintf("property %s: removed (was %s)", p.Key, p.Before))
		default:
			out = append(out, fmt.Sprintf("property %s: %s -> %s", p.Key, p.Before, p.After))
		}
	}
	return out
}

func edgeText(e Edge) string { return e.Source + " -[" + e.Type + "]-> " + e.Target }

// changedEdgeText is edgeText, marking a link to no note as unresolved.
func changedEdgeText(c EdgeChange) string {
	if c.Unresolved {
		return edgeText(c.edge()) + " (unresolved)"
	}
	return edgeText(c.edge())
}

func warningText(w format.Warning) string {
	loc := w.File
	if w.Line > 0 {
		loc = fmt.Sprintf("%s:%d", w.File, w.Line)
	}
	return loc + ": " + w.Kind + ": " + w.Message
}

func describeEmbedder(e *format.Embedder) string {
	if e == nil {
		return "none"
	}
	fp := e.Fingerprint
	if len(fp) > 12 {
		fp = fp[:12]
	}
	return fmt.Sprintf("%s (%d dims, fingerprint %s)", e.Spec(), e.Dimensions, fp)
}

func (r *Report) markdown(w *bufio.Writer, limit int) {
	fmt.Fprintf(w, "### vaultgraph snapshot diff\n\n")
	fmt.Fprintf(w, "%s → %s · %d → %d notes · %d → %d edges\n\n", code(r.From.ID), code(r.To.ID),
		r.From.Counts.Notes, r.To.Counts.Notes, r.From.Counts.Edges, r.To.Counts.Edges)
	if r.Empty() {
		fmt.Fprintf(w, "No changes.\n")
		return
	}
	n := r.Notes
	fmt.Fprintf(w, "| | added | removed |\n|---|---:|---:|\n")
	fmt.Fprintf(w, "| notes | %d | %d |\n", len(n.Added), len(n.Removed))
	fmt.Fprintf(w, "| edges | %d | %d |\n", len(r.Edges.Added), len(r.Edges.Removed))
	fmt.Fprintf(w, "| unresolved links | %d | %d |\n", len(r.Unresolved.Gained), len(r.Unresolved.Lost))
	fmt.Fprintf(w, "| warnings | %d | %d |\n", len(r.Warnings.Gained), len(r.Warnings.Resolved))
	if len(n.Renamed)+len(n.Changed) > 0 {
		fmt.Fprintf(w, "\n%d notes renamed, %d changed.\n", len(n.Renamed), len(n.Changed))
	}
	if len(r.Edges.Changed) > 0 {
		fmt.Fprintf(w, "\n%d edges with changed properties.\n", len(r.Edges.Changed))
	}
	if e := r.Embedder; e != nil {
		fmt.Fprintf(w, "\n> [!WARNING]\n> Embedding model changed: %s → %s. Every vector is recomputed.\n",
			mdEscape(describeEmbedder(e.Before)), mdEscape(describeEmbedder(e.After)))
	}
	details := func(title string, count int, item func(i int) string) {
		if count == 0 {
			return
		}
		fmt.Fprintf(w, "\n<details><summary>%s (%d)</summary>\n\n", title, count)
		for i := range min(count, limit) {
			fmt.Fprintf(w, "- %s\n", item(i))
		}
		if count > limit {
			fmt.Fprintf(w, "- … and %d more\n", count-limit)
		}
		fmt.Fprintf(w, "\n</details>\n")
	}
	details("Notes added", len(n.Added), func(i int) string { return code(n.Added[i]) })
	details("Notes removed", len(n.Removed), func(i int) string { return code(n.Removed[i]) })
	details("Notes renamed", len(n.Renamed), func(i int) string { return code(n.Renamed[i].From) + " → " + code(n.Renamed[i].To) })
	details("Notes changed", len(n.Changed), func(i int) string {
		c := n.Changed[i]
		lines := changeLines(c)
		for j := range lines {
			lines[j] = "  - " + mdEscape(lines[j])
		}
		return code(c.Note) + "\n" + strings.Join(lines, "\n")
	})
	r.markdownByType(w)
	edge := func(e Edge) string { return code(e.Source) + " —" + code(e.Type) + "→ " + code(e.Target) }
	details("Edges added", len(r.Edges.Added), func(i int) string { return edge(r.Edges.Added[i]) })
	details("Edges removed", len(r.Edges.Removed), func(i int) string { return edge(r.Edges.Removed[i]) })
	details("Edges changed", len(r.Edges.Changed), func(i int) string {
		c := r.Edges.Changed[i]
		head := edge(c.edge())
		if c.Unresolved {
			head += " (unresolved)"
		}
		lines := propertyLines(c.Properties)
		for j := range lines {
			lines[j] = "  - " + mdEscape(lines[j])
		}
		return head + "\n" + strings.Join(lines, "\n")
	})
	details("Unresolved links gained", len(r.Unresolved.Gained), func(i int) string { return edge(r.Unresolved.Gained[i]) })
	details("Unresolved links lost", len(r.Unresolved.Lost), func(i int) string { return edge(r.Unresolved.Lost[i]) })
	details("New warnings", len(r.Warnings.Gained), func(i int) string { return mdEscape(warningText(r.Warnings.Gained[i])) })
	details("Warnings resolved", len(r.Warnings.Resolved), func(i int) string { return mdEscape(warningText(r.Warnings.Resolved[i])) })
}

// markdownByType writes the table of edges by type, with a changed column
// only when some edge's properties changed, so that other diffs read as
// they always did.
func (r *Report) markdownByType(w *bufio.Writer) {
	if len(r.Edges.ByType) == 0 {
		return
	}
	withChanged := len(r.Edges.Changed) > 0
	if withChanged {
		fmt.Fprintf(w, "\n**Edges by type**\n\n| type | added | removed | changed |\n|---|---:|---:|---:|\n")
	} else {
		fmt.Fprintf(w, "\n**Edges by type**\n\n| type | added | removed |\n|---|---:|---:|\n")
	}
	for _, t := range r.Edges.ByType {
		if withChanged {
			fmt.Fprintf(w, "| %s | %d | %d | %d |\n", code(t.Type), t.Added, t.Removed, t.Changed)
		} else {
			fmt.Fprintf(w, "| %s | %d | %d |\n", code(t.Type), t.Added, t.Removed)
		}
	}
}

// code renders s as inline code, with a fence longer than any run of
// backticks inside it.
func code(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "\r", " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || fence != "`" {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdEscape escapes the characters that would start Markdown or HTML markup
// in running text.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '|', '#', '~', '!':
			b.WriteByte('\\')
		case '\n', '\r':
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}
