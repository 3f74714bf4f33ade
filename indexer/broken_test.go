package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestBrokenVault indexes testdata/broken-vault plus the bad files that
// cannot live in git: every problem becomes a warning naming the file, and
// every note that can be read is indexed.
func TestBrokenVault(t *testing.T) {
	vault := t.TempDir()
	must(t, os.CopyFS(vault, os.DirFS("../testdata/broken-vault")))
	outside := writeVault(t, map[string]string{"secret.md": "the outside secret"})
	must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(vault, "outside.md")))
	must(t, os.Symlink(".", filepath.Join(vault, "loop")))
	must(t, os.Symlink("b-link", filepath.Join(vault, "a-link.md")))
	must(t, os.Symlink("a-link.md", filepath.Join(vault, "b-link")))
	must(t, os.WriteFile(filepath.Join(vault, "Huge.md"), []byte(strings.Repeat("x", 1<<20+1)), 0o644))
	must(t, os.WriteFile(filepath.Join(vault, "Case.md"), []byte("upper"), 0o644))
	must(t, os.WriteFile(filepath.Join(vault, "case.md"), []byte("lower"), 0o644))

	res, err := Run(context.Background(), Options{Vault: vault, Data: t.TempDir(), MaxNoteBytes: 1 << 20})
	if err != nil {
		t.Fatalf("a broken vault stopped the run: %v", err)
	}
	s := openSnap(t, res.Dir)
	for _, want := range []struct{ file, kind string }{
		{"Invalid YAML.md", format.WarnInvalidYAML},
		{"Alias Bomb.md", format.WarnYAMLAliasBomb},
		{"Frontmatter List.md", format.WarnInvalidYAML},
		{"Invalid UTF-8.md", format.WarnInvalidUTF8},
		{"Binary.md", format.WarnBinary},
		{"Malformed Edge Properties.md", format.WarnEdgeProperties},
		{"Duplicate Edge ID.md", format.WarnDuplicateEdgeID},
		{"outside.md", format.WarnSymlinkOutside},
		{"loop", format.WarnSymlinkLoop},
		{"a-link.md", format.WarnSymlinkLoop},
		{"Huge.md", format.WarnTooLarge},
		{"case.md", format.WarnPathConflict},
	} {
		if !hasWarning(s.Manifest, want.file, want.kind) {
			t.Errorf("no %s warning for %s", want.kind, want.file)
		}
	}
	notes, err := s.Notes()
	must(t, err)
	byID := map[string]format.Note{}
	for _, n := range notes {
		byID[n.ID] = n
		if strings.Contains(n.Content, "outside secret") {
			t.Errorf("%s holds the content of a file outside the vault", n.ID)
		}
	}
	for _, id := range []string{"Home.md", "A.md", "B.md", "Invalid YAML.md", "Unclosed Frontmatter.md", "Alias Bomb.md",
		"Frontmatter List.md", "Deep Nesting.md", "Invalid UTF-8.md", "Malformed Edge Properties.md", "CRLF BOM.md", "Empty.md", "Case.md", "case.md"} {
		if _, ok := byID[id]; !ok {
			t.Errorf("note %s not indexed", id)
		}
	}
	for _, id := range []string{"Binary.md", "Huge.md", "outside.md"} {
		if _, ok := byID[id]; ok {
			t.Errorf("%s indexed although it is not a readable note", id)
		}
	}
	if !strings.ContainsRune(byID["Invalid UTF-8.md"].Content, '\uFFFD') {
		t.Error("invalid bytes not replaced by U+FFFD")
	}
	edges, err := s.Edges()
	must(t, err)
	for _, src := range []string{"Invalid YAML.md", "Alias Bomb.md", "Invalid UTF-8.md", "Unclosed Frontmatter.md"} {
		found := false
		for _, e := range edges {
			found = found || (e.Source == src && !e.Unresolved)
		}
		if !found {
			t.Errorf("%s: the body of a note with bad frontmatter or bytes lost its links", src)
		}
	}
	assertEdge(t, edges, "Malformed Edge Properties.md", "depends_on", "A.md", "")
	if !byID["Nowhere"].Stub || !byID["Also Nowhere"].Stub {
		t.Error("links to missing notes did not make stubs")
	}
}
