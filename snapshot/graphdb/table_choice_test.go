package graphdb

import (
	"fmt"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestTableChoiceMinEdges checks that a type gets a table of its own only
// with enough edges to pay for it: links_to and embeds always, the
// the others (those of the parent's tables too) with the bound.
func TestTableChoiceMinEdges(t *testing.T) {
	notes := []format.Note{{ID: "a"}, {ID: "b"}}
	var edges []format.Edge
	add := func(typ string, n int) {
		for i := range n {
			edges = append(edges, format.Edge{ID: format.EdgeID("a", typ, "b", i), Source: "a", Target: "b", Type: typ, Sign: 1})
		}
	}
	add("big", 10)
	add("small", 9)
	add("kept", 10)
	add("dropped", 4)
	add(format.TypeLinksTo, 1)
	plan := planSchema(notes, edges, tableChoice{minEdges: 10, keep: map[string]bool{"kept": true, "dropped": true}})
	got := map[string]string{}
	for _, et := range plan.types {
		got[et.name] = et.rel.table
	}
	want := map[string]string{
		format.TypeLinksTo: "e_links_to", format.TypeEmbeds: "e_embeds", "big": "e_big", "kept": "e_kept",
		"small": format.GraphEdgeTable, "dropped": format.GraphEdgeTable,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tables %v, want %v", got, want)
	}
	for _, c := range []struct {
		opts  BuildOptions
		notes int
		want  int
	}{
		{BuildOptions{}, 100000, int(100000 * format.TypedEdgeTableNotes)},
		{BuildOptions{}, 30, format.MinTypedEdgeTable},
		{BuildOptions{MinTableEdges: 7}, 10000, 7},
		{BuildOptions{MinTableEdges: -1}, 10000, 0},
	} {
		if got := c.opts.minTableEdges(c.notes); got != c.want {
			t.Errorf("%+v: minTableEdges(%d) = %d, want %d", c.opts, c.notes, got, c.want)
		}
	}
}
