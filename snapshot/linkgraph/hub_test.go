package linkgraph_test

import (
	"fmt"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
)

// TestSyntheticHubBounds builds a hub with 7,000 backlinks (plain and
// typed), every note also linking three others and sharing one tag, and checks
// the bounds of every action on it; TestHubBounds does the same on the
// generated vault when not in -short mode.
func TestSyntheticHubBounds(t *testing.T) {
	const n = 7000
	notes := []format.Note{{ID: "Hub.md", Path: "Hub.md", Title: "Hub", Tags: []string{"t"}}}
	var edges []format.Edge
	for i := range n {
		id := fmt.Sprintf("N%d.md", i)
		notes = append(notes, format.Note{ID: id, Path: id, Title: fmt.Sprintf("N%d", i), Tags: []string{"t"}})
		typ := format.TypeLinksTo
		if i%5 == 0 {
			typ = "part_of"
		}
		edges = append(edges,
			format.Edge{ID: id + "#hub", Source: id, Target: "Hub.md", Type: typ, Sign: 1, Count: 1},
			format.Edge{ID: id + "#next", Source: id, Target: fmt.Sprintf("N%d.md", (i+1)%n), Type: format.TypeLinksTo, Sign: 1, Count: 1},
			format.Edge{ID: id + "#a", Source: id, Target: fmt.Sprintf("N%d.md", (7*i+3)%n), Type: format.TypeLinksTo, Sign: 1, Count: 1},
			format.Edge{ID: id + "#b", Source: id, Target: fmt.Sprintf("N%d.md", (13*i+5)%n), Type: format.TypeLinksTo, Sign: 1, Count: 1})
	}
	g, err := linkgraph.New("synthetic", notes, edges)
	if err != nil {
		t.Fatal(err)
	}
	checkHubBounds(t, g, "Hub", "N1")
}
