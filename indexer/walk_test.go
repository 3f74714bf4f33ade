package indexer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/format/glob"
)

// writeVault creates files (path -> content) under a new temporary vault.
func writeVault(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestWalkVault(t *testing.T) {
	root := writeVault(t, map[string]string{
		"A.md":                     "a",
		"People/Bob.MD":            "b",
		"People/photo.png":         "png",
		".obsidian/app.json":       "{}",
		".obsidian/plugins/x.md":   "hidden",
		".trash/Deleted.md":        "gone",
		"Projects/.hidden.md":      "dot file",
		"Templates/Daily.md":       "ignored",
		"Big.md":                   strings.Repeat("x", 200),
		"Deep/Nested/Folder/C.md":  "c",
		"Case/note.md":             "lower",
		"Case/Note.md":             "upper",
		"Links/target-dir/Real.md": "r",
	})
	outside := writeVault(t, map[string]string{"Secret.md": "secret"})
	must(t, os.Symlink(filepath.Join(outside, "Secret.md"), filepath.Join(root, "Escape.md")))
	must(t, os.Symlink(outside, filepath.Join(root, "EscapeDir")))
	must(t, os.Symlink(root, filepath.Join(root, "Deep", "Loop")))
	must(t, os.Symlink("Self.md", filepath.Join(root, "Self.md")))
	must(t, os.Symlink(filepath.Join(root, "A.md"), filepath.Join(root, "Links", "Alias.md")))
	must(t, os.Symlink(filepath.Join(root, "Links", "target-dir"), filepath.Join(root, "ZLinkedDir")))

	rules, err := compileIgnore([]string{"Templates/"})
	must(t, err)
	files, warnings, err := walkVault(root, rules, 100)
	must(t, err)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	wantPaths := []string{"A.md", "Case/Note.md", "Case/note.md", "Deep/Nested/Folder/C.md", "Links/Alias.md", "Links/target-dir/Real.md", "People/Bob.MD"}
	if diff := cmp.Diff(wantPaths, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	var got []string
	for _, w := range warnings {
		got = append(got, w.File+" "+w.Kind)
	}
	sort.Strings(got)
	want := []string{
		"Big.md " + format.WarnTooLarge,
		"Case/note.md " + format.WarnPathConflict,
		"Deep/Loop " + format.WarnSymlinkLoop,
		"Escape.md " + format.WarnSymlinkOutside,
		"EscapeDir " + format.WarnSymlinkOutside,
		"Self.md " + format.WarnSymlinkLoop,
		"ZLinkedDir " + format.WarnSymlinkLoop,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestReadOneRefusesBinaryAndGrownFiles(t *testing.T) {
	root := writeVault(t, map[string]string{"bin.md": "line1\nab\x00cd", "ok.md": "hello", "grown.md": "0123456789"})
	bin := readOne(vaultFile{Path: "bin.md", Abs: filepath.Join(root, "bin.md")}, 100)
	if bin.Warning == nil || bin.Warning.Kind != format.WarnBinary || bin.Warning.Line != 2 {
		t.Errorf("binary file: warning = %+v", bin.Warning)
	}
	ok := readOne(vaultFile{Path: "ok.md", Abs: filepath.Join(root, "ok.md")}, 100)
	if ok.Warning != nil || string(ok.Content) != "hello" || ok.SHA256 != format.TextHash("hello") {
		t.Errorf("ok file: %+v", ok)
	}
	grown := readOne(vaultFile{Path: "grown.md", Abs: filepath.Join(root, "grown.md")}, 5)
	if grown.Warning == nil || grown.Warning.Kind != format.WarnTooLarge {
		t.Errorf("grown file: warning = %+v", grown.Warning)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWalkSymlinkedFolderNeverTakesOverTheRealOne: a symlink to a folder of
// the vault is the duplicate, whichever name sorts first, and its warning
// says so; a symlink to a folder holding it is a cycle.
func TestWalkSymlinkedFolderNeverTakesOverTheRealOne(t *testing.T) {
	for _, tc := range []struct{ name, real, link string }{
		{"link sorts first", "Cards", "Atlas/cards"},
		{"real folder sorts first", "Atlas/cards", "Cards"},
		{"link in the real folder's parent", "Deck/Cards", "Deck/All"},
		{"link deeper than the real folder", "A", "Z/y/x/w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeVault(t, map[string]string{tc.real + "/x.md": "x", tc.real + "/Sub/y.md": "y", "Other/z.md": "z"})
			link := filepath.Join(root, filepath.FromSlash(tc.link))
			must(t, os.MkdirAll(filepath.Dir(link), 0o755))
			target, err := filepath.Rel(filepath.Dir(link), filepath.Join(root, filepath.FromSlash(tc.real)))
			must(t, err)
			must(t, os.Symlink(target, link))
			// A link to a folder holding it is a cycle, not a duplicate.
			must(t, os.Symlink("..", filepath.Join(root, "Other", "up")))

			files, warnings, err := walkVault(root, &glob.Set{}, 1<<20)
			must(t, err)
			var paths []string
			for _, f := range files {
				paths = append(paths, f.Path)
			}
			if diff := cmp.Diff([]string{"Other/z.md", tc.real + "/Sub/y.md", tc.real + "/x.md"}, paths,
				cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			want := []format.Warning{
				{File: "Other/up", Kind: format.WarnSymlinkLoop, Message: `symlink to the vault root, a folder that contains it (a cycle); skipped`},
				{File: tc.link, Kind: format.WarnSymlinkLoop, Message: fmt.Sprintf("symlink to %q, a folder already in the vault; skipped (its notes are indexed there)", tc.real)},
			}
			sortWarnings(want)
			sortWarnings(warnings)
			if diff := cmp.Diff(want, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWalkFollowsSymlinksOnce: a folder only reachable through symlinks (in
// a dot-folder) is indexed through the first link in walk order, the others
// are duplicates of it, and the walk never enters it twice.
func TestWalkFollowsSymlinksOnce(t *testing.T) {
	root := writeVault(t, map[string]string{".stash/Deck/a.md": "a", ".stash/Deck/Inner/b.md": "b"})
	must(t, os.Symlink(".stash/Deck", filepath.Join(root, "B")))
	must(t, os.Symlink(".stash/Deck", filepath.Join(root, "A")))
	must(t, os.Symlink("..", filepath.Join(root, ".stash", "Deck", "Inner", "Back")))
	files, warnings, err := walkVault(root, &glob.Set{}, 1<<20)
	must(t, err)
	var paths, got []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if diff := cmp.Diff([]string{"A/Inner/b.md", "A/a.md"}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	for _, w := range warnings {
		got = append(got, w.File+" "+w.Kind)
	}
	sort.Strings(got)
	if diff := cmp.Diff([]string{"A/Inner/Back " + format.WarnSymlinkLoop, "B " + format.WarnSymlinkLoop}, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestWalkTooLargeMessageIsStable: the warning of a note over the limit
// does not change while the note grows, and the read says the same as the
// walk.
func TestWalkTooLargeMessageIsStable(t *testing.T) {
	root := writeVault(t, map[string]string{"Log.md": strings.Repeat("x", 200)})
	_, before, err := walkVault(root, &glob.Set{}, 100)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(root, "Log.md"), []byte(strings.Repeat("x", 300)), 0o644))
	_, after, err := walkVault(root, &glob.Set{}, 100)
	must(t, err)
	if len(before) != 1 || !cmp.Equal(before, after) {
		t.Errorf("warnings before growing %+v, after %+v: want one, the same", before, after)
	}
	read := readOne(vaultFile{Path: "Log.md", Abs: filepath.Join(root, "Log.md")}, 100)
	if read.Warning == nil || *read.Warning != before[0] {
		t.Errorf("read warning %+v, walk warning %+v: want the same", read.Warning, before[0])
	}
}

// TestRunSkipsNamesThatAreNotUTF8: a file (or folder) whose name is not
// UTF-8 is left out with a warning, and the rest of the vault is indexed,
// graph included (the graph engine refuses strings that are not UTF-8,
// and such a name made the whole run fail).
func TestRunSkipsNamesThatAreNotUTF8(t *testing.T) {
	root := writeVault(t, map[string]string{"Index.md": "[[Other]]\n", "Other.md": "other\n"})
	must(t, os.WriteFile(filepath.Join(root, "bad\xff\xfe.md"), []byte("[[Index]]\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "dir\xff", "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "dir\xff", "sub", "Note.md"), []byte("[[Index]]\n"), 0o644))
	res, err := Run(context.Background(), Options{Vault: root, Data: t.TempDir(), Stages: []Stage{GraphStage{BufferPoolSize: 64 << 20}}})
	must(t, err)
	if res.Manifest.Counts.Notes != 2 || res.Manifest.Graph == nil || res.Manifest.Graph.Notes != 2 {
		t.Fatalf("counts %+v, graph %+v: want the 2 notes with UTF-8 names", res.Manifest.Counts, res.Manifest.Graph)
	}
	var got []string
	for _, w := range res.Manifest.Warnings {
		if w.Kind == format.WarnInvalidName {
			got = append(got, w.File)
		}
	}
	if want := []string{"bad\uFFFD.md", "dir\uFFFD"}; !cmp.Equal(got, want) {
		t.Errorf("invalid-name warnings for %q, want %q", got, want)
	}
}

// TestReadAtMostWhateverTheWalkSaw: a note is read whole (up to the limit)
// whether the size the walk saw is right, too small (it grew since), too
// large (it shrank) or zero, and from a reader that returns a byte at a time.
func TestReadAtMostWhateverTheWalkSaw(t *testing.T) {
	text := strings.Repeat("0123456789", 100)
	for _, size := range []int64{0, 1, 999, 1000, 1001, 5000} {
		for _, limit := range []int64{1, 10, 1000, 1001, 2000} {
			want := text
			if int64(len(want)) > limit {
				want = want[:limit]
			}
			for name, r := range map[string]func() io.Reader{
				"whole":    func() io.Reader { return strings.NewReader(text) },
				"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(text)) },
			} {
				got, err := readAtMost(r(), size, limit)
				if err != nil || string(got) != want {
					t.Errorf("%s, size %d, limit %d: read %d bytes (%v), want %d", name, size, limit, len(got), err, len(want))
				}
			}
		}
	}
	if _, err := readAtMost(iotest.ErrReader(io.ErrUnexpectedEOF), 10, 100); err != io.ErrUnexpectedEOF {
		t.Errorf("a failing reader: err = %v", err)
	}
}

// TestReadNote: a note is read whole; a missing file and a folder fail
// as os.ReadFile fails on them, naming the path.
func TestReadNote(t *testing.T) {
	root := writeVault(t, map[string]string{"a.md": strings.Repeat("x", 10000)})
	got, err := readNote(filepath.Join(root, "a.md"), 10, 1<<20)
	if err != nil || string(got) != strings.Repeat("x", 10000) {
		t.Errorf("a.md: read %d bytes, %v", len(got), err)
	}
	for _, p := range []string{filepath.Join(root, "missing.md"), root} {
		_, err := readNote(p, 0, 100)
		_, want := os.ReadFile(p)
		var pe *fs.PathError
		if err == nil || want == nil || !errors.As(err, &pe) || pe.Path != p || err.Error() != want.Error() {
			t.Errorf("%s: err = %v, want %v", p, err, want)
		}
	}
}
