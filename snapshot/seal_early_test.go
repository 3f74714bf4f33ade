package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestSealEarly: a file written again after it was sealed early (a broken
// promise, or a name given too soon: longer, or as long with a later
// modification time) and one missing when sealed are sealed again by
// Publish, so the manifest always describes the bytes on disk.
func TestSealEarly(t *testing.T) {
	data := t.TempDir()
	w, err := Create(data, format.NewSnapshotID(time.Now(), ""))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(w.Dir(), name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("kept.bin", "complete")
	write("rewritten.bin", "first")
	w.SealEarly("kept.bin", "rewritten.bin", "later.bin", "absent.bin")
	w.early.wg.Wait()
	write("rewritten.bin", "second, longer")
	write("later.bin", "written after SealEarly")
	// Same size, later modification time.
	kept := filepath.Join(w.Dir(), "kept.bin")
	if err := os.WriteFile(kept, []byte("COMPLETE"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(kept, later, later); err != nil {
		t.Fatal(err)
	}
	write("other.bin", "never named")
	dir, err := w.Publish(&format.Manifest{Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, OpenOptions{VerifyChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"kept.bin": "COMPLETE", "rewritten.bin": "second, longer",
		"later.bin": "written after SealEarly", "other.bin": "never named"} {
		sum := sha256.Sum256([]byte(content))
		if got := s.Manifest.Files[name]; got.SHA256 != hex.EncodeToString(sum[:]) || got.Size != int64(len(content)) {
			t.Errorf("%s: manifest %+v, want the sums of %q", name, got, content)
		}
	}
	if _, ok := s.Manifest.Files["absent.bin"]; ok {
		t.Errorf("absent.bin in the manifest")
	}
}

// TestSealEarlyTakesTheRecord: a file sealed early and unchanged is not
// read again by Publish (its record is the early one).
func TestSealEarlyTakesTheRecord(t *testing.T) {
	data := t.TempDir()
	w, err := Create(data, format.NewSnapshotID(time.Now(), ""))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.Dir(), "a.bin")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.SealEarly("a.bin")
	w.early.wg.Wait()
	// Doctor the record: Publish must take it as it is.
	w.early.files["a.bin"] = earlyFile{info: format.FileInfo{Size: 3, SHA256: "early", XXH64: "early"},
		size: w.early.files["a.bin"].size, modified: w.early.files["a.bin"].modified}
	files, err := sealFiles(w.Dir(), nil, &w.early)
	if err != nil {
		t.Fatal(err)
	}
	if files["a.bin"].SHA256 != "early" {
		t.Errorf("a.bin sealed again: %+v", files["a.bin"])
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
}
