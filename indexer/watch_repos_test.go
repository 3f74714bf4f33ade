package indexer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// TestWatchSeesCommitsAndSavedFiles: a watch over a vault and a repository
// runs when a commit moves HEAD and when a tracked file is saved, by
// events and by polling, and writes nothing to the repository.
func TestWatchSeesCommitsAndSavedFiles(t *testing.T) {
	for _, mode := range []struct {
		name string
		poll time.Duration
	}{{"events", 0}, {"poll", 50 * time.Millisecond}} {
		t.Run(mode.name, func(t *testing.T) {
			repoDir := t.TempDir()
			r := gitrepotest.Podcast(t, repoDir)
			vault := writeVault(t, gitrepotest.PodcastVault)
			w := startWatch(t, Options{Vault: vault, Data: t.TempDir(), Repos: []Repo{{Name: "app", Path: repoDir}}},
				WatchOptions{Debounce: 20 * time.Millisecond, Poll: mode.poll})
			w.waitFor("the first snapshot", func(r *Result) bool { return !r.Unchanged })

			// A commit of a new file: no tracked file changes in the working
			// tree, so only the git directory (HEAD, the index) shows it.
			head := r.Commit("retry", map[string]string{"api/app/retry.py": "def retry():\n    pass\n"})
			sums := gitrepotest.Checksums(t, repoDir)
			committed := w.waitFor("the commit", func(res *Result) bool { return res.Manifest.Repos[0].Head == head })
			if blobOf(t, committed.Dir, "api/app/retry.py") == "" || committed.HistoryRead != 1 {
				t.Errorf("the run after the commit: retry.py blob %q, history read %d", blobOf(t, committed.Dir, "api/app/retry.py"), committed.HistoryRead)
			}

			lock := "import os\n\n\ndef acquire_run_lock(name):\n    return True\n"
			r.Write(map[string]string{"api/app/lock.py": lock})
			saved := w.waitFor("the saved file", func(res *Result) bool {
				return !res.Unchanged && blobOf(t, res.Dir, "api/app/lock.py") == gitrepo.BlobHash([]byte(lock))
			})
			if saved.Manifest.Repos[0].Head != head || saved.HistoryRead != 0 {
				t.Errorf("after saving a file: head %s (want %s), history read %d", saved.Manifest.Repos[0].Head, head, saved.HistoryRead)
			}
			if diff := cmp.Diff(sums, gitrepotest.Checksums(t, repoDir)); diff != "" {
				t.Errorf("the watch wrote to the repository's .git (-before +after):\n%s", diff)
			}
		})
	}
}

// blobOf is the blob hash a snapshot recorded for a file of repository app.
func blobOf(t *testing.T, dir, path string) string {
	t.Helper()
	files, err := snapshot.ReadTable[format.CodeFile](filepath.Join(dir, format.CodeFilesFile))
	must(t, err)
	for _, f := range files {
		if f.ID == format.CodeFileID("app", path) {
			return f.Blob
		}
	}
	return ""
}

func TestGitDirRelevant(t *testing.T) {
	for rel, want := range map[string]bool{
		"HEAD": true, "index": true, "packed-refs": true, "refs/heads/main": true, "refs/heads/feature/x": true,
		"index.lock": false, "refs/heads/main.lock": false, "COMMIT_EDITMSG": false, "objects/ab/cdef": false, "logs/HEAD": false, "config": false,
	} {
		if got := gitDirRelevant(rel); got != want {
			t.Errorf("gitDirRelevant(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestWatchSeesCommitsInALinkedWorktree: a repository given as a linked
// worktree (git worktree add) keeps HEAD and the index in its own git
// directory and the refs in the common one; a commit there starts a run.
func TestWatchSeesCommitsInALinkedWorktree(t *testing.T) {
	main := t.TempDir()
	gitrepotest.Podcast(t, main)
	linked := filepath.Join(t.TempDir(), "linked")
	git(t, main, "worktree", "add", "--quiet", "-b", "feature", linked)
	vault := writeVault(t, gitrepotest.PodcastVault)
	w := startWatch(t, Options{Vault: vault, Data: t.TempDir(), Repos: []Repo{{Name: "app", Path: linked}}}, WatchOptions{Debounce: 20 * time.Millisecond})
	first := w.waitFor("the first snapshot", func(r *Result) bool { return !r.Unchanged })
	r, err := gitrepo.Open(linked)
	must(t, err)
	dirs, err := r.GitDirs()
	must(t, err)
	if len(dirs) != 2 {
		t.Fatalf("git directories of a linked worktree: %v, want its own and the common one", dirs)
	}
	must(t, os.WriteFile(filepath.Join(linked, "api", "app", "retry.py"), []byte("def retry():\n    pass\n"), 0o644))
	git(t, linked, "add", "api/app/retry.py")
	git(t, linked, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "retry")
	w.waitFor("the commit in the linked worktree", func(res *Result) bool {
		return res.Manifest.Repos[0].Head != first.Manifest.Repos[0].Head && blobOf(t, res.Dir, "api/app/retry.py") != ""
	})
}
