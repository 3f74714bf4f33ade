package note

import (
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// section is a run of body lines under one heading path; the heading line
// itself is not part of it (the path is in every chunk's context).
type section struct {
	heading             string
	firstLine, lastLine int
}

// bodyReader walks the body of a note once, line by line, collecting
// headings, links, inline fields and tags from the masked text.
type bodyReader struct {
	notePath string
	folder   string
	lt       *lineTable
	masked   string
	fenced   map[int]bool
	props    *propertyList
	tags     *uniqueList
	setext   []setextHeading // in order of their first lines

	headings headingPath
	links    []format.Link
	warnings []format.Warning
	sections []section
}

// read walks lines firstLine to the end of the note.
func (r *bodyReader) read(firstLine int) {
	r.sections = []section{{firstLine: firstLine}}
	setext := r.setext
	for n := firstLine; n <= r.lt.count(); n++ {
		if r.fenced[n] {
			continue
		}
		start, end := r.lt.span(n)
		ml := r.masked[start:end]
		if len(setext) > 0 && setext[0].firstLine == n {
			h := setext[0]
			setext = setext[1:]
			r.enterHeading(h.level, h.title, n, h.underline)
		} else if level, ts, ok := atxHeading(ml); ok {
			r.enterHeading(level, headingTitle(r.lt.text[start+ts:end]), n, n)
		}
		r.readLine(n, ml, r.lt.text[start:end])
	}
	r.sections[len(r.sections)-1].lastLine = r.lt.count()
}

// enterHeading records a heading written on lines first to last (one line
// for an ATX heading, the text and its underline for a setext heading).
// Those lines belong to no section; the links on them are under the
// heading's own path.
func (r *bodyReader) enterHeading(level int, title string, first, last int) {
	r.headings.enter(level, title)
	r.sections[len(r.sections)-1].lastLine = first - 1
	r.sections = append(r.sections, section{heading: r.headings.String(), firstLine: last + 1})
}

// readLine collects the links, fields and tags of one line. Links inside
// the value of an inline field that yields typed edges are those edges and
// nothing else: they yield no links_to or embeds besides. For a field that
// is the whole line, that is every link of the line.
func (r *bodyReader) readLine(n int, ml, ol string) {
	if strings.IndexAny(ml, "[(#") < 0 && !strings.Contains(ml, "::") {
		return // nothing here can be a link, a field or a tag
	}
	var br brackets
	if strings.IndexAny(ml, "[(") >= 0 {
		br = pairBrackets(ml)
	}
	tokens := scanLinks(ml, r.folder, br)
	var typed []span
	if strings.Contains(ml, "::") {
		typed = r.readFields(n, ml, ol, lineFields(ml, br), tokens)
	}
	for _, t := range tokens {
		if t.note && !within(typed, t) {
			r.links = append(r.links, t.bodyLink(r.notePath, r.headings.String(), n))
		}
	}
	if strings.IndexByte(ml, '#') >= 0 {
		r.tags.add(scanTags(ml, tokens)...)
	}
}

// isTagsKey reports whether an inline field's key is tags, matched without
// case as the frontmatter key is.
func isTagsKey(key string) bool { return strings.EqualFold(key, "tags") }

// within reports whether a token lies inside one of the spans.
func within(spans []span, t linkToken) bool {
	for _, s := range spans {
		if t.start >= s.start && t.end <= s.end {
			return true
		}
	}
	return false
}

// readFields turns the fields of a line into typed edges (values holding
// note links) or properties (other values). It returns the spans of the
// values that yielded edges.
func (r *bodyReader) readFields(n int, ml, ol string, fields []inlineField, tokens []linkToken) []span {
	var typed []span
	for _, f := range fields {
		links, block := fieldLinks(ml, f, tokens)
		if len(links) == 0 && isTagsKey(f.key) {
			// tags:: a, b adds tags, as the frontmatter key does: as a
			// property it would be shadowed by the built-in tags and show
			// under an internal name (_tags).
			r.tags.add(splitTags(ol[f.valStart:f.valEnd])...)
			continue
		}
		if len(links) == 0 {
			r.props.add(f.key, inferValue(ol[f.valStart:f.valEnd]))
			continue
		}
		var props []format.Property
		if block != "" {
			var err error
			if props, err = edgeProperties(block); err != nil {
				r.warnings = append(r.warnings, format.Warning{
					File: r.notePath, Line: n, Kind: format.WarnEdgeProperties,
					Message: "edge properties of " + f.key + " ignored: " + err.Error(),
				})
			}
		}
		for _, t := range links {
			r.links = append(r.links, t.typedLink(r.notePath, f.key, format.OriginField, f.sign, slices.Clone(props), r.headings.String(), n))
		}
		typed = append(typed, span{f.valStart, f.valEnd})
	}
	return typed
}
