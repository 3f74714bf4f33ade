package archive

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// publishChild writes a snapshot after parent in dataDir: parent's files
// with another notes table.
func publishChild(t *testing.T, dataDir string, parent *snapshot.Snapshot) *snapshot.Snapshot {
	t.Helper()
	id := format.NewSnapshotID(time.Now(), parent.ID)
	w, err := snapshot.Create(dataDir, id)
	if err != nil {
		t.Fatal(err)
	}
	notes := []format.Note{{ID: "a.md", Path: "a.md", Title: "a", Content: strings.Repeat("edited ", 500)}}
	if err := snapshot.WriteTable(filepath.Join(w.Dir(), format.NotesFile), notes); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(w.Dir(), "graph"), 0o755)
	for _, name := range []string{"graph/db", "empty"} {
		if ok, err := w.Link(parent, name); !ok || err != nil {
			t.Fatalf("link %s: %v %v", name, ok, err)
		}
	}
	dir, err := w.Publish(&format.Manifest{Created: time.Now().UTC(), Parent: parent.ID})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(dir, snapshot.OpenOptions{VerifyChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDeltaExportImport exports a snapshot as a delta on its parent and
// imports it: refused, naming the base, where the parent is missing;
// after the parent, the same snapshot a full archive gives, verifying in
// full; refused when it carries a file it says the base has.
func TestDeltaExportImport(t *testing.T) {
	src := t.TempDir()
	parent := publish(t, src)
	child := publishChild(t, src, parent)
	var buf bytes.Buffer
	res, err := Export(context.Background(), &buf, child.Dir, ExportOptions{Compression: Zstd, Base: parent.Dir})
	if err != nil {
		t.Fatal(err)
	}
	delta := buf.Bytes()
	full := export(t, child, Zstd)
	var plain bytes.Buffer
	if _, err := Export(context.Background(), &plain, child.Dir, ExportOptions{Base: parent.Dir}); err != nil {
		t.Fatal(err)
	}
	if res.Base != parent.ID || res.Omitted != 2 || res.Files != 2 || res.OmittedBytes != 10000 {
		t.Errorf("delta export: %+v, want the db and the empty file left out", res)
	}
	if n, all := plain.Len(), len(export(t, child, None)); n > all-int(res.OmittedBytes)+2048 {
		t.Errorf("the plain delta is %d bytes, the full archive %d: it does not leave out the %d bytes it says", n, all, res.OmittedBytes)
	}
	if _, err := Export(context.Background(), &buf, child.Dir, ExportOptions{Base: child.Dir}); err == nil {
		t.Error("a delta on the snapshot itself was written")
	}

	data := t.TempDir()
	_, err = Import(context.Background(), bytes.NewReader(delta), data, ImportOptions{})
	if !errors.Is(err, ErrMissingBase) || !strings.Contains(err.Error(), parent.ID) {
		t.Fatalf("delta without its base: err = %v, want ErrMissingBase naming %s", err, parent.ID)
	}
	if entries, _ := snapshot.List(data); len(entries) != 0 {
		t.Fatalf("a refused delta left %d snapshots", len(entries))
	}
	if _, err := Import(context.Background(), bytes.NewReader(export(t, parent, None)), data, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := Import(context.Background(), bytes.NewReader(delta), data, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != child.ID || got.Base != parent.ID || got.Newest != child.ID {
		t.Errorf("delta import: %+v", got)
	}
	// The same as importing the full archive: same manifest, every file
	// verifying.
	other := t.TempDir()
	if _, err := Import(context.Background(), bytes.NewReader(full), other, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{data, other} {
		m, problems, err := snapshot.Verify(snapshot.Dir(d, child.ID))
		if err != nil || len(problems) > 0 || m.ID != child.ID {
			t.Fatalf("%s: imported snapshot does not verify: %v %v", d, err, problems)
		}
	}
	a, _ := os.ReadFile(filepath.Join(snapshot.Dir(data, child.ID), format.ManifestFile))
	b, _ := os.ReadFile(filepath.Join(snapshot.Dir(other, child.ID), format.ManifestFile))
	if !bytes.Equal(a, b) {
		t.Error("the delta's manifest differs from the full archive's")
	}
	if again, err := Import(context.Background(), bytes.NewReader(delta), data, ImportOptions{}); err != nil || !again.Present {
		t.Errorf("the delta again: %+v, %v; want Present", again, err)
	}
	// Removing the parent leaves the imported child whole.
	if err := os.RemoveAll(snapshot.Dir(data, parent.ID)); err != nil {
		t.Fatal(err)
	}
	if _, problems, err := snapshot.Verify(snapshot.Dir(data, child.ID)); err != nil || len(problems) > 0 {
		t.Fatalf("child without its parent: %v %v", err, problems)
	}

	// A delta that also carries a file it says the base has is refused.
	entries := entriesOf(t, child)
	var tampered []tarEntry
	for _, e := range entries {
		if strings.HasSuffix(e.name, "/"+format.NotesFile) || strings.HasSuffix(e.name, "/graph/db") || e.name == entries[0].name {
			tampered = append(tampered, e)
		}
	}
	tampered[0].pax = map[string]string{paxBase: parent.ID, paxOmitted: `["empty","graph/db"]`}
	fresh := t.TempDir()
	if _, err := Import(context.Background(), bytes.NewReader(export(t, parent, None)), fresh, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(context.Background(), bytes.NewReader(makeTar(tampered)), fresh, ImportOptions{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a delta carrying a file of its base: err = %v, want ErrCorrupt", err)
	}
	if entries, _ := snapshot.List(fresh); len(entries) != 1 {
		t.Errorf("a refused delta left %d snapshots", len(entries)-1)
	}
}

// TestDeltaImportRefusesADamagedBase: a delta whose base here has a
// damaged copy of a file the delta leaves out is refused, saying which
// file came from which base and that the base is damaged, and nothing is
// published.
func TestDeltaImportRefusesADamagedBase(t *testing.T) {
	src := t.TempDir()
	parent := publish(t, src)
	child := publishChild(t, src, parent)
	var buf bytes.Buffer
	if _, err := Export(context.Background(), &buf, child.Dir, ExportOptions{Base: parent.Dir}); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if _, err := Import(context.Background(), bytes.NewReader(export(t, parent, None)), data, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(snapshot.Dir(data, parent.ID), "graph", "db")
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("X"), 5000); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Import(context.Background(), bytes.NewReader(buf.Bytes()), data, ImportOptions{})
	if err == nil || !errors.Is(err, snapshot.ErrInvalid) || !strings.Contains(err.Error(), "graph/db") ||
		!strings.Contains(err.Error(), "base snapshot "+parent.ID) || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("delta over a damaged base: err = %v, want the damaged file and base named", err)
	}
	if entries, _ := snapshot.List(data); len(entries) != 1 {
		t.Errorf("a refused delta left %d snapshots", len(entries)-1)
	}
}
