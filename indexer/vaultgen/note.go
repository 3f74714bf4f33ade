package vaultgen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// counts are what one worker wrote; Generate sums them into Stats.
type counts struct {
	notes, links, embeds, typed, unresolved int
	bytes                                   int64
	backlinks                               []int32 // by note index: links and typed edges into it
	stubs                                   []bool  // by missing-name index: linked at least once
}

// noteWriter writes one note into b. Its random stream depends only on the
// vault seed and the note's index.
type noteWriter struct {
	p    *plan
	i    int
	np   *notePlan
	r    *rand.Rand
	b    []byte
	c    *counts
	debt float64 // typed edges chosen in prose, still to be written as fields
}

// writeNote appends note i to buf and returns it.
func (p *plan) writeNote(i int, buf []byte, c *counts) []byte {
	w := &noteWriter{
		p:  p,
		i:  i,
		np: &p.notes[i],
		r:  rand.New(rand.NewPCG(uint64(p.cfg.Seed), uint64(i))),
		b:  buf,
		c:  c,
	}
	w.note()
	c.notes++
	return w.b
}

func (w *noteWriter) note() {
	if w.np.frontmatter {
		w.frontmatter()
	}
	if chance(w.r, 0.6) {
		w.s("# ").s(w.np.title).s("\n\n")
	}
	w.paragraph(20+w.r.IntN(60), w.np.block)
	if chance(w.r, 0.1) {
		w.noteField()
	}
	w.s("## Overview\n\n")
	// The last block runs past the target by about half a block on average.
	const overshoot = 250
	for len(w.b)+overshoot < w.np.size {
		w.block()
		if w.debt >= 1 && chance(w.r, 0.5) {
			w.fieldList(min(int(w.debt), 1+w.r.IntN(4)))
		}
		if chance(w.r, 0.2) && len(w.b)+overshoot < w.np.size {
			w.heading()
		}
	}
	if w.debt >= 1 {
		w.fieldList(int(w.debt))
	}
	// End with exactly one newline.
	for len(w.b) > 1 && w.b[len(w.b)-1] == '\n' && w.b[len(w.b)-2] == '\n' {
		w.b = w.b[:len(w.b)-1]
	}
}

func (w *noteWriter) s(str string) *noteWriter {
	w.b = append(w.b, str...)
	return w
}

func (w *noteWriter) heading() {
	if chance(w.r, 0.3) {
		w.s("### ")
	} else {
		w.s("## ")
	}
	if chance(w.r, 0.6) {
		w.s(pick(w.r, headingWords))
	} else {
		w.s(titleWords(w.r, 1+w.r.IntN(3)))
	}
	w.s("\n\n")
}

// block writes one Markdown block of the body.
func (w *noteWriter) block() {
	switch x := w.r.Float64(); {
	case x < 0.66:
		w.paragraph(40+w.r.IntN(100), "")
	case x < 0.78:
		w.list(false)
	case x < 0.82:
		w.list(true)
	case x < 0.86:
		w.callout()
	case x < 0.88:
		w.table()
	case x < 0.90:
		w.codeFence()
	case x < 0.93:
		w.embedLine()
	default:
		w.paragraph(20+w.r.IntN(40), "")
	}
}

// paragraph writes sentences of n word slots. A slot holds a word, or with
// probability linkP a link (or a typed edge owed to a later field list).
func (w *noteWriter) paragraph(n int, block string) {
	w.prose(n, true)
	if chance(w.r, 0.12) {
		w.s(" #").s(pick(w.r, tagWords))
	}
	if block != "" {
		w.s(" ^").s(block)
	}
	w.s("\n\n")
}

// prose writes n word slots as sentences.
func (w *noteWriter) prose(n int, sentences bool) {
	left := 0 // words left in the sentence
	for k := range n {
		if k > 0 {
			w.b = append(w.b, ' ')
		}
		startSentence := sentences && left == 0
		if startSentence {
			left = 6 + w.r.IntN(15)
		}
		if !w.linkSlot() {
			w.word(startSentence)
		}
		left--
		switch {
		case sentences && (left == 0 || k == n-1):
			w.b = append(w.b, '.')
			left = 0
		case chance(w.r, 0.05):
			w.b = append(w.b, ',')
		}
	}
}

// word writes one word, or rarely inline code holding link-like text that
// must not count as a link.
func (w *noteWriter) word(capital bool) {
	if chance(w.r, 0.002) {
		w.s("`[[").s(pick(w.r, headingWords)).s("]]`")
		return
	}
	s := drawWord(w.r, w.p.words)
	if capital {
		s = capitalise(s)
	}
	w.s(s)
}

// drawWord draws a word of prose: mostly common words with Zipf weights
// (z), some rare, accented or invented ones that lexical search can find.
func drawWord(r *rand.Rand, z zipf) string {
	switch x := r.Float64(); {
	case x < 0.015:
		return pick(r, rareWords)
	case x < 0.022:
		return pick(r, accentedWords)
	case x < 0.025:
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(pick(r, syllables))
		}
		return b.String()
	}
	return commonWords[z.draw(r)]
}

// linkSlot decides whether a word slot holds a link and writes it if so.
// A slot chosen for a typed edge is written inline in brackets one time in
// ten; otherwise it adds to the debt paid by the next field list.
func (w *noteWriter) linkSlot() bool {
	if !chance(w.r, w.p.linkP) {
		return false
	}
	if chance(w.r, w.p.cfg.TypedEdgeShare) {
		if chance(w.r, 0.1) {
			w.s("[").edgeType().s(":: ")
			w.wikilinkTarget(w.target())
			w.s("]")
			w.c.typed++
			return true
		}
		w.debt++
		return false
	}
	w.plainLink()
	return true
}

// list writes a bullet list (or a task list), denser in links than prose.
func (w *noteWriter) list(tasks bool) {
	for range 3 + w.r.IntN(5) {
		switch {
		case tasks && chance(w.r, 0.4):
			w.s("- [x] ")
		case tasks:
			w.s("- [ ] ")
		case chance(w.r, 0.1):
			w.s("  - ")
		default:
			w.s("- ")
		}
		w.prose(3+w.r.IntN(12), false)
		if chance(w.r, 2*w.p.linkP) {
			w.s(" ")
			w.plainLink()
		}
		w.s("\n")
	}
	w.s("\n")
}

func (w *noteWriter) callout() {
	w.s("> [!").s(pick(w.r, []string{"note", "tip", "warning", "quote", "info"})).s("] ")
	w.s(titleWords(w.r, 2)).s("\n> ")
	w.prose(20+w.r.IntN(40), true)
	w.s("\n\n")
}

func (w *noteWriter) table() {
	w.s("| Item | Status | Count |\n| --- | --- | ---: |\n")
	for range 2 + w.r.IntN(5) {
		w.s("| ").s(titleWords(w.r, 1+w.r.IntN(2))).s(" | ").s(pick(w.r, statuses))
		w.s(" | ").s(strconv.Itoa(w.r.IntN(500))).s(" |\n")
	}
	w.s("\n")
}

// codeFence writes a fenced block whose link-, tag- and field-like text
// must not count as links, tags or edges.
func (w *noteWriter) codeFence() {
	fence := "```"
	if chance(w.r, 0.2) {
		fence = "~~~"
	}
	lang := pick(w.r, codeLanguages)
	w.s(fence).s(lang).s("\n")
	ghost := titleWords(w.r, 2)
	switch lang {
	case "dataview":
		w.s("TABLE status FROM #project WHERE contains(file.outlinks, [[").s(ghost).s("]])\n")
	case "yaml":
		w.s("related: \"[[").s(ghost).s("]]\"\ntags: [not-a-tag]\n")
	default:
		w.s("# see [[").s(ghost).s("]] and #not-a-tag\n")
		w.s("depends_on:: [[").s(ghost).s("]] {critical: true}\n")
		w.s("print(\"![[").s(ghost).s("#Overview]]\")\n")
	}
	w.s(fence).s("\n\n")
}

// embedLine writes an embed on a line of its own, of a whole note or of
// its Overview section.
func (w *noteWriter) embedLine() {
	t := w.target()
	w.s("![[")
	w.linkName(t)
	if t >= 0 && chance(w.r, 0.4) {
		w.s("#Overview")
	}
	w.s("]]\n\n")
	w.c.links++
	w.c.embeds++
}

// noteField writes an inline field without a link: a note property.
func (w *noteWriter) noteField() {
	switch w.r.IntN(3) {
	case 0:
		w.s("effort:: ").s(strconv.Itoa(1 + w.r.IntN(8)))
	case 1:
		w.s("progress:: 0.").s(strconv.Itoa(w.r.IntN(10)))
	default:
		w.s("reviewed:: ").s(w.date())
	}
	w.s("\n\n")
}

// date is a day between 2015 and 2025.
func (w *noteWriter) date() string {
	return time.Date(2015, 1, 1+w.r.IntN(3650), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

// words writes n common words separated by spaces.
func (w *noteWriter) words(n int) {
	for k := range n {
		if k > 0 {
			w.s(" ")
		}
		w.s(commonWords[w.p.words.draw(w.r)])
	}
}

// titleList formats strings as a YAML flow sequence of quoted strings.
func titleList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
