package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// copyInto stages the files of published snapshot s in a new Writer of
// dataDir, as an import would, and returns the writer and the manifest.
func copyInto(t *testing.T, s *Snapshot, dataDir string) (*Writer, []byte) {
	t.Helper()
	w, err := Create(dataDir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(w.Dir(), os.DirFS(s.Dir)); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(w.Dir(), format.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(w.Dir(), format.ManifestFile))
	return w, raw
}

func TestPublishCopy(t *testing.T) {
	src := publish(t, t.TempDir(), "")
	data := t.TempDir()
	w, raw := copyInto(t, src, data)
	dir, err := w.PublishCopy(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, format.ManifestFile)); string(got) != string(raw) {
		t.Error("the manifest was not published byte for byte")
	}
	if _, problems, err := Verify(dir); err != nil || len(problems) > 0 {
		t.Errorf("copy does not verify: %v %v", err, problems)
	}
	w2, raw2 := copyInto(t, src, t.TempDir())
	w2.dataDir = data
	if _, err := w2.PublishCopy(raw2); !errors.Is(err, ErrExists) {
		t.Errorf("publishing an id twice: %v, want ErrExists", err)
	}
}

func TestPublishCopyRefusesMismatches(t *testing.T) {
	src := publish(t, t.TempDir(), "")
	cases := map[string]struct {
		damage func(dir string, raw []byte) []byte
		want   string
	}{
		"altered file": {func(dir string, raw []byte) []byte {
			os.WriteFile(filepath.Join(dir, "graph", "db"), []byte("9123456789"), 0o644)
			return raw
		}, "graph/db: sha256 mismatch"},
		"missing file": {func(dir string, raw []byte) []byte { os.Remove(filepath.Join(dir, "graph", "db")); return raw }, "graph/db: missing"},
		"extra file": {func(dir string, raw []byte) []byte {
			os.WriteFile(filepath.Join(dir, "extra"), nil, 0o644)
			return raw
		}, "extra: not in manifest"},
		"another id": {func(dir string, raw []byte) []byte {
			return []byte(strings.Replace(string(raw), src.ID, format.NewSnapshotID(time.Now(), src.ID), 1))
		}, "the manifest is that of snapshot"},
		"unknown version": {func(dir string, raw []byte) []byte {
			return []byte(strings.Replace(string(raw), fmt.Sprintf(`"format_version":%d`, format.Version), `"format_version": 9`, 1))
		}, "unknown snapshot format version 9"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			data := t.TempDir()
			w, raw := copyInto(t, src, data)
			if _, err := w.PublishCopy(tc.damage(w.Dir(), raw)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("PublishCopy = %v, want %q", err, tc.want)
			}
			if entries, _ := List(data); len(entries) != 0 {
				t.Errorf("published %v", entries)
			}
			w.Abort()
		})
	}
}
