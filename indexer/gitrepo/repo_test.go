package gitrepo_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/indexer/gitrepo"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
)

func TestTrackedAndHistoryWriteNothing(t *testing.T) {
	dir := t.TempDir()
	r := gitrepotest.New(t, dir)
	r.Commit("first", map[string]string{".gitignore": "build/\n*.log\n", "app/cron.py": "def run():\n    pass\n", "app/util.py": "x = 1\n"})
	r.Commit("second", map[string]string{"app/cron.py": "def run():\n    go()\n", "web/a.ts": "export const a = 1;\n"})
	head := r.Commit("third", map[string]string{"app/util.py": ""})
	// Untracked, ignored and modified files in the working tree.
	r.Write(map[string]string{"untracked.py": "y = 2\n", "build/out.py": "z\n", "debug.log": "log\n", "web/a.ts": "export const a = 2;\n"})
	before := gitrepotest.Checksums(t, dir)

	repo, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := repo.Head()
	if err != nil || got != head {
		t.Fatalf("Head = %q, %v; want %q", got, err, head)
	}
	files, skipped, err := repo.Tracked(context.Background(), nil, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
		content, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if want := gitrepo.BlobHash(content); f.Blob != want {
			t.Errorf("%s: blob %s, want %s (the working tree's content)", f.Path, f.Blob, want)
		}
	}
	if diff := cmp.Diff([]string{".gitignore", "app/cron.py", "web/a.ts"}, paths); diff != "" {
		t.Errorf("tracked files (-want +got):\n%s", diff)
	}
	if len(skipped) != 0 {
		t.Errorf("skipped %v", skipped)
	}
	hist, err := repo.History(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	var changed [][]string
	for _, c := range hist {
		slices.Sort(c.Changed)
		changed = append(changed, c.Changed)
	}
	want := [][]string{{"app/util.py"}, {"app/cron.py", "web/a.ts"}, {".gitignore", "app/cron.py", "app/util.py"}}
	if diff := cmp.Diff(want, changed); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	only, _, err := repo.Tracked(context.Background(), func(p string) bool { return filepath.Ext(p) == ".ts" }, 1<<20)
	if err != nil || len(only) != 1 || only[0].Path != "web/a.ts" {
		t.Errorf("Tracked with a filter = %v, %v", only, err)
	}
	if diff := cmp.Diff(before, gitrepotest.Checksums(t, dir)); diff != "" {
		t.Errorf("reading the repository changed .git (-before +after):\n%s", diff)
	}
}

func TestOpenRefusesAFolderThatIsNoRepository(t *testing.T) {
	if _, err := gitrepo.Open(t.TempDir()); err == nil {
		t.Fatal("Open of a plain folder succeeded")
	}
}
