package format

// Edge is one row of edges.parquet: a resolved, directed edge between two
// notes (or a note and a stub).
//
// Typed edges (inline fields and frontmatter links) are one row per
// occurrence, told apart by the ordinal in their id. Plain links and embeds
// from one note to the same target are merged into one links_to or embeds
// edge whose Count is the number of occurrences.
type Edge struct {
	// ID is EdgeID(source, type, target, n) unless the author pinned it
	// with an "id" edge property.
	ID     string `parquet:"id,plain" json:"id"`
	Source string `parquet:"source,plain" json:"source"`
	Target string `parquet:"target,plain" json:"target"`
	// Type is links_to, embeds, or the typed edge's name as written,
	// without its sign prefix.
	Type string `parquet:"type,plain" json:"type"`
	// Sign is +1, or -1 for a type written with a '-' prefix.
	Sign       int32      `parquet:"sign" json:"sign"`
	Properties []Property `parquet:"properties,list" json:"properties"`
	Count      int32      `parquet:"count" json:"count"`
	Origin     string     `parquet:"origin,dict" json:"origin"`
	// Anchors are the distinct headings or blocks the link pointed into.
	Anchors []string `parquet:"anchors,list,plain" json:"anchors"`
	// Heading and Line locate the first occurrence in the source note; no
	// heading is "" (NULL in the table).
	Heading string `parquet:"heading,optional,plain" json:"heading,omitempty"`
	Line    int32  `parquet:"line" json:"line"`
	// Unresolved is true when Target is a stub.
	Unresolved bool `parquet:"unresolved" json:"unresolved"`
	// Sentence describes the edge in words for embedding and citation:
	// "Acme (Company) funds Search (Project) - amount 250000, currency EUR".
	Sentence string `parquet:"sentence,plain" json:"sentence"`
}
