package note

import "github.com/vaultgraph/vaultgraph/format"

// Revision changes whenever the parser reads some note differently, so
// that a data directory indexed by another revision has every note parsed
// again rather than reused (format.Options.Parser):
//
//	0  snapshots written before revisions were recorded
//	2  markdown links from the vault root, CommonMark destinations, inline
//	   $math$, bracketed fields before whole-line fields (Dataview),
//	   Obsidian's tag characters
//	3  setext headings (a paragraph underlined with === or ---)
//	4  frontmatter type and types are also properties, as written
//	5  a frontmatter block never closed is warned about
//	   (format.WarnUnclosedFrontmatter); an inline tags:: field adds tags
//	   rather than a property
const Revision = 5

// Options shape a parse. The zero value uses the defaults.
type Options struct {
	// ChunkChars is the target chunk size in characters
	// (format.DefaultChunkChars when 0).
	ChunkChars int
}

// Parsed is what one note yields on its own, before link resolution.
type Parsed struct {
	// Content is the note as read, with invalid UTF-8 replaced by U+FFFD.
	// Every offset below indexes into it.
	Content string
	// BodyStart is the byte offset where the body begins after the
	// frontmatter block (0 without frontmatter).
	BodyStart int
	// Title is the frontmatter title, else the file name without .md.
	Title      string
	Aliases    []string
	Tags       []string // without '#', deduplicated, frontmatter first
	Labels     []string // from type, then types; deduplicated
	Properties []format.Property
	// Links are every link written in the note, in order of appearance,
	// with Source set to the note's path.
	Links []format.Link
	// Chunks have ID, Note, Ordinal, Heading, Start, End, Line, Context,
	// Text and TextSHA256 set.
	Chunks   []format.Chunk
	Warnings []format.Warning
}
