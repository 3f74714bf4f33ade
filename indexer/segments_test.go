package indexer

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// TestAnEditWritesOnlyItsSegments: a vault of more notes than a segment
// holds gets its tables in several segments, read back in the tables'
// order; an edit writes only the segments holding the edited note's rows
// and hard-links every other one from the parent, and a full build of the
// edited vault has the same segments, key for key.
func TestAnEditWritesOnlyItsSegments(t *testing.T) {
	vault := t.TempDir()
	if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 1200, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	first := openSnap(t, run(t, vault, data).Dir)
	segs := first.Manifest.Tables[format.NotesTable]
	if len(segs) < 2 {
		t.Fatalf("1,200 notes in %d segments", len(segs))
	}
	notes, err := first.Notes()
	must(t, err)
	rows := 0
	for _, s := range segs {
		rows += s.Rows
	}
	if rows != len(notes) {
		t.Fatalf("segments list %d rows, the table has %d", rows, len(notes))
	}
	// The table reads in its own order: notes by path, then stubs by id.
	split := slices.IndexFunc(notes, func(n format.Note) bool { return n.Stub })
	if split < 0 {
		split = len(notes)
	}
	if !slices.IsSortedFunc(notes[:split], func(a, b format.Note) int { return strings.Compare(a.ID, b.ID) }) ||
		slices.ContainsFunc(notes[split:], func(n format.Note) bool { return !n.Stub }) {
		t.Fatal("the segments read back out of the table's order")
	}

	edited, err := vaultgen.Edit(vault, 7, 1)
	if err != nil || len(edited) != 1 {
		t.Fatalf("edit: %v %v", edited, err)
	}
	second := openSnap(t, run(t, vault, data).Dir)
	seg := segmentOf(t, second, edited[0])
	for _, table := range format.SegmentedTables {
		for i, s := range second.Manifest.Tables[table] {
			linked := sameFile(t, filepath.Join(second.Dir, s.File), first, s.Key, table)
			if i != seg && !linked {
				t.Errorf("%s: written again, though it holds no row of %s", s.File, edited[0])
			}
		}
	}
	for _, table := range []string{format.NotesTable, format.ChunksTable} {
		s := second.Manifest.Tables[table][seg]
		if sameFile(t, filepath.Join(second.Dir, s.File), first, s.Key, table) {
			t.Errorf("%s, which holds the edited note, is the parent's", s.File)
		}
	}

	full := openSnap(t, run(t, vault, t.TempDir(), func(o *Options) { o.Full = true }).Dir)
	assertSameTables(t, second, full)
	for _, table := range format.SegmentedTables {
		a, b := second.Manifest.Tables[table], full.Manifest.Tables[table]
		if !slices.Equal(a, b) {
			t.Errorf("%s: the edit's segments differ from a full build's:\n%v\n%v", table, a, b)
		}
	}
}

// segmentOf returns the index of the notes segment holding the note id.
func segmentOf(t *testing.T, s *snapshot.Snapshot, id string) int {
	t.Helper()
	notes, err := s.Notes()
	must(t, err)
	i := slices.IndexFunc(notes, func(n format.Note) bool { return n.ID == id })
	for k, seg := range s.Manifest.Tables[format.NotesTable] {
		if i < seg.Rows {
			return k
		}
		i -= seg.Rows
	}
	t.Fatalf("%s is in no segment", id)
	return -1
}

// sameFile reports whether path is a hard link of the parent's segment of
// table with the key.
func sameFile(t *testing.T, path string, parent *snapshot.Snapshot, key, table string) bool {
	t.Helper()
	a, err := os.Stat(path)
	must(t, err)
	for _, s := range parent.Manifest.Tables[table] {
		if s.Key != key {
			continue
		}
		b, err := os.Stat(filepath.Join(parent.Dir, s.File))
		must(t, err)
		return os.SameFile(a, b)
	}
	return false
}

// TestSegmentKeysTakenFromTheParent: a segment whose notes are the
// parent's, row for row, takes the parent's keys for its notes, links and
// chunks instead of hashing them (parentOf). After every kind of change
// (a note touched, so only its modification time differs; text appended;
// a note renamed, which shifts the cuts and what links resolve to; a note
// added that links to a new stub; a note removed) every segment of the
// update has the key a full build of the same vault gives it, and the
// rows are the full build's.
func TestSegmentKeysTakenFromTheParent(t *testing.T) {
	vault := t.TempDir()
	if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 1200, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	var paths []string
	must(t, filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			paths = append(paths, p)
		}
		return err
	}))
	slices.Sort(paths)
	data := t.TempDir()
	run(t, vault, data)
	later := time.Now().Add(time.Hour)
	steps := []struct {
		name   string
		change func()
	}{
		// A note only touched publishes nothing: one is touched as
		// another, far from it, is appended to.
		{"touched and appended", func() {
			must(t, os.Chtimes(paths[10], later, later))
			f, err := os.OpenFile(paths[600], os.O_APPEND|os.O_WRONLY, 0)
			must(t, err)
			_, err = f.WriteString("\nOne more sentence.\n")
			must(t, errors.Join(err, f.Close()))
		}},
		{"renamed", func() { must(t, os.Rename(paths[300], filepath.Join(filepath.Dir(paths[300]), "Renamed note.md"))) }},
		{"added with a stub", func() {
			must(t, os.WriteFile(filepath.Join(vault, "Added note.md"), []byte("Links to [[A note nobody wrote]] and [[Renamed note]].\n"), 0o644))
		}},
		{"removed", func() { must(t, os.Remove(paths[900])) }},
		// What other notes' edges say of a note they link to: its title
		// and labels are in their sentences.
		{"a linked note's title and labels changed", func() {
			must(t, os.WriteFile(paths[1], []byte("---\ntype: [Person, Changed]\ntitle: A new title\n---\nLinks to [[Renamed note]].\n"), 0o644))
		}},
		{"a stub's note written", func() {
			must(t, os.WriteFile(filepath.Join(vault, "A note nobody wrote.md"), []byte("Now somebody did.\n"), 0o644))
		}},
		{"and removed again", func() { must(t, os.Remove(filepath.Join(vault, "A note nobody wrote.md"))) }},
	}
	for _, step := range steps {
		step.change()
		res := run(t, vault, data)
		if res.Unchanged {
			t.Fatalf("%s: nothing published", step.name)
		}
		update := openSnap(t, res.Dir)
		full := openSnap(t, run(t, vault, t.TempDir(), func(o *Options) { o.Full = true }).Dir)
		assertSameTables(t, update, full)
		for _, table := range format.SegmentedTables {
			a, b := update.Manifest.Tables[table], full.Manifest.Tables[table]
			if !slices.Equal(a, b) {
				t.Errorf("%s: %s: the update's segments differ from a full build's:\n%v\n%v", step.name, table, a, b)

			}
		}
	}
}
