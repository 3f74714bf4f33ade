package vaultgen

import (
	"strconv"
)

// frontmatter writes a YAML block with labels, aliases, tags, typed
// properties (dates, numbers, bools, strings) and, on some notes, link
// values that are typed edges.
func (w *noteWriter) frontmatter() {
	r := w.r
	w.s("---\n")
	if chance(r, 0.05) {
		w.s("title: ").s(strconv.Quote(w.np.title + " (" + titleWords(r, 1) + ")")).s("\n")
	}
	switch w.np.kind {
	case kindPerson:
		if chance(r, 0.3) {
			w.s("type: [Person, ").s(pick(r, secondLabels)).s("]\n")
		} else {
			w.s("type: Person\n")
		}
		w.s("role: ").s(pick(r, roles)).s("\n")
		w.s("joined: ").s(w.date()).s("\n")
		w.s("active: ").s(strconv.FormatBool(chance(r, 0.8))).s("\n")
	case kindDaily:
		w.s("date: ").s(w.np.title).s("\n")
	default:
		switch x := r.Float64(); {
		case x < 0.15:
			w.s("type: [").s(pick(r, labels)).s(", ").s(pick(r, secondLabels)).s("]\n")
		case x < 0.75:
			w.s("type: ").s(pick(r, labels)).s("\n")
		}
	}
	if len(w.np.aliases) > 0 {
		w.s("aliases: ").s(titleList(w.np.aliases)).s("\n")
	}
	if chance(r, 0.7) {
		w.s("tags: [")
		for k := range 1 + r.IntN(3) {
			if k > 0 {
				w.s(", ")
			}
			w.s(pick(r, tagWords))
		}
		w.s("]\n")
	}
	if chance(r, 0.6) {
		w.s("created: ").s(w.date()).s("\n")
	}
	if chance(r, 0.4) {
		w.s("status: ").s(pick(r, statuses)).s("\n")
	}
	if chance(r, 0.25) {
		w.s("priority: ").s(strconv.Itoa(1 + r.IntN(5))).s("\n")
	}
	if chance(r, 0.15) {
		w.s("rating: ").s(strconv.Itoa(1 + r.IntN(4))).s(".5\n")
	}
	if chance(r, 0.2) {
		w.s("published: ").s(strconv.FormatBool(chance(r, 0.5))).s("\n")
	}
	if chance(r, w.p.cfg.TypedEdgeShare) {
		w.frontmatterLinks()
	}
	w.s("---\n")
}

// frontmatterLinks writes one key whose value is a link or a list of
// links. Each link is a typed edge named by the key, and counts against
// the typed edges the body still owes.
func (w *noteWriter) frontmatterLinks() {
	r := w.r
	w.s(pick(r, frontmatterLinkKeys)).s(": ")
	n := 1 + r.IntN(3)
	if n == 1 && chance(r, 0.5) {
		w.s(`"`)
		w.wikilinkTarget(w.target())
		w.s("\"\n")
	} else {
		w.s("[")
		for k := range n {
			if k > 0 {
				w.s(", ")
			}
			w.s(`"`)
			w.wikilinkTarget(w.target())
			w.s(`"`)
		}
		w.s("]\n")
	}
	w.c.typed += n
	w.debt -= float64(n)
}
