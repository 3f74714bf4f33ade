package note

import (
	"strings"
	"unicode"

	"github.com/vaultgraph/vaultgraph/format"
)

// Levels at which an oversized piece of text is split, coarsest first: a
// chunk boundary falls between paragraphs when it can, else between lines,
// sentences, words, and as a last resort anywhere between two runes.
const (
	levelBlock = iota
	levelLine
	levelSentence
	levelWord
	levelRune
)

// span is a byte range of the note's text.
type span struct{ start, end int }

// piece is a span to pack and how many runes it holds.
type piece struct {
	span
	runes int
}

// chunker cuts the sections of a note's body into chunks of at most target
// runes.
type chunker struct {
	notePath string
	text     string
	lt       *lineTable
	fenced   map[int]bool
	target   int
	context  string // the note's part of every chunk's context
	chunks   []format.Chunk
	blocks   []piece // section's, reused
	keyBuf   []byte  // for format.EmbedTextKey
	// ctx is the context of the chunks under ctxHeading (when ctxSet):
	// made once for a section's chunks.
	ctx, ctxHeading string
	ctxSet          bool
}

// section chunks one section: its paragraphs (fenced code blocks count as
// one paragraph, blank lines and all), merged up to the target size.
func (c *chunker) section(s section) {
	blocks := c.blocks[:0]
	open := -1
	for n := s.firstLine; n <= s.lastLine; n++ {
		start, end := c.lt.span(n)
		if !c.fenced[n] && strings.TrimSpace(c.text[start:end]) == "" {
			open = -1
			continue
		}
		if open < 0 {
			blocks = append(blocks, piece{span: span{start, end}})
			open = len(blocks) - 1
		}
		blocks[open].end = end
	}
	for i := range blocks {
		blocks[i].runes = runeCount(c.text[blocks[i].start:blocks[i].end])
	}
	c.blocks = blocks
	c.pack(blocks, levelBlock, s.heading)
}

// pack merges consecutive pieces into chunks of at most target runes. A
// piece larger than that on its own is split at the next finer level.
func (c *chunker) pack(pieces []piece, level int, heading string) {
	cur, count := span{-1, -1}, 0
	flush := func() {
		if cur.start >= 0 {
			c.emit(cur, heading)
		}
		cur, count = span{-1, -1}, 0
	}
	for _, p := range pieces {
		n := p.runes
		switch {
		case n > c.target && level < levelRune:
			flush()
			c.pack(c.split(p.span, level+1), level+1, heading)
		case cur.start < 0:
			cur, count = p.span, n
		default:
			// The runes from the end of cur to the end of p: those
			// between (blank lines between blocks), then p's.
			add := runeCount(c.text[cur.end:p.start]) + n
			if count+add > c.target {
				flush()
				cur, count = p.span, n
				continue
			}
			cur.end, count = p.end, count+add
		}
	}
	flush()
}

// emit records the chunk s, trimmed of surrounding space; space alone is no
// chunk.
func (c *chunker) emit(s span, heading string) {
	text := c.text[s.start:s.end]
	trimmed := strings.TrimLeftFunc(text, isChunkSpace)
	s.start += len(text) - len(trimmed)
	s.end = s.start + len(strings.TrimRightFunc(trimmed, isChunkSpace))
	if s.start >= s.end {
		return
	}
	if !c.ctxSet || c.ctxHeading != heading {
		c.ctx, c.ctxHeading, c.ctxSet = ChunkContext(c.context, heading), heading, true
	}
	ctx := c.ctx
	text = c.text[s.start:s.end]
	ord := len(c.chunks)
	var key string
	key, c.keyBuf = format.EmbedTextKey(c.keyBuf, ctx, text)
	c.chunks = append(c.chunks, format.Chunk{
		ID:         format.ChunkID(c.notePath, ord),
		Note:       c.notePath,
		Ordinal:    int32(ord),
		Heading:    heading,
		Start:      int32(s.start),
		End:        int32(s.end),
		Line:       int32(c.lt.lineAt(s.start)),
		Context:    ctx,
		Text:       text,
		TextSHA256: key,
	})
}

// isChunkSpace is whitespace, plus the byte order mark that may open a note.
func isChunkSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }

// split cuts p into consecutive pieces that tile it, at the boundaries of
// the given level.
func (c *chunker) split(p span, level int) []piece {
	var pieces []piece
	start, runes := p.start, 0
	prev := rune(-1)
	for i, r := range c.text[p.start:p.end] {
		at := p.start + i
		if at > start && c.boundary(level, prev, r, runes) {
			pieces = append(pieces, piece{span{start, at}, runes})
			start, runes = at, 0
		}
		prev = r
		runes++
	}
	return append(pieces, piece{span{start, p.end}, runes})
}

// boundary reports whether a piece may end between prev and r, given the
// runes already in the piece.
func (c *chunker) boundary(level int, prev, r rune, runes int) bool {
	switch level {
	case levelLine:
		return prev == '\n'
	case levelSentence:
		return unicode.IsSpace(r) && strings.ContainsRune(".!?…。！？", prev)
	case levelWord:
		return unicode.IsSpace(prev) && !unicode.IsSpace(r)
	default:
		return runes >= c.target
	}
}
