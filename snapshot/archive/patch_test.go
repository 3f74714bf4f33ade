package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// publishFiles publishes a snapshot holding files (name -> bytes) after
// parent ("" for none).
func publishFiles(t *testing.T, dataDir, parent string, files map[string][]byte) *snapshot.Snapshot {
	t.Helper()
	w, err := snapshot.Create(dataDir, format.NewSnapshotID(time.Now(), parent))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(w.Dir(), name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := w.Publish(&format.Manifest{Created: time.Now().UTC(), Parent: parent})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(dir, snapshot.OpenOptions{VerifyChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func seededBytes(seed int64, n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

// TestDeltaPatchesChangedFiles: a file that differs from the base's by an
// insertion and a rewritten run travels as a patch a small share of its
// size; the import onto the base is the snapshot a full archive gives.
// A file unlike the base's (a patch would save nothing) travels whole.
func TestDeltaPatchesChangedFiles(t *testing.T) {
	src := t.TempDir()
	old := seededBytes(1, 600<<10)
	edited := append(append(append([]byte(nil), old[:200<<10]...), []byte("an insertion that shifts every byte after it")...), old[200<<10:]...)
	copy(edited[400<<10:], seededBytes(2, 3000))
	parent := publishFiles(t, src, "", map[string][]byte{"big": old, "other": seededBytes(3, 50<<10)})
	child := publishFiles(t, src, parent.ID, map[string][]byte{"big": edited, "other": seededBytes(4, 50<<10)})

	var buf bytes.Buffer
	res, err := Export(context.Background(), &buf, child.Dir, ExportOptions{Base: parent.Dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Patched != 1 || res.PatchBytes > 100<<10 {
		t.Fatalf("export: %+v; want big as a patch of at most 100 KiB, other whole", res)
	}
	if buf.Len() > 160<<10 {
		t.Errorf("the delta is %d bytes for a 600 KiB file changed in two places and a new 50 KiB one", buf.Len())
	}
	t.Logf("delta %d bytes (patch %d) for files of %d bytes", buf.Len(), res.PatchBytes, res.Bytes)

	data := t.TempDir()
	if _, err := Import(context.Background(), bytes.NewReader(buf.Bytes()), data, ImportOptions{}); !errors.Is(err, ErrMissingBase) {
		t.Fatalf("a patched delta without its base: err = %v, want ErrMissingBase", err)
	}
	if _, err := Import(context.Background(), bytes.NewReader(export(t, parent, None)), data, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := Import(context.Background(), bytes.NewReader(buf.Bytes()), data, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, problems, err := snapshot.Verify(got.Dir); err != nil || len(problems) > 0 {
		t.Fatalf("the patched import does not verify: %v %v", err, problems)
	}
	if b, _ := os.ReadFile(filepath.Join(got.Dir, "big")); !bytes.Equal(b, edited) {
		t.Fatal("the patched file differs from the exported one")
	}
	if again, err := Import(context.Background(), bytes.NewReader(buf.Bytes()), data, ImportOptions{}); err != nil || !again.Present {
		t.Errorf("the patched delta again: %+v, %v; want Present", again, err)
	}

	// A patch of a base whose file is another one: refused, nothing
	// imported.
	stranger := t.TempDir()
	p2 := publishFiles(t, stranger, "", map[string][]byte{"big": seededBytes(9, 600<<10), "other": seededBytes(3, 50<<10)})
	entries := entriesOfArchive(t, buf.Bytes())
	entries[0].pax[paxBase] = p2.ID
	if _, err := Import(context.Background(), bytes.NewReader(makeTar(entries)), stranger, ImportOptions{}); !errors.Is(err, ErrMissingBase) {
		t.Errorf("a patch of a file the base does not have: err = %v, want ErrMissingBase", err)
	}
	if list, _ := snapshot.List(stranger); len(list) != 1 {
		t.Errorf("a refused delta left %d snapshots", len(list)-1)
	}
}

// entriesOfArchive reads a plain tar archive's entries with their PAX
// records.
func entriesOfArchive(t *testing.T, b []byte) []tarEntry {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(b))
	var out []tarEntry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		pax := map[string]string{}
		for k, v := range hdr.PAXRecords {
			if strings.HasPrefix(k, "VAULTGRAPH.") {
				pax[k] = v
			}
		}
		out = append(out, tarEntry{name: hdr.Name, body: body, pax: pax})
	}
}
