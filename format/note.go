package format

import "time"

// Note is one row of nodes.parquet: a Markdown note of the vault, or a stub
// standing for the target of a link that resolves to no note.
type Note struct {
	// ID is the vault-relative path with forward slashes
	// ("Projects/Search.md"). A stub's id is the link text it was created
	// for ("Missing Idea"), which never ends in .md unless the author wrote
	// it so; stubs and notes never share an id.
	ID string `parquet:"id,plain" json:"id"`
	// Path is the vault-relative path of the file, "" (NULL in the
	// table) for a stub.
	Path   string `parquet:"path,optional,plain" json:"path"`
	Title  string `parquet:"title,plain" json:"title"`
	Folder string `parquet:"folder,plain" json:"folder"`
	// Labels come from frontmatter type (string or list), then types, in
	// the order written and without duplicates.
	Labels  []string `parquet:"labels,list,plain" json:"labels"`
	Tags    []string `parquet:"tags,list,plain" json:"tags"`
	Aliases []string `parquet:"aliases,list,plain" json:"aliases"`
	// Properties are the other frontmatter keys and the inline fields whose
	// value is not a link, in the order written.
	Properties []Property `parquet:"properties,list" json:"properties"`
	Stub       bool       `parquet:"stub" json:"stub"`
	// Signature is the sha256 (hex) of the file's bytes as read. Signature
	// and Modified are absent for a stub: "" and the zero time here, NULL in
	// the table. A stub's Size is 0, the length of its empty Content.
	Signature string    `parquet:"signature,optional,plain" json:"signature"`
	Size      int64     `parquet:"size" json:"size"`
	Modified  time.Time `parquet:"modified,optional,timestamp(millisecond)" json:"modified"`
	// BodyStart is the byte offset in Content where the body begins, after
	// the frontmatter block.
	BodyStart int32 `parquet:"body_start" json:"body_start"`
	// Content is the whole note as read, with invalid UTF-8 replaced by
	// U+FFFD (and a warning recorded). Chunk offsets index into it.
	Content string `parquet:"content,plain" json:"content"`
}
