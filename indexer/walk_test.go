package indexer

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/format"
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
