package format

// Kinds of warnings. Each names a way the vault's input was bad; the note
// concerned is still indexed as far as it can be, and the rest of the vault
// always is.
const (
	WarnInvalidYAML         = "invalid-yaml"         // frontmatter does not parse; body still indexed
	WarnYAMLAliasBomb       = "yaml-alias-bomb"      // frontmatter expands aliases past the limit
	WarnUnclosedFrontmatter = "unclosed-frontmatter" // the file starts with --- and no later line closes it; read as body, as Obsidian does
	WarnInvalidUTF8         = "invalid-utf8"         // bytes replaced by U+FFFD
	WarnTooLarge            = "too-large"            // file over the size limit; not indexed
	WarnBinary              = "binary"               // file holds NUL bytes; not indexed
	WarnSymlinkLoop         = "symlink-loop"         // a symlink cycle, or a symlink to a folder already in the vault; skipped
	WarnSymlinkOutside      = "symlink-outside"      // a symlink leaving the vault; skipped
	WarnUnreadable          = "unreadable"           // the file could not be read
	WarnEdgeProperties      = "edge-properties"      // a malformed {...} block; edge kept without it
	WarnDuplicateEdgeID     = "duplicate-edge-id"    // two edges pin the same id; the later one gets a derived id
	WarnPathConflict        = "path-conflict"        // two files differ only by case
	WarnInvalidName         = "invalid-name"         // a file or folder name that is not UTF-8; not indexed (its file field has U+FFFD for each run of bad bytes)
	// Code beside the notes (see code.go).
	WarnUnresolvedCodeLink = "unresolved-code-link" // a note's code: target names no tracked file or symbol; the edge is kept
	WarnCodeSkipped        = "code-skipped"         // a tracked file not read (too large, a symlink, a submodule)
)

// Warning records one problem with the vault's input.
type Warning struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// skipKinds are the warnings of a file that was not indexed at all.
var skipKinds = []string{WarnTooLarge, WarnBinary, WarnSymlinkLoop, WarnSymlinkOutside, WarnUnreadable, WarnInvalidName}

// Skipped returns the warning that kept the file at path out of the
// snapshot (too large, binary, unreadable, a symlink skipped), so that a
// reader asking for that note can say why it is missing.
func Skipped(warnings []Warning, path string) (Warning, bool) {
	for _, w := range warnings {
		if w.File == path {
			for _, k := range skipKinds {
				if w.Kind == k {
					return w, true
				}
			}
		}
	}
	return Warning{}, false
}
