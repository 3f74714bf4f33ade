package gitrepo_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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

// A shallow clone (CI checkouts are depth 1) lacks the parent of its
// oldest commit: the history ends there instead of failing the run
// (review5 F21: "read parent of …: object not found").
func TestHistoryOfAShallowClone(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git binary to make a shallow clone with")
	}
	src := t.TempDir()
	r := gitrepotest.New(t, src)
	r.Commit("first", map[string]string{"a.py": "x = 1\n"})
	r.Commit("second", map[string]string{"a.py": "x = 2\n", "b.py": "y = 1\n"})
	r.Commit("third", map[string]string{"b.py": "y = 2\n"})
	for depth, want := range map[int][][]string{1: nil, 2: {{"b.py"}}} {
		dst := filepath.Join(t.TempDir(), "clone")
		out, err := exec.Command(git, "clone", "-q", "--depth", strconv.Itoa(depth), "file://"+src, dst).CombinedOutput()
		if err != nil {
			t.Fatalf("git clone --depth %d: %v\n%s", depth, err, out)
		}
		repo, err := gitrepo.Open(dst)
		if err != nil {
			t.Fatal(err)
		}
		hist, err := repo.History(context.Background(), 10)
		if err != nil {
			t.Fatalf("History of a clone of depth %d: %v", depth, err)
		}
		var changed [][]string
		for _, c := range hist {
			changed = append(changed, c.Changed)
		}
		if diff := cmp.Diff(want, changed); diff != "" {
			t.Errorf("history of a clone of depth %d (-want +got):\n%s", depth, diff)
		}
	}
}
