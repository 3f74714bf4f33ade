package vaultgen

import (
	"net/url"
	"strconv"
	"strings"
)

// target draws a link target: a note index by Zipf popularity, or for a
// MissingLinkShare of links -1-k for missing name k. Links to the note
// itself are moved to the next most popular note.
func (w *noteWriter) target() int {
	if chance(w.r, w.p.cfg.MissingLinkShare) {
		return -1 - w.p.rarely.draw(w.r)
	}
	rank := w.p.popular.draw(w.r)
	t := int(w.p.byRank[rank])
	if t == w.i && len(w.p.byRank) > 1 {
		t = int(w.p.byRank[(rank+1)%len(w.p.byRank)])
	}
	return t
}

// count records one link or typed edge into t.
func (w *noteWriter) count(t int) {
	if t < 0 {
		w.c.unresolved++
		w.c.stubs[-1-t] = true
		return
	}
	w.c.backlinks[t]++
}

// linkName writes the name a wikilink uses for t and counts the link.
func (w *noteWriter) linkName(t int) {
	w.count(t)
	if t < 0 {
		w.s(w.p.missing[-1-t])
		return
	}
	w.s(w.p.notes[t].title)
}

// plainLink writes a body link to a drawn target in one of the forms
// Obsidian users write: [[T]], [[T|text]], [[T#Heading]], [[T#^block]],
// [[Folder/T]], [[Alias]] and [text](relative/path.md).
func (w *noteWriter) plainLink() {
	w.c.links++
	t := w.target()
	if t < 0 {
		w.s("[[")
		w.linkName(t)
		w.s("]]")
		return
	}
	tp := &w.p.notes[t]
	switch x := w.r.Float64(); {
	case x < 0.55:
		w.s("[[").s(tp.title).s("]]")
	case x < 0.67:
		w.s("[[").s(tp.title).s("|")
		w.words(1 + w.r.IntN(3))
		w.s("]]")
	case x < 0.73:
		w.s("[[").s(tp.title).s("#Overview]]")
	case x < 0.75 && tp.block != "":
		w.s("[[").s(tp.title).s("#^").s(tp.block).s("]]")
	case x < 0.78 && tp.folder != "":
		w.s("[[").s(tp.folder).s("/").s(tp.title).s("]]")
	case x < 0.82 && len(tp.aliases) > 0:
		w.s("[[").s(pick(w.r, tp.aliases)).s("]]")
	default:
		w.s("[")
		w.words(1 + w.r.IntN(3))
		w.s("](").s(w.markdownPath(tp)).s(")")
	}
	w.count(t)
}

// wikilinkTarget writes [[T]] for a typed edge's target.
func (w *noteWriter) wikilinkTarget(t int) {
	w.s("[[")
	w.linkName(t)
	w.s("]]")
}

// markdownPath is the link path of a markdown link from this note to tp:
// relative (with ../ where needed) or, one time in ten, from the vault
// root; percent-escaped either way.
func (w *noteWriter) markdownPath(tp *notePlan) string {
	to := strings.Split(tp.path, "/")
	if chance(w.r, 0.1) {
		return "/" + escapeSegments(to)
	}
	var from []string
	if w.np.folder != "" {
		from = strings.Split(w.np.folder, "/")
	}
	common := 0
	for common < len(from) && common < len(to)-1 && from[common] == to[common] {
		common++
	}
	segs := make([]string, 0, len(from)-common+len(to)-common)
	for range len(from) - common {
		segs = append(segs, "..")
	}
	segs = append(segs, to[common:]...)
	return escapeSegments(segs)
}

func escapeSegments(segs []string) string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = url.PathEscape(s)
	}
	return strings.Join(out, "/")
}

// edgeType writes a typed-edge name, sign included.
func (w *noteWriter) edgeType() *noteWriter {
	return w.s(pick(w.r, edgeTypes))
}

// fieldList writes n typed edges as inline fields, one per line, most as
// list items, some with a {props} block, some with several
// comma-separated targets and a few with a markdown-link target.
func (w *noteWriter) fieldList(n int) {
	w.debt -= float64(n)
	for n > 0 {
		if chance(w.r, 0.7) {
			w.s("- ")
		}
		w.edgeType().s(":: ")
		switch x := w.r.Float64(); {
		case x < 0.15 && n >= 2:
			k := min(n, 2+w.r.IntN(2))
			for j := range k {
				if j > 0 {
					w.s(", ")
				}
				w.wikilinkTarget(w.target())
			}
			w.c.typed += k
			n -= k
			w.s("\n")
			continue
		case x < 0.20:
			if t := w.target(); t >= 0 {
				w.s("[")
				w.words(1 + w.r.IntN(2))
				w.s("](").s(w.markdownPath(&w.p.notes[t])).s(")")
				w.count(t)
			} else {
				w.wikilinkTarget(t)
			}
		default:
			w.wikilinkTarget(w.target())
		}
		if chance(w.r, 0.4) {
			w.s(" ").props()
		}
		w.s("\n")
		w.c.typed++
		n--
	}
	w.s("\n")
}

// props writes an edge property block as a YAML flow map of one or two
// typed values, or rarely a pinned edge id unique in the vault.
func (w *noteWriter) props() {
	if chance(w.r, 0.02) {
		w.s("{id: e").s(strconv.Itoa(w.i)).s("-").s(strconv.Itoa(len(w.b))).s("}")
		return
	}
	w.s("{")
	first := w.r.IntN(6)
	for k := range 1 + w.r.IntN(2) {
		if k > 0 {
			w.s(", ")
		}
		// The second key differs from the first: YAML rejects duplicate keys.
		switch (first + k*(1+w.r.IntN(5))) % 6 {
		case 0:
			w.s("since: ").s(strconv.Itoa(2005 + w.r.IntN(21)))
		case 1:
			w.s("weight: 0.").s(strconv.Itoa(1 + w.r.IntN(9)))
		case 2:
			w.s("critical: ").s(strconv.FormatBool(chance(w.r, 0.5)))
		case 3:
			w.s("started: ").s(w.date())
		case 4:
			w.s("role: ").s(pick(w.r, roles))
		default:
			w.s("hours: ").s(strconv.Itoa(1 + w.r.IntN(200)))
		}
	}
	w.s("}")
}
