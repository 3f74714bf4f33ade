package retrieve

import (
	"errors"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// Open builds a Retriever over s that owns its components: the link graph,
// the vector index and the snapshot's embedder (built from cfg, which says
// how to reach a remote model). Close releases them. Long-running readers
// that hold these components already use New.
func Open(s *snapshot.Snapshot, cfg embed.Config) (_ *Retriever, err error) {
	e, err := embed.ForSnapshot(s.Manifest.Embedder, cfg)
	if err != nil {
		return nil, err
	}
	g, err := linkgraph.Load(s)
	if err != nil {
		return nil, err
	}
	ix, err := search.Open(s, search.Options{})
	if err != nil {
		return nil, err
	}
	r, err := New(Sources{Snapshot: s, Graph: g, Search: ix, Embedder: e})
	if err != nil {
		return nil, errors.Join(err, ix.Close())
	}
	r.closers = append([]func() error{ix.Close}, r.closers...)
	return r, nil
}
