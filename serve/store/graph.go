package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// Graph runs read-only openCypher queries over one snapshot's graph
// database. *graphdb.DB implements it; tests substitute fakes through
// Options.OpenGraph. Implementations are safe for concurrent use and
// return *graphdb.Error (a cypher.Error) for problems with the query.
type Graph interface {
	Run(ctx context.Context, req graphdb.Request) (*graphdb.Result, error)
	Close() error
}

// GraphOpener opens a snapshot's graph database. It returns an error
// wrapping ErrUnavailable when the snapshot has none (the snapshot is then
// served without Cypher), and any other error for a database that should
// be there and does not open (the snapshot is then rejected).
type GraphOpener func(ctx context.Context, sn *snapshot.Snapshot) (Graph, error)

// GraphOpenerWith returns the default opener: the snapshot's Kuzu database,
// read-only, through package graphdb, sized by opts.
func GraphOpenerWith(opts graphdb.Options) GraphOpener {
	return func(_ context.Context, sn *snapshot.Snapshot) (Graph, error) {
		if sn.Manifest.Graph == nil {
			return nil, fmt.Errorf("Cypher queries are %w: snapshot %s was built without the graph stage; index the vault again with it", ErrUnavailable, sn.ID)
		}
		db, err := graphdb.OpenSnapshot(sn, opts)
		if errors.Is(err, graphdb.ErrNoGraph) {
			return nil, fmt.Errorf("Cypher queries are %w: %w", ErrUnavailable, err)
		}
		if err != nil {
			return nil, err
		}
		return db, nil
	}
}
