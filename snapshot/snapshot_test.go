package snapshot

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
)

// publish writes a small snapshot with one table and an extra file.
func publish(t *testing.T, dataDir string, after string) *Snapshot {
	t.Helper()
	id := format.NewSnapshotID(time.Now(), after)
	w, err := Create(dataDir, id)
	if err != nil {
		t.Fatal(err)
	}
	notes := []format.Note{{ID: "a.md", Path: "a.md", Title: "a", Labels: []string{"Person"}, Content: "hello"}}
	if err := WriteTable(filepath.Join(w.Dir(), format.NotesFile), notes); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.Dir(), "graph"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Dir(), "graph", "db"), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := w.Publish(&format.Manifest{Parent: after, Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, OpenOptions{VerifyChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPublishOpenRead(t *testing.T) {
	data := t.TempDir()
	s := publish(t, data, "")
	if _, ok := s.Manifest.Files["graph/db"]; !ok {
		t.Errorf("manifest files = %v, want graph/db covered", s.Manifest.Files)
	}
	notes, err := s.Notes()
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || notes[0].Title != "a" || notes[0].Labels[0] != "Person" {
		t.Errorf("notes = %+v", notes)
	}
	if _, err := os.Stat(filepath.Join(SnapshotsDir(data), format.TempPrefix+s.ID)); !os.IsNotExist(err) {
		t.Errorf("temp dir still present after publish: %v", err)
	}
}

func TestListAndResolveOrder(t *testing.T) {
	data := t.TempDir()
	a := publish(t, data, "")
	b := publish(t, data, a.ID)
	// A leftover temp dir and a manifest-less directory with an id name
	// (an interrupted rsync) are not snapshots.
	os.MkdirAll(filepath.Join(SnapshotsDir(data), format.TempPrefix+format.NewSnapshotID(time.Now(), b.ID)), 0o755)
	os.MkdirAll(Dir(data, format.NewSnapshotID(time.Now(), b.ID)), 0o755)
	entries, err := List(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].ID != a.ID || entries[1].ID != b.ID {
		t.Fatalf("List = %+v, want [%s %s]", entries, a.ID, b.ID)
	}
	for ref, want := range map[string]string{"": b.ID, "latest": b.ID, a.ID: a.ID, a.ID[:20]: a.ID} {
		e, err := Resolve(data, ref)
		if err != nil || e.ID != want {
			t.Errorf("Resolve(%q) = %v, %v; want %s", ref, e.ID, err, want)
		}
	}
	if _, err := Resolve(data, "ZZZZZZZZ"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve(unknown) err = %v", err)
	}
	if _, err := Resolve(t.TempDir(), ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve on empty data dir err = %v", err)
	}
}

// TestCorruptedSnapshot is the corruption table: every way a snapshot can be
// damaged is refused by Open (cheaply when sizes tell, with checksums
// otherwise), reported by Verify, and skipped by Latest in favour of the
// older good snapshot.
func TestCorruptedSnapshot(t *testing.T) {
	tests := []struct {
		name       string
		damage     func(t *testing.T, dir string)
		cheapCatch bool // caught without checksums
	}{
		{"no manifest", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, format.ManifestFile)) }, true},
		{"truncated table", func(t *testing.T, dir string) { os.Truncate(filepath.Join(dir, format.NotesFile), 10) }, true},
		{"missing file", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "graph", "db")) }, true},
		{"flipped byte", func(t *testing.T, dir string) { flipByte(t, filepath.Join(dir, "graph", "db")) }, false},
		{"garbage manifest", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, format.ManifestFile), []byte("{"), 0o644)
		}, true},
		{"future format", func(t *testing.T, dir string) {
			rewriteManifest(t, dir, func(m *format.Manifest) { m.FormatVersion = 99 })
		}, true},
		{"manifest of another snapshot", func(t *testing.T, dir string) {
			rewriteManifest(t, dir, func(m *format.Manifest) { m.ID = format.NewSnapshotID(time.Now(), m.ID) })
		}, true},
		// Edits of the manifest's own bytes after publishing: only its
		// checksum catches them, and without reading any other file.
		{"manifest edited: a count", func(t *testing.T, dir string) {
			editManifest(t, dir, `"notes":0`, `"notes":7`)
		}, true},
		{"manifest edited: a file's sha256", func(t *testing.T, dir string) {
			editManifest(t, dir, `"sha256":"`, `"sha256":"0`)
		}, true},
		{"manifest edited: a space", func(t *testing.T, dir string) {
			editManifest(t, dir, `"id":`, `"id": `)
		}, true},
		{"manifest checksum removed", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, format.ManifestFile))
			i := bytes.LastIndex(b, []byte(`,`))
			b = append(b[:i], []byte("\n}\n")...)
			os.WriteFile(filepath.Join(dir, format.ManifestFile), b, 0o644)
		}, true},
		{"manifest checksum of other bytes", func(t *testing.T, dir string) {
			// Re-encoded by hand with another count, as an editor
			// would, keeping the old checksum text.
			b, _ := os.ReadFile(filepath.Join(dir, format.ManifestFile))
			m, _ := format.DecodeManifest(b)
			old := m.Checksum
			m.Counts.Notes = 9
			out, _ := m.Encode()
			out = bytes.Replace(out, []byte(m.Checksum), []byte(old), 1)
			os.WriteFile(filepath.Join(dir, format.ManifestFile), out, 0o644)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			good := publish(t, data, "")
			bad := publish(t, data, good.ID)
			tc.damage(t, bad.Dir)
			if _, err := Open(bad.Dir, OpenOptions{VerifyChecksums: true}); !errors.Is(err, ErrInvalid) {
				t.Errorf("Open with checksums err = %v, want ErrInvalid", err)
			}
			if _, err := Open(bad.Dir, OpenOptions{VerifyFast: true}); !errors.Is(err, ErrInvalid) {
				t.Errorf("Open with fast checksums err = %v, want ErrInvalid", err)
			}
			_, err := Open(bad.Dir, OpenOptions{})
			if tc.cheapCatch && !errors.Is(err, ErrInvalid) {
				t.Errorf("Open without checksums err = %v, want ErrInvalid", err)
			}
			if _, problems, err := Verify(bad.Dir); err == nil && len(problems) == 0 {
				t.Error("Verify found nothing wrong")
			}
			s, skipped, err := Latest(data, OpenOptions{VerifyChecksums: true})
			if err != nil || s.ID != good.ID {
				t.Fatalf("Latest = %v, %v; want the good snapshot %s", s, err, good.ID)
			}
			if tc.name != "no manifest" && len(skipped) != 1 {
				t.Errorf("skipped = %v, want the bad snapshot reported", skipped)
			}
		})
	}
}

func TestVerifyReportsExtraFiles(t *testing.T) {
	s := publish(t, t.TempDir(), "")
	os.WriteFile(filepath.Join(s.Dir, "stray.txt"), []byte("x"), 0o644)
	_, problems, err := Verify(s.Dir)
	if err != nil || len(problems) != 1 || problems[0].File != "stray.txt" {
		t.Fatalf("Verify = %v, %v", problems, err)
	}
}

func TestRemoveLeftovers(t *testing.T) {
	data := t.TempDir()
	good := publish(t, data, "")
	w, err := Create(data, format.NewSnapshotID(time.Now(), good.ID))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(w.Dir(), "half"), []byte("x"), 0o644)
	removed, err := RemoveLeftovers(data)
	if err != nil || len(removed) != 1 || !strings.HasPrefix(removed[0], format.TempPrefix) {
		t.Fatalf("RemoveLeftovers = %v, %v", removed, err)
	}
	if entries, _ := List(data); len(entries) != 1 {
		t.Errorf("published snapshot touched: %v", entries)
	}
}

func TestLockExcludesSecondHolder(t *testing.T) {
	data := t.TempDir()
	release, err := Lock(context.Background(), data, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(context.Background(), data, 200*time.Millisecond)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second Lock err = %v, want ErrLocked naming the holder", err)
	}
	// A waiting second holder gets the lock once the first lets go.
	// The delay only makes the second Lock likely to wait; it passes
	// whichever comes first, and the minute only ends a broken test.
	go func() { time.Sleep(100 * time.Millisecond); release() }()
	release2, err := Lock(context.Background(), data, time.Minute)
	if err != nil {
		t.Fatalf("waiting Lock: %v", err)
	}
	release2()
}

func flipByte(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func rewriteManifest(t *testing.T, dir string, edit func(*format.Manifest)) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, format.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := format.DecodeManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, _ := m.Encode()
	if err := os.WriteFile(filepath.Join(dir, format.ManifestFile), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLease(t *testing.T) {
	data := t.TempDir()
	s := publish(t, data, "")
	if used, err := InUse(data, s.ID); err != nil || used {
		t.Fatalf("InUse before any lease = %v, %v", used, err)
	}
	r1, err := AcquireLease(data, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := AcquireLease(data, s.ID) // a second server shares it
	if err != nil {
		t.Fatal(err)
	}
	if used, _ := InUse(data, s.ID); !used {
		t.Fatal("InUse = false while leased")
	}
	r1()
	if used, _ := InUse(data, s.ID); !used {
		t.Fatal("InUse = false while the second lease is held")
	}
	r2()
	if used, _ := InUse(data, s.ID); used {
		t.Fatal("InUse = true after every lease was released")
	}
}

// editManifest replaces the first old in dir's manifest.json with new,
// as a hand edit would, failing the test when old is not there.
func editManifest(t *testing.T, dir, old, new string) {
	t.Helper()
	p := filepath.Join(dir, format.ManifestFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("manifest has no %q:\n%s", old, b)
	}
	if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFiles: checking some files of a snapshot finds damage in those
// and only those, in every mode, and refuses a name the manifest lacks.
func TestCheckFiles(t *testing.T) {
	s := publish(t, t.TempDir(), "")
	flipByte(t, filepath.Join(s.Dir, "graph", "db"))
	for _, opts := range []OpenOptions{{VerifyFast: true}, {VerifyChecksums: true}} {
		if err := s.CheckFiles(opts, format.NotesFile); err != nil {
			t.Errorf("%+v: intact %s: %v", opts, format.NotesFile, err)
		}
		err := s.CheckFiles(opts, format.NotesFile, "graph/db")
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "graph/db") {
			t.Errorf("%+v: flipped graph/db: %v, want ErrInvalid naming it", opts, err)
		}
	}
	if err := s.CheckFiles(OpenOptions{}, "graph/db"); err != nil {
		t.Errorf("sizes only: a flipped byte keeps the size: %v", err)
	}
	if err := s.CheckFiles(OpenOptions{}, "nope.parquet"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "nope.parquet") {
		t.Errorf("a file the manifest lacks: %v", err)
	}
}
