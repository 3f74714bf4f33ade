package indexer

import (
	"io"
	"log/slog"
	"runtime"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/note"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// DefaultMaxNoteBytes is the size above which a file is reported and not
// indexed.
const DefaultMaxNoteBytes = 8 << 20

// Options configure one indexing run.
type Options struct {
	// Vault is the vault's root folder. It is only ever read.
	Vault string
	// Data is the data directory that holds the snapshots. It must not be
	// inside the vault.
	Data string
	// Ignore are glob patterns of vault paths to skip, in addition to
	// dot-folders: "Templates/", "*.excalidraw.md", "Archive/**/old-*.md".
	// A pattern without a slash matches a file or folder name anywhere.
	Ignore []string
	// MaxNoteBytes caps the size of a note (DefaultMaxNoteBytes when 0).
	MaxNoteBytes int64
	// ChunkChars is the target chunk size (format.DefaultChunkChars when 0).
	ChunkChars int
	// Workers bounds parallel reads and parses (GOMAXPROCS when 0).
	Workers int
	// LockWait is how long to wait for another indexer to finish.
	LockWait time.Duration
	// Repos are git repositories indexed beside the vault (their tracked
	// files, symbols, imports, tests and history). They are only ever read.
	Repos []Repo
	// MaxCodeBytes caps the size of a tracked file read
	// (DefaultMaxCodeBytes when 0).
	MaxCodeBytes int64
	// CoEditCommits is how many commits of each repository's history count
	// for co_edits edges (DefaultCoEditCommits when 0).
	CoEditCommits int
	// Full re-parses every note instead of reusing the parent snapshot.
	Full bool
	// NewVault lets a run publish into a data directory whose snapshots
	// were built from another vault that still exists (ErrOtherVault).
	NewVault bool
	// Stages add files to each new snapshot, in order.
	Stages []Stage
	// Opened is the newest snapshot of Data as the caller opened it
	// before the run (to keep the embedder it records), or nil. When it
	// is still the newest once the lock is taken, the run takes it as
	// the parent with its files checked again, instead of reading and
	// decoding its manifest a second time (9 ms at 10,000 notes). Runs
	// after the first (a watch) find it is not the newest any more.
	Opened *snapshot.Snapshot
	// ToolVersion is recorded in the manifest.
	ToolVersion string
	// Log receives progress and warnings (discarded when nil).
	Log *slog.Logger
	// Progress, when not nil (a terminal), receives a line redrawn in
	// place while parsing, the BM25 index and the graph are built, with
	// the rate and an ETA (embed.Meter). Logs get only Log's lines.
	Progress io.Writer
}

func (o Options) withDefaults() Options {
	if o.MaxNoteBytes <= 0 {
		o.MaxNoteBytes = DefaultMaxNoteBytes
	}
	if o.MaxCodeBytes <= 0 {
		o.MaxCodeBytes = DefaultMaxCodeBytes
	}
	if o.CoEditCommits <= 0 {
		o.CoEditCommits = DefaultCoEditCommits
	}
	if o.ChunkChars <= 0 {
		o.ChunkChars = format.DefaultChunkChars
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.ToolVersion == "" {
		o.ToolVersion = "dev"
	}
	return o
}

// manifestOptions are the options that shape the tables; a change makes the
// next run re-parse every note.
func (o Options) manifestOptions() format.Options {
	return format.Options{ChunkChars: o.ChunkChars, MaxNoteBytes: o.MaxNoteBytes, Ignore: o.Ignore, Parser: note.Revision}
}
