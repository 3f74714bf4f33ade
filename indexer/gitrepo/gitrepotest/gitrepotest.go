// Package gitrepotest makes real git repositories for tests, with go-git:
// a working tree in a temporary folder, commits of files, and checksums of
// everything under .git to show that a reader wrote nothing.
package gitrepotest

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Repo is a repository being written by a test.
type Repo struct {
	t    testing.TB
	Dir  string
	repo *git.Repository
	when time.Time
}

// New initialises a repository in dir (created if needed).
func New(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return &Repo{t: t, Dir: dir, repo: r, when: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
}

// Write writes files (path -> content; "" content removes the file) into
// the working tree without committing.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for p, content := range files {
		full := filepath.Join(r.Dir, filepath.FromSlash(p))
		if content == "" {
			if err := os.Remove(full); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// WriteVault writes a vault's notes (path -> content) into dir, for the
// fixtures' vaults beside their repositories (PodcastVault, WideVault).
func WriteVault(t testing.TB, dir string, notes map[string]string) {
	t.Helper()
	for p, content := range notes {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Commit writes files as Write does, stages them (removals too) and
// commits; it returns the commit hash.
func (r *Repo) Commit(msg string, files map[string]string) string {
	r.t.Helper()
	r.Write(files)
	wt, err := r.repo.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if files[p] == "" {
			if _, err := wt.Remove(p); err != nil {
				r.t.Fatal(err)
			}
		} else if _, err := wt.Add(p); err != nil {
			r.t.Fatal(err)
		}
	}
	r.when = r.when.Add(time.Hour)
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "Test", Email: "test@example.com", When: r.when}})
	if err != nil {
		r.t.Fatal(err)
	}
	return h.String()
}

// Checksums returns the sha256 of every file under dir/.git, by path, and
// each file's mode and modification time folded in, so that any write shows.
func Checksums(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := make(map[string]string)
	root := filepath.Join(dir, ".git")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel+"/"] = fi.Mode().String()
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(sum[:]) + " " + fi.Mode().String() + " " + fi.ModTime().UTC().Format(time.RFC3339Nano)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
