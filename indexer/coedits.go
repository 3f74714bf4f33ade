package indexer

import (
	"context"
	"fmt"
	"sort"

	"github.com/vaultgraph/vaultgraph/format"
)

// coEditMinCount is the least number of commits two files must share to
// get a co_edits edge, and coEditPartners the most partners a file keeps
// (its most frequent).
const (
	coEditMinCount = 2
	coEditPartners = 10
)

// coEdits returns the co_edits edges of a repository: pairs of tracked
// files changed together by at least coEditMinCount of the last
// opts.CoEditCommits commits, each with that count. The history is read
// again only when HEAD moved since the parent snapshot; otherwise the
// parent's edges are kept for files still tracked. read reports whether the
// history was read.
func coEdits(ctx context.Context, in repoInput, files []format.CodeFile, prev *codeReuse, opts Options) (edges []format.Edge, read bool, err error) {
	tracked := make(map[string]bool, len(files))
	for _, f := range files {
		tracked[f.ID] = true
	}
	if prev != nil {
		if old, ok := prev.repos[in.spec.Name]; ok && old.Head == in.head && old.Root == in.spec.Path {
			for _, e := range prev.coEdits[in.spec.Name] {
				if tracked[e.Source] && tracked[e.Target] {
					edges = append(edges, e)
				}
			}
			return edges, false, nil
		}
	}
	commits, err := in.repo.History(ctx, opts.CoEditCommits)
	if err != nil {
		return nil, true, fmt.Errorf("repository %s: %w", in.spec.Name, err)
	}
	type pair struct{ a, b string }
	counts := map[pair]int32{}
	for _, c := range commits {
		if len(c.Changed) > coEditMaxFiles {
			continue
		}
		var ids []string
		for _, p := range c.Changed {
			if id := format.CodeFileID(in.spec.Name, p); tracked[id] {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for i := range ids {
			for j := i + 1; j < len(ids); j++ {
				counts[pair{ids[i], ids[j]}]++
			}
		}
	}
	partners := map[string][]pair{}
	for p, n := range counts {
		if n >= coEditMinCount {
			partners[p.a] = append(partners[p.a], p)
			partners[p.b] = append(partners[p.b], p)
		}
	}
	keep := map[pair]bool{}
	for _, ps := range partners {
		sort.Slice(ps, func(i, j int) bool {
			if counts[ps[i]] != counts[ps[j]] {
				return counts[ps[i]] > counts[ps[j]]
			}
			return ps[i].a+ps[i].b < ps[j].a+ps[j].b
		})
		for i, p := range ps {
			if i < coEditPartners {
				keep[p] = true
			}
		}
	}
	for p := range keep {
		n := counts[p]
		edges = append(edges, format.Edge{ID: format.EdgeID(p.a, format.TypeCoEdits, p.b, 0), Source: p.a, Target: p.b,
			Type: format.TypeCoEdits, Sign: 1, Count: n, Origin: format.OriginHistory,
			Sentence: fmt.Sprintf("%s and %s changed together in %d commits", p.a, p.b, n)})
	}
	sortCodeEdges(edges)
	return edges, true, nil
}
