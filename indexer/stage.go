package indexer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/note"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// Stage adds derived files (vectors, a graph database, ...) to a snapshot
// being built. Stages run in order after the tables are written, inside the
// snapshot's temporary directory; an error aborts the run and publishes
// nothing.
type Stage interface {
	Name() string
	Run(ctx context.Context, b *Build) error
}

// Pender is implemented by stages that can have work left over from the
// previous snapshot. A run on an unchanged vault still builds a snapshot
// when a stage has pending work, and publishes it unless that work was
// only a retry that made no progress (see Pending).
type Pender interface {
	// Pending reports what the stage has left to do on parent. It must not
	// block: it reads parent's manifest, it does not ask a server.
	Pending(parent *snapshot.Snapshot) Pending
}

// Pending is what a stage has left to do on a parent snapshot.
type Pending int

const (
	// PendingNone: the parent holds everything the stage would build.
	PendingNone Pending = iota
	// PendingRetry: only work that failed in an earlier run is left (texts
	// the model server could not embed). A run that exists only for such
	// work publishes nothing when every stage that had some reports
	// Build.Stalled: its snapshot would be its parent again.
	PendingRetry
	// PendingRebuild: the stage's files must be built again (missing, of
	// another layout or version, other parameters, another model); the run
	// publishes.
	PendingRebuild
)

func (p Pending) String() string {
	switch p {
	case PendingNone:
		return "none"
	case PendingRetry:
		return "retry"
	case PendingRebuild:
		return "rebuild"
	}
	return fmt.Sprintf("Pending(%d)", int(p))
}

// Build is what a stage sees of the snapshot being built. The tables are
// already written to Dir; stages must not modify the row slices. A Build is
// used by one run. Its stages may run at the same time (publish runs them
// concurrently when no progress line is drawn): each writes only its own
// files and its own sections of Manifest, and reads no other stage's;
// LinkParent and Stalled are safe for concurrent use.
type Build struct {
	// Dir is the snapshot's temporary directory.
	Dir string
	// Parent is the snapshot this one is built from, nil on a first run.
	Parent *snapshot.Snapshot
	Notes  []format.Note
	Edges  []format.Edge
	Chunks []format.Chunk
	// CodeFiles, Symbols, CodeEdges and CodeChunks are the code half (format/code.go),
	// empty when no repository was indexed and no note links to code.
	CodeFiles  []format.CodeFile
	Symbols    []format.Symbol
	CodeEdges  []format.Edge
	CodeChunks []format.CodeChunk
	// Manifest is published after the last stage; stages record what they
	// built in it. Files is filled in by the publish step.
	Manifest *format.Manifest
	Log      *slog.Logger
	// Progress receives a progress line redrawn in place while a slow step
	// runs (Options.Progress); nil leaves only the log's lines.
	Progress io.Writer
	// Retry names the stages whose retry work (PendingRetry) is the only
	// reason for this run: the vault, the problems found walking it and the
	// options are as the parent recorded, and no stage has to rebuild.
	// Empty on every other run.
	Retry []string

	mu      sync.Mutex // guards stalled and w's links
	stalled []Stall
	w       *snapshot.Writer // nil in tests that build a Build by hand
	noLinks bool             // a --full run: LinkParent links nothing
	// parentChunks are Parent's chunk ids and notes in its table's order,
	// when the run decoded them already (nil otherwise): the BM25 stage
	// need not read them again.
	parentChunks []parentChunk
	// unread are the notes the stat cache let the run leave unread: their
	// Content and their chunks' Text are empty. The stages of this package
	// need them only when they cannot reuse the parent's work; they then
	// call needText, and fail with unreadNeeded, and the run starts again
	// reading every note (statcache.go).
	unread     map[string]bool
	unreadUsed atomic.Bool

	noteIndexOnce sync.Once
	noteIndex     map[string]int // Notes by id, for ChunkContext
}

// needText records that a stage needs the text of note id's chunks.
func (b *Build) needText(id string) {
	if b.unread[id] {
		b.unreadUsed.Store(true)
	}
}

// unreadNeeded fails with errReadEveryNote when a stage needed a text
// left unread.
func (b *Build) unreadNeeded() error {
	if b.unreadUsed.Load() {
		return fmt.Errorf("%w: a stage needs the text of unchanged notes", errReadEveryNote)
	}
	return nil
}

// ChunkContext returns the context of Chunks[i] (format.Chunk.Context):
// the parser's for a chunk of a note parsed in this run, else computed
// from its note's row and its heading, as the parser computes it. A chunk
// reused from the parent has none, since the tables do not hold it, and
// most are never needed: BM25 and the embedder read it only for the
// chunks they index anew (the 10,000-note vault's contexts took 25-35 ms
// to compute, a one-note edit needs a few). Safe for concurrent use.
func (b *Build) ChunkContext(i int) string {
	c := &b.Chunks[i]
	if c.Context != "" {
		return c.Context // a parsed note's: never empty, it names the note
	}
	b.noteIndexOnce.Do(func() {
		b.noteIndex = make(map[string]int, len(b.Notes))
		for k := range b.Notes {
			b.noteIndex[b.Notes[k].ID] = k
		}
	})
	k, ok := b.noteIndex[c.Note]
	if !ok {
		return ""
	}
	return note.ChunkContext(note.NoteContext(&b.Notes[k]), c.Heading)
}

// LinkParent makes the parent's file name a file of this snapshot without
// copying it (snapshot.Writer.Link): for a stage whose output would be
// byte for byte the parent's. It reports false, having written nothing,
// when there is no parent, on a --full run, when the parent's file does
// not match the parent's manifest (it warns naming it) or when the file
// system cannot link; the stage then writes the file.
func (b *Build) LinkParent(name string) (bool, error) {
	if b.Parent == nil || b.w == nil || b.noLinks {
		return false, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ok, err := b.w.Link(b.Parent, name)
	if damaged := (*snapshot.DamagedError)(nil); errors.As(err, &damaged) {
		b.Log.Warn("not linking a damaged file of the parent snapshot; writing it afresh",
			"snapshot", damaged.Snapshot, "file", damaged.File, "reason", damaged.Reason)
		return false, nil
	}
	return ok, err
}

// SealEarly starts hashing and fsyncing the named files of Dir in the
// background (snapshot.Writer.SealEarly), while the other stages still
// run: a stage calls it for its own files once they are complete and
// will not be written again. It is safe for concurrent use.
func (b *Build) SealEarly(names ...string) {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.w.SealEarly(names...)
}

// Stall is pending work that a stage retried without getting any of it
// done.
type Stall struct {
	Stage string
	// Pending counts what is still left, in the stage's unit (the embed
	// stage: chunks and edges without a vector).
	Pending int
	// Reason says why, in the words of the failure (the embedder's error).
	Reason string
}

func (s Stall) String() string {
	return fmt.Sprintf("%s: %d still pending (%s)", s.Stage, s.Pending, s.Reason)
}

// Retrying reports whether stage is in Retry: whether the snapshot exists
// only if that stage (or another in Retry) makes progress.
func (b *Build) Retrying(stage string) bool { return slices.Contains(b.Retry, stage) }

// Stalled records that a stage retried its pending work and got none of it
// done. Stages report it whether or not they are in Retry; it only matters
// when they are.
func (b *Build) Stalled(s Stall) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stalled = append(b.stalled, s)
}

// void returns the stalls when the build would republish its parent: the
// run exists only to retry pending work and every stage that had some has
// stalled. The remaining stages need not run.
func (b *Build) void() []Stall {
	if len(b.Retry) == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, name := range b.Retry {
		if !slices.ContainsFunc(b.stalled, func(s Stall) bool { return s.Stage == name }) {
			return nil
		}
	}
	return b.stalled
}

// errVoid is returned by publish for a void build (Build.void); Run turns
// it into an Unchanged result.
type errVoid struct{ stalls []Stall }

func (e *errVoid) Error() string {
	parts := make([]string, len(e.stalls))
	for i, s := range e.stalls {
		parts[i] = s.String()
	}
	return "no progress on pending work: " + strings.Join(parts, "; ")
}
