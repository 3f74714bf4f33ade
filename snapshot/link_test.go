package snapshot

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestWriterLink: a child snapshot shares an unchanged file of its parent
// as a hard link, records the parent's checksum for it, verifies, and
// outlives the parent's removal.
func TestWriterLink(t *testing.T) {
	data := t.TempDir()
	parent := publish(t, data, "")
	w, err := Create(data, format.NewSnapshotID(time.Now(), parent.ID))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Link(parent, "graph/db"); err == nil || ok {
		t.Fatalf("linking into a folder the child lacks: ok=%v err=%v, want an error", ok, err)
	}
	if ok, err := w.Link(parent, "no-such-file"); err == nil || ok {
		t.Fatalf("linking a file the parent does not list: ok=%v err=%v, want an error", ok, err)
	}
	ok, err := w.Link(parent, format.NotesFile)
	if err != nil || !ok {
		t.Fatalf("Link = %v, %v", ok, err)
	}
	// A writer cannot write over the link (every writer opens with O_EXCL).
	if err := WriteTable(filepath.Join(w.Dir(), format.NotesFile), []format.Note{{ID: "b.md"}}); err == nil {
		t.Fatal("WriteTable wrote over a linked file")
	}
	dir, err := w.Publish(&format.Manifest{Parent: parent.ID, Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	child, err := Open(dir, OpenOptions{VerifyChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := child.Manifest.Files[format.NotesFile], parent.Manifest.Files[format.NotesFile]; got != want {
		t.Errorf("child records %+v for the linked file, parent %+v", got, want)
	}
	a, _ := os.Stat(filepath.Join(parent.Dir, format.NotesFile))
	b, _ := os.Stat(filepath.Join(child.Dir, format.NotesFile))
	if !os.SameFile(a, b) {
		t.Error("the child's file is a copy, not the parent's")
	}
	if notes, err := child.Notes(); err != nil || len(notes) != 1 || notes[0].Title != "a" {
		t.Errorf("child notes %+v, %v", notes, err)
	}
	if err := os.RemoveAll(parent.Dir); err != nil {
		t.Fatal(err)
	}
	if _, problems, err := Verify(child.Dir); err != nil || len(problems) > 0 {
		t.Errorf("child after the parent's removal: %v %v", problems, err)
	}
}

// TestSealRehashesAReplacedLink: a linked file replaced before publishing
// is hashed, not taken from the parent's record.
func TestSealRehashesAReplacedLink(t *testing.T) {
	data := t.TempDir()
	parent := publish(t, data, "")
	w, err := Create(data, format.NewSnapshotID(time.Now(), parent.ID))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Link(parent, format.NotesFile); err != nil || !ok {
		t.Fatalf("Link = %v, %v", ok, err)
	}
	p := filepath.Join(w.Dir(), format.NotesFile)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(p, []format.Note{{ID: "b.md", Path: "b.md", Title: "b"}}); err != nil {
		t.Fatal(err)
	}
	dir, err := w.Publish(&format.Manifest{Parent: parent.ID, Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	child, err := Open(dir, OpenOptions{VerifyChecksums: true})
	if err != nil {
		t.Fatalf("the replaced file was recorded with the parent's checksum: %v", err)
	}
	if child.Manifest.Files[format.NotesFile] == parent.Manifest.Files[format.NotesFile] {
		t.Error("the replaced file kept the parent's record")
	}
}
