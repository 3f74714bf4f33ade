package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commit is one commit of the history and the paths it changed against its
// first parent (every path, for a root commit).
type Commit struct {
	Hash    string
	Changed []string
}

// History returns up to n commits reachable from HEAD, newest first,
// following first parents only (a merge's changes are its first parent's
// diff), each with the paths it changed. A repository without commits has
// none; a shallow clone's history ends before its boundary commit, whose
// parent it lacks.
func (r *Repo) History(ctx context.Context, n int) ([]Commit, error) {
	ref, err := r.repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	c, err := r.repo.CommitObject(ref.Hash())
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", ref.Hash(), err)
	}
	var out []Commit
	for c != nil && len(out) < n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tree, err := c.Tree()
		if err != nil {
			return nil, fmt.Errorf("read tree of %s: %w", c.Hash, err)
		}
		var parent *object.Commit
		var parentTree *object.Tree
		if c.NumParents() > 0 {
			if parent, err = c.Parent(0); err != nil {
				if errors.Is(err, plumbing.ErrObjectNotFound) && r.shallowAt(c.Hash) {
					// A shallow clone's boundary (CI checkouts of depth
					// 1): the history ends here, and this commit's
					// changes are unknown, not every file.
					return out, nil
				}
				return nil, fmt.Errorf("read parent of %s: %w", c.Hash, err)
			}
			if parentTree, err = parent.Tree(); err != nil {
				return nil, fmt.Errorf("read tree of %s: %w", parent.Hash, err)
			}
		}
		changed, err := changedPaths(parentTree, tree)
		if err != nil {
			return nil, fmt.Errorf("diff %s: %w", c.Hash, err)
		}
		out = append(out, Commit{Hash: c.Hash.String(), Changed: changed})
		c = parent
	}
	return out, nil
}

// shallowAt reports whether h is a commit whose parents a shallow clone
// left out (listed in .git/shallow).
func (r *Repo) shallowAt(h plumbing.Hash) bool {
	shallow, err := r.repo.Storer.Shallow()
	if err != nil {
		return false
	}
	for _, s := range shallow {
		if s == h {
			return true
		}
	}
	return false
}

func changedPaths(from, to *object.Tree) ([]string, error) {
	if from == nil {
		var paths []string
		err := to.Files().ForEach(func(f *object.File) error {
			paths = append(paths, f.Name)
			return nil
		})
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return paths, nil
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(changes))
	for _, ch := range changes {
		name := ch.To.Name
		if name == "" {
			name = ch.From.Name
		}
		paths = append(paths, name)
	}
	return paths, nil
}
