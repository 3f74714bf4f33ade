package archive

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// FuzzImport feeds Import arbitrary bytes. It must never panic, never write
// outside the data directory, and either publish a snapshot that verifies
// or leave no snapshot and no temporary directory behind.
func FuzzImport(f *testing.F) {
	src := publishTiny(f, f.TempDir())
	good := export(f, src, None)
	f.Add(good)
	f.Add(export(f, src, Zstd))
	f.Add(good[:len(good)/3])
	f.Add(makeTar([]tarEntry{{name: src.ID + "/manifest.json", body: []byte(`{"format_version":2,"id":"` + src.ID + `","files":{"../x":{"size":1}}}`)}, {name: src.ID + "/../x", body: []byte("x")}}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, archive []byte) {
		parent := t.TempDir()
		data := filepath.Join(parent, "data")
		_, err := Import(context.Background(), bytes.NewReader(archive), data, ImportOptions{})
		des, _ := os.ReadDir(parent)
		if len(des) > 1 || (len(des) == 1 && des[0].Name() != "data") {
			t.Fatalf("Import wrote outside the data directory: %v", des)
		}
		entries, lerr := snapshot.List(data)
		if lerr != nil {
			t.Fatal(lerr)
		}
		left, _ := os.ReadDir(snapshot.SnapshotsDir(data))
		if err != nil {
			if len(entries) > 0 || len(left) > 0 {
				t.Fatalf("failed import (%v) left %v", err, left)
			}
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, snapshot.ErrInvalid) && !isRefusal(err) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if len(entries) != 1 || len(left) != 1 {
			t.Fatalf("import succeeded but left %v", left)
		}
		if _, problems, err := snapshot.Verify(entries[0].Dir); err != nil || len(problems) > 0 {
			t.Fatalf("imported snapshot does not verify: %v %v", err, problems)
		}
		filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.Type()&os.ModeSymlink != 0 {
				t.Fatalf("import created a symlink %s", p)
			}
			return nil
		})
	})
}

// isRefusal reports errors about the archive that are not corruption: an
// unknown format version, more declared bytes than the disk has free.
func isRefusal(err error) bool {
	return errors.Is(err, format.ErrUnknownVersion) || errors.Is(err, ErrNoSpace)
}

// publishTiny writes a snapshot of two small files, so that fuzz inputs
// stay small enough to mutate and minimize quickly.
func publishTiny(t testing.TB, dataDir string) *snapshot.Snapshot {
	t.Helper()
	w, err := snapshot.Create(dataDir, format.NewSnapshotID(time.Now(), ""))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(w.Dir(), "g"), 0o755)
	os.WriteFile(filepath.Join(w.Dir(), "g", "db"), []byte("0123456789"), 0o644)
	os.WriteFile(filepath.Join(w.Dir(), "a"), []byte("hello"), 0o644)
	dir, err := w.Publish(&format.Manifest{Created: time.Unix(1e9, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
