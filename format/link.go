package format

// Link origins: where in a note a link was written.
const (
	OriginBody        = "body"        // a [[wikilink]], ![[embed]] or [markdown](link) in prose
	OriginField       = "field"       // an inline field: type:: [[Target]] {props}
	OriginFrontmatter = "frontmatter" // a frontmatter value that is a link
)

// Link kinds: how the target was spelled, which decides how it resolves.
const (
	// KindWikilink targets are link paths resolved the way Obsidian does:
	// exact path, then the note's own folder, then the shortest path whose
	// file name matches, then aliases; all case-insensitive.
	KindWikilink = "wikilink"
	// KindMarkdown targets are the vault path Obsidian reads (percent
	// escapes decoded, from the vault root unless ./ or ../, .md added);
	// they resolve like a wikilink with a path: the exact path, then the
	// notes whose path ends with it.
	KindMarkdown = "markdown"
)

// Edge types that plain links produce. Typed edges use the name the author
// wrote.
const (
	TypeLinksTo = "links_to"
	TypeEmbeds  = "embeds"
)

// Link is one row of links.parquet: one link exactly as written in one note,
// before resolution. The indexer keeps it so that a later run can re-resolve
// the links of unchanged notes without parsing them again.
type Link struct {
	Source string `parquet:"source,plain" json:"source"`
	Kind   string `parquet:"kind,dict" json:"kind"`
	Type   string `parquet:"type,plain" json:"type"`
	Origin string `parquet:"origin,dict" json:"origin"`
	// Target is the link path without anchor: "Crawler", "people/Bob", or
	// for markdown links the vault path "people/Bob Smith.md".
	Target string `parquet:"target,plain" json:"target"`
	// Anchor is the heading ("Goals") or block ("^b1") after '#', if any
	// (NULL in the table if none).
	Anchor string `parquet:"anchor,optional,plain" json:"anchor,omitempty"`
	// Display is the alias or link text shown to readers, if any (NULL in
	// the table if none).
	Display    string     `parquet:"display,optional,plain" json:"display,omitempty"`
	Sign       int32      `parquet:"sign" json:"sign"`
	Properties []Property `parquet:"properties,list" json:"properties"`
	// Heading is the heading path the link was written under, joined with
	// HeadingSeparator; "" (NULL in the table) before the first heading and
	// in frontmatter.
	Heading string `parquet:"heading,optional,plain" json:"heading,omitempty"`
	Line    int32  `parquet:"line" json:"line"`
}

// HeadingSeparator joins the headings of a heading path.
const HeadingSeparator = " > "
