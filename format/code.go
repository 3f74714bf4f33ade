package format

import (
	"strings"
	"unicode"
)

// Code beside the notes: a snapshot may hold the files tracked in git
// repositories indexed with the vault (vaultgraph index --repo NAME=PATH).
// Snapshots without repositories have none of these files.
//
// code_files.parquet (CodeFile) has one row per tracked file read,
// symbols.parquet (Symbol) one per function, method, class or type found in
// them, and code_edges.parquet holds every edge that touches code, as Edge
// rows: contains (file -> symbol), imports (file -> file), calls (symbol ->
// symbol), tests (test file -> file it tests), co_edits (file -> file,
// Count = the commits that changed both) and the typed edges notes write
// to code (documents:: [[code:api/app/cron.py]]), whose type is as written.
// edges.parquet keeps only edges between notes, so readers of the vault
// half never meet an id that is not a note.
//
// In the graph database code files and symbols are rows of the note table
// with the label CodeFile or Symbol (see CodeNodes in package graphdb), and
// code edges are relationships like any other, so one query spans both:
// MATCH (n)-[:documents]->(f:CodeFile)<-[:imports]-(g:CodeFile).
const (
	CodeFilesFile = "code_files.parquet"
	SymbolsFile   = "symbols.parquet"
	CodeEdgesFile = "code_edges.parquet"
)

// CodePrefix starts every code id and every link target naming code.
const CodePrefix = "code:"

// Labels of code nodes in the graph.
const (
	LabelCodeFile = "CodeFile"
	LabelSymbol   = "Symbol"
)

// Edge types of the code graph.
const (
	TypeContains = "contains"
	TypeImports  = "imports"
	TypeCalls    = "calls"
	TypeTests    = "tests"
	TypeCoEdits  = "co_edits"
)

// Edge origins of code edges the indexer derives (typed edges from notes
// keep their note origins).
const (
	OriginCode       = "code"       // read from the source (contains, imports, calls)
	OriginConvention = "convention" // tests by name and import
	OriginHistory    = "history"    // co_edits from commits
)

// CodeFile is one row of code_files.parquet: a file tracked by git in a
// repository indexed with the vault.
type CodeFile struct {
	// ID is CodeFileID(Repo, Path).
	ID   string `parquet:"id,plain" json:"id"`
	Repo string `parquet:"repo,plain" json:"repo"`
	// Path is the repository path, slash-separated.
	Path string `parquet:"path,plain" json:"path"`
	// Language is go, python, typescript, tsx, javascript, or "" for a file
	// read without symbols.
	Language string `parquet:"language,dict" json:"language"`
	Lines    int32  `parquet:"lines" json:"lines"`
	Size     int64  `parquet:"size" json:"size"`
	// Blob is the git blob hash (hex) of the working tree's content; a file
	// with the same blob as in the parent snapshot reuses its rows.
	Blob string `parquet:"blob,plain" json:"blob"`
	// Imports are the import specifiers as written (see package
	// indexer/code), kept so that imports are resolved again on every run.
	Imports []string `parquet:"imports,list,plain" json:"imports"`
	// Package is the Go package name, "" otherwise.
	Package string `parquet:"package,plain" json:"package,omitempty"`
	// Test is set for a test file by its language's convention.
	Test bool `parquet:"test" json:"test"`
	// Build is a Go file's //go:build expression ("linux && !appengine"),
	// "" for none.
	Build string `parquet:"build,optional,plain" json:"build,omitempty"`
}

// Symbol is one row of symbols.parquet: a function, method, class or type
// defined in a code file.
type Symbol struct {
	// ID is SymbolID(File, Name).
	ID   string `parquet:"id,plain" json:"id"`
	File string `parquet:"file,plain" json:"file"`
	// Name is the symbol's name; methods are Type.Method.
	Name    string `parquet:"name,plain" json:"name"`
	Kind    string `parquet:"kind,dict" json:"kind"`
	Line    int32  `parquet:"line" json:"line"`
	EndLine int32  `parquet:"end_line" json:"end_line"`
	// Calls are the names the body calls (last part only; "." before a
	// name called as a member, x.f()), resolved to calls edges by name
	// within the repository.
	Calls []string `parquet:"calls,list,plain" json:"calls"`
}

// Repo is the manifest's record of one repository indexed with the vault.
type Repo struct {
	Name string `json:"name"`
	// Root is the working tree's absolute path.
	Root string `json:"root"`
	// Head is the commit HEAD named when the files were read.
	Head    string   `json:"head"`
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	Files   int      `json:"files"`
	Symbols int      `json:"symbols"`
	// Digest is the sha256 of every tracked file's path and blob hash and
	// the code reader's revision: equal digests mean the same rows.
	Digest string `json:"digest"`
	// Reader is the revision of the code reader that read the files.
	Reader int `json:"reader"`
	// Skipped counts tracked files not read (too large, symlinks,
	// submodules).
	Skipped int `json:"skipped,omitempty"`
}

// CodeFileID is the id of a repository's file: code:NAME/path.
func CodeFileID(repo, path string) string { return CodePrefix + repo + "/" + path }

// SymbolID is the id of a symbol of a file: code:NAME/path#Name.
func SymbolID(fileID, name string) string { return fileID + "#" + name }

// IsCodeID reports whether id (or a link target) names code.
func IsCodeID(id string) bool { return strings.HasPrefix(id, CodePrefix) }

// SplitCodeID splits code:NAME/path#Symbol into its parts; ok is false
// when id is not of that form (no repository name or no path).
func SplitCodeID(id string) (repo, path, symbol string, ok bool) {
	rest, found := strings.CutPrefix(id, CodePrefix)
	if !found {
		return "", "", "", false
	}
	rest, symbol, _ = strings.Cut(rest, "#")
	repo, path, found = strings.Cut(rest, "/")
	if !found || repo == "" || path == "" {
		return "", "", "", false
	}
	return repo, path, symbol, true
}

// CodeChunksFile holds the passages of code that the lexical index of code
// is built from.
const CodeChunksFile = "code_chunks.parquet"

// CodeChunk is one row of code_chunks.parquet: the source of one symbol
// (cut at MaxCodeChunkBytes), or a file's head (its path, the lines before
// its first symbol and the names of its symbols), for lexical search over
// code. Readers split identifiers (fetchEpisode, generate_daily) into words.
type CodeChunk struct {
	// ID is the symbol's id, or the file's id for its head.
	ID   string `parquet:"id,plain" json:"id"`
	File string `parquet:"file,plain" json:"file"`
	Line int32  `parquet:"line" json:"line"`
	Text string `parquet:"text,plain" json:"text"`
}

// MaxCodeChunkBytes bounds a code chunk's text.
const MaxCodeChunkBytes = 4000

// CodeEmbedText is the text a code chunk is embedded as: its file's path
// and the chunk's text with every identifier split into its words
// (fetchEpisode, generate_daily and HTTPServer become "fetch Episode",
// "generate daily" and "HTTP Server"), so that an embedder of natural
// language reads the words code is named with. A code chunk's vector is
// the row of vectors-code.f32 whose hash is TextHash(CodeEmbedText(c)).
func CodeEmbedText(c CodeChunk) string {
	var b strings.Builder
	_, p, sym, _ := SplitCodeID(c.ID)
	b.WriteString(SplitIdentifiers(strings.NewReplacer("/", " ", ".", " ").Replace(p)))
	if sym != "" {
		b.WriteString(": ")
		b.WriteString(SplitIdentifiers(strings.ReplaceAll(sym, ".", " ")))
	}
	b.WriteString("\n\n")
	b.WriteString(SplitIdentifiers(c.Text))
	return b.String()
}

// SplitIdentifiers returns s with every identifier cut into its words:
// at underscores, at lower-to-upper changes, before the last capital of a
// run of capitals followed by a lower-case letter, and between letters and
// digits. Everything else is kept as it is.
func SplitIdentifiers(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	rs := []rune(s)
	for i, r := range rs {
		if r == '_' {
			b.WriteByte(' ')
			continue
		}
		if i > 0 {
			prev := rs[i-1]
			split := unicode.IsLower(prev) && unicode.IsUpper(r) ||
				unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) ||
				unicode.IsLetter(prev) && unicode.IsDigit(r)
			if split {
				b.WriteByte(' ')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}
