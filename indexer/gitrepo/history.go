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
// none.
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
