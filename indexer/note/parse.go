package note

import (
	"github.com/vaultgraph/vaultgraph/format"
)

// Parse reads one note. notePath is its vault-relative path with forward
// slashes ("People/Bob Smith.md"); it becomes every link's Source and every
// chunk's Note. Parse never fails and never panics: bad input yields
// warnings, and whatever can still be read is returned. It runs in time
// roughly linear in the size of content and is safe for concurrent use.
func Parse(notePath string, content []byte, opts Options) *Parsed {
	text, warn := validContent(notePath, content)
	p := &Parsed{Content: text}
	if warn != nil {
		p.Warnings = append(p.Warnings, *warn)
	}
	lt := newLineTable(text)
	fm, bodyLine := frontmatter{}, 1
	if b, ok, opened := findFrontmatter(lt); ok {
		fm = parseFrontmatter(b, notePath)
		p.BodyStart, bodyLine = b.bodyStart, b.bodyLine
	} else if opened {
		p.Warnings = append(p.Warnings, unclosedFrontmatter(notePath))
	}
	fm.tags.fold = true
	p.Warnings = append(p.Warnings, fm.warnings...)

	m := newMask(lt, bodyLine)
	masked := m.String()
	body := &bodyReader{
		notePath: notePath,
		folder:   format.NoteFolder(notePath),
		lt:       lt,
		masked:   masked,
		fenced:   m.fenced,
		props:    &fm.props,
		tags:     &fm.tags,
		setext:   findSetextHeadings(lt, m, masked, bodyLine),
	}
	body.read(bodyLine)

	p.Title = fm.title
	if p.Title == "" {
		p.Title = format.NoteTitleFromPath(notePath)
	}
	p.Aliases = fm.aliases.items
	p.Tags = fm.tags.items
	var labels uniqueList
	labels.add(fm.types...)
	labels.add(fm.types2...)
	p.Labels = labels.items
	p.Properties = fm.props.properties()
	p.Links = append(fm.links, body.links...)
	p.Warnings = append(p.Warnings, body.warnings...)
	p.Chunks = chunkNote(notePath, p, lt, m.fenced, body.sections, opts)
	return p
}

// chunkNote cuts the body's sections into chunks.
func chunkNote(notePath string, p *Parsed, lt *lineTable, fenced map[int]bool, sections []section, opts Options) []format.Chunk {
	target := opts.ChunkChars
	if target <= 0 {
		target = format.DefaultChunkChars
	}
	c := &chunker{notePath: notePath, text: p.Content, lt: lt, fenced: fenced, target: target,
		context: noteContext(p.Title, p.Labels, p.Aliases, p.Tags, p.Properties)}
	for _, s := range sections {
		c.section(s)
	}
	return c.chunks
}
