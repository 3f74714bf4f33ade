// Package code reads source files of a git repository into what a snapshot
// keeps of them: the file's language and line count, its symbols
// (functions, methods, classes, types) with their lines and the names they
// call, and its imports as written. Go is read with the standard library's
// go/parser; Python, TypeScript, TSX and JavaScript with tree-sitter
// (github.com/smacker/go-tree-sitter, one binding for every grammar).
// Other files get a language from their extension, or none, and no symbols.
//
// Parse never fails: a file that does not parse keeps what could be read
// of it (tree-sitter recovers from errors; go/parser returns a partial
// tree), so one bad file never stops a run. Resolving imports to files of
// the repository is done by the caller (see Resolver), which sees every
// file; Split breaks identifiers into words for the lexical index.
//
// Parse is safe for concurrent use: every call makes its own parser.
package code
