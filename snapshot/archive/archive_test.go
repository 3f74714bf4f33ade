package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// publish writes a small snapshot into dataDir: a table, a file in a
// subfolder and an empty file.
func publish(t testing.TB, dataDir string) *snapshot.Snapshot {
	t.Helper()
	id := format.NewSnapshotID(time.Now(), "")
	w, err := snapshot.Create(dataDir, id)
	if err != nil {
		t.Fatal(err)
	}
	notes := []format.Note{{ID: "a.md", Path: "a.md", Title: "a", Content: strings.Repeat("hello ", 500)}}
	if err := snapshot.WriteTable(filepath.Join(w.Dir(), format.NotesFile), notes); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(w.Dir(), "graph"), 0o755)
	os.WriteFile(filepath.Join(w.Dir(), "graph", "db"), bytes.Repeat([]byte("0123456789"), 1000), 0o644)
	os.WriteFile(filepath.Join(w.Dir(), "empty"), nil, 0o644)
	dir, err := w.Publish(&format.Manifest{Created: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(dir, snapshot.OpenOptions{VerifyChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func export(t testing.TB, s *snapshot.Snapshot, c Compression) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Export(context.Background(), &buf, s.Dir, ExportOptions{Compression: c}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExportImportRoundTrip(t *testing.T) {
	src := publish(t, t.TempDir())
	for _, c := range []Compression{None, Zstd} {
		t.Run(string(c), func(t *testing.T) {
			archive := export(t, src, c)
			if again := export(t, src, c); !bytes.Equal(archive, again) {
				t.Error("two exports of one snapshot differ")
			}
			data := t.TempDir()
			res, err := Import(context.Background(), bytes.NewReader(archive), data, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.ID != src.ID || res.Newest != src.ID || res.Compression != string(c) || res.Files != len(src.Manifest.Files)+1 {
				t.Errorf("result = %+v", res)
			}
			m, problems, err := snapshot.Verify(snapshot.Dir(data, src.ID))
			if err != nil || len(problems) > 0 {
				t.Fatalf("imported snapshot does not verify: %v %v", err, problems)
			}
			if m.Created != src.Manifest.Created {
				t.Errorf("created %v, want %v", m.Created, src.Manifest.Created)
			}
			a, _ := os.ReadFile(filepath.Join(src.Dir, format.ManifestFile))
			b, _ := os.ReadFile(filepath.Join(res.Dir, format.ManifestFile))
			if !bytes.Equal(a, b) {
				t.Error("the imported manifest is not byte-identical to the exported one")
			}
			// The same archive again is already imported, not an error.
			before := tree(t, data)
			again, err := Import(context.Background(), bytes.NewReader(archive), data, ImportOptions{})
			if err != nil || !again.Present || again.ID != src.ID || again.Files != res.Files || again.Bytes != res.Bytes {
				t.Errorf("second import: %+v, %v; want Present", again, err)
			}
			if after := tree(t, data); !slices.Equal(before, after) {
				t.Errorf("a second import changed the data directory:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestImportAgain imports archives of a snapshot id the data directory
// already holds: the same snapshot is reported Present, after the archive
// is checked to its end; anything else under that id is refused. Nothing
// is written either way.
func TestImportAgain(t *testing.T) {
	src := publish(t, t.TempDir())
	good := export(t, src, Zstd)
	// Another snapshot under the same id: the same files, another manifest.
	other := makeTar(func() []tarEntry {
		e := entriesOf(t, src)
		e[0].body = bytes.Replace(e[0].body, []byte(`"created"`), []byte(`"created" `), 1)
		return e
	}())
	damaged := makeTar(func() []tarEntry {
		e := entriesOf(t, src)
		last := &e[len(e)-1]
		last.body = slices.Clone(last.body)
		last.body[len(last.body)/2] ^= 1
		return e
	}())
	for _, tc := range []struct {
		name    string
		archive []byte
		prepare func(t *testing.T, data string)
		want    error // nil: Present
		msg     string
	}{
		{name: "same snapshot", archive: good},
		{name: "same snapshot, plain tar", archive: export(t, src, None)},
		{name: "same snapshot while an indexer holds the lock", archive: good, prepare: func(t *testing.T, data string) {
			release, err := snapshot.Lock(context.Background(), data, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { release() })
		}},
		{name: "another snapshot with that id", archive: other, want: snapshot.ErrExists, msg: "another snapshot with the same id"},
		{name: "same manifest, damaged file", archive: damaged, want: ErrCorrupt, msg: "sha256 mismatch"},
		{name: "same manifest, truncated", archive: good[:len(good)*2/3], want: ErrCorrupt},
		{name: "a truncated copy of the same snapshot", archive: good, prepare: func(t *testing.T, data string) {
			if err := os.Truncate(filepath.Join(snapshot.Dir(data, src.ID), "graph", "db"), 10); err != nil {
				t.Fatal(err)
			}
		}, want: snapshot.ErrInvalid, msg: "with this manifest, but it does not open"},
		{name: "a directory of that id without a manifest", archive: good, prepare: func(t *testing.T, data string) {
			if err := os.Remove(filepath.Join(snapshot.Dir(data, src.ID), format.ManifestFile)); err != nil {
				t.Fatal(err)
			}
		}, want: snapshot.ErrExists, msg: "does not read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			if _, err := Import(context.Background(), bytes.NewReader(good), data, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			if tc.prepare != nil {
				tc.prepare(t, data)
			}
			before := tree(t, data)
			res, err := Import(context.Background(), bytes.NewReader(tc.archive), data, ImportOptions{})
			switch {
			case tc.want == nil && (err != nil || !res.Present || res.Newest != src.ID):
				t.Errorf("Import = %+v, %v; want Present", res, err)
			case tc.want != nil && (!errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg)):
				t.Errorf("Import = %v, want %v containing %q", err, tc.want, tc.msg)
			}
			if after := tree(t, data); !slices.Equal(before, after) {
				t.Errorf("the data directory changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestTarExtractsToSnapshotDir checks the archive is a plain tar that
// extracts to a directory named by the id.
func TestTarExtractsToSnapshotDir(t *testing.T) {
	src := publish(t, t.TempDir())
	tr := tar.NewReader(bytes.NewReader(export(t, src, None)))
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		if hdr.Mode != 0o644 || hdr.Uid != 0 || hdr.Typeflag != tar.TypeReg {
			t.Errorf("%s: mode %o uid %d type %c", hdr.Name, hdr.Mode, hdr.Uid, hdr.Typeflag)
		}
	}
	want := []string{src.ID + "/manifest.json", src.ID + "/empty", src.ID + "/graph/db", src.ID + "/" + format.NotesFile}
	if !slices.Equal(names, want) {
		t.Errorf("entries = %v, want %v", names, want)
	}
}

// tarEntry is one entry of a hand-made archive.
type tarEntry struct {
	name string
	body []byte
	typ  byte
	pax  map[string]string
}

func makeTar(entries []tarEntry) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Size: int64(len(e.body)), PAXRecords: e.pax}
		if typ != tar.TypeReg {
			hdr.Size = 0
			hdr.Linkname = "/etc/passwd"
		}
		tw.WriteHeader(hdr)
		tw.Write(e.body)
	}
	tw.Close()
	return buf.Bytes()
}

// entriesOf returns the entries of an exported snapshot, to tamper with.
func entriesOf(t *testing.T, s *snapshot.Snapshot) []tarEntry {
	tr := tar.NewReader(bytes.NewReader(export(t, s, None)))
	var out []tarEntry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		body, _ := io.ReadAll(tr)
		out = append(out, tarEntry{name: hdr.Name, body: body})
	}
}

// TestImportRefusesCorruption is the corruption table: every damaged
// archive is refused with the data directory left exactly as it was.
func TestImportRefusesCorruption(t *testing.T) {
	src := publish(t, t.TempDir())
	good := export(t, src, None)
	id := src.ID
	edit := func(f func([]tarEntry) []tarEntry) []byte { return makeTar(f(entriesOf(t, src))) }
	manifest := entriesOf(t, src)[0].body
	cases := []struct {
		name    string
		archive []byte
		want    error
		msg     string
	}{
		{"flipped byte", func() []byte {
			b := slices.Clone(good)
			i := bytes.Index(b, []byte("0123456789"))
			b[i+5] ^= 1
			return b
		}(), ErrCorrupt, "sha256 mismatch"},
		{"truncated in a file", good[:len(good)/2], ErrCorrupt, "truncated"},
		{"truncated at an entry", edit(func(e []tarEntry) []tarEntry { return e[:2] }), ErrCorrupt, "files missing"},
		{"truncated zstd", func() []byte { z := export(t, src, Zstd); return z[:len(z)-10] }(), ErrCorrupt, ""},
		{"empty", nil, ErrCorrupt, ""},
		{"not a tar", []byte("hello, this is not an archive at all, not even close, really not"), ErrCorrupt, ""},
		{"unknown format version", edit(func(e []tarEntry) []tarEntry {
			e[0].body = bytes.Replace(e[0].body, fmt.Appendf(nil, `"format_version":%d`, format.Version), []byte(`"format_version": 99`), 1)
			return e
		}), format.ErrUnknownVersion, "format version 99"},
		{"manifest not first", edit(func(e []tarEntry) []tarEntry { e[0], e[1] = e[1], e[0]; return e }), ErrCorrupt, "first file"},
		{"extra file", edit(func(e []tarEntry) []tarEntry {
			return append(e, tarEntry{name: id + "/evil", body: []byte("x")})
		}), ErrCorrupt, "not in the manifest"},
		{"duplicate file", edit(func(e []tarEntry) []tarEntry { return append(e, e[2]) }), ErrCorrupt, "twice"},
		{"path traversal", edit(func(e []tarEntry) []tarEntry {
			return append(e[:1], append([]tarEntry{{name: id + "/../../evil", body: []byte("x")}}, e[1:]...)...)
		}), ErrCorrupt, "not a file of snapshot"},
		{"absolute path", edit(func(e []tarEntry) []tarEntry {
			return append(e[:1], append([]tarEntry{{name: "/tmp/evil", body: []byte("x")}}, e[1:]...)...)
		}), ErrCorrupt, "not a file of snapshot"},
		{"another snapshot's file", edit(func(e []tarEntry) []tarEntry {
			other := format.NewSnapshotID(time.Now(), id)
			e[1].name = other + "/empty"
			return e
		}), ErrCorrupt, "not a file of snapshot"},
		{"symlink", edit(func(e []tarEntry) []tarEntry {
			return append(e[:1], append([]tarEntry{{name: id + "/empty", typ: tar.TypeSymlink}}, e[1:]...)...)
		}), ErrCorrupt, "not a regular file"},
		{"manifest of another id", makeTar([]tarEntry{{name: format.NewSnapshotID(time.Now(), id) + "/manifest.json", body: manifest}}), ErrCorrupt, "holds the manifest"},
		{"manifest lists a path outside", edit(func(e []tarEntry) []tarEntry {
			e[0].body = bytes.Replace(e[0].body, []byte(`"graph/db"`), []byte(`"../db"`), 1)
			return e
		}), ErrCorrupt, "invalid file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			// The destination already holds a snapshot; it must stay as is.
			publish(t, data)
			before := tree(t, data)
			_, err := Import(context.Background(), bytes.NewReader(tc.archive), data, ImportOptions{})
			if err == nil || !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Import = %v, want %v containing %q", err, tc.want, tc.msg)
			}
			if after := tree(t, data); !slices.Equal(before, after) {
				t.Errorf("the data directory changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// tree lists every path under dir with its size, except index.lock,
// which Import creates.
func tree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == format.LockFile {
			return nil
		}
		fi, _ := d.Info()
		out = append(out, rel+" "+fi.Mode().String()+" "+string(rune('0'+fi.Size()%10)))
		return nil
	})
	return out
}

func TestImportWaitsForLock(t *testing.T) {
	src := publish(t, t.TempDir())
	data := t.TempDir()
	release, err := snapshot.Lock(context.Background(), data, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Import(context.Background(), bytes.NewReader(export(t, src, None)), data, ImportOptions{})
	if !errors.Is(err, snapshot.ErrLocked) {
		t.Errorf("import while locked: %v, want ErrLocked", err)
	}
	release()
	if _, err := Import(context.Background(), bytes.NewReader(export(t, src, None)), data, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestImportOlderThanNewest(t *testing.T) {
	old := publish(t, t.TempDir())
	data := t.TempDir()
	time.Sleep(2 * time.Millisecond)
	newer := publish(t, data)
	res, err := Import(context.Background(), bytes.NewReader(export(t, old, Zstd)), data, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Newest != newer.ID {
		t.Errorf("Newest = %s, want %s", res.Newest, newer.ID)
	}
}

func TestExportRefusesDamagedSnapshot(t *testing.T) {
	s := publish(t, t.TempDir())
	p := filepath.Join(s.Dir, "graph", "db")
	b, _ := os.ReadFile(p)
	b[3] ^= 1
	os.WriteFile(p, b, 0o644)
	_, err := Export(context.Background(), io.Discard, s.Dir, ExportOptions{})
	if !errors.Is(err, snapshot.ErrInvalid) || !strings.Contains(err.Error(), "graph/db") {
		t.Errorf("Export of a damaged snapshot = %v", err)
	}
}

func TestValidRel(t *testing.T) {
	for rel, want := range map[string]bool{
		"nodes.parquet": true, "graph/db": true, "a b/c.d": true,
		"": false, ".": false, "..": false, "../x": false, "a/../b": false, "a/./b": false, "/abs": false,
		"a//b": false, "a/": false, `a\b`: false, "a\x00b": false, "\xff": false,
	} {
		if got := validRel(rel); got != want {
			t.Errorf("validRel(%q) = %v, want %v", rel, got, want)
		}
	}
}
