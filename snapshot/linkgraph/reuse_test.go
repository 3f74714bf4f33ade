package linkgraph_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
)

// answers is what g answers about every note (neighbors both ways and its
// statistics) and the vault, as JSON without the snapshot id and times.
func answers(t *testing.T, g *linkgraph.Graph, notes []format.Note) string {
	t.Helper()
	var all []*linkgraph.Response
	for _, n := range notes {
		for _, action := range []string{linkgraph.ActionNeighbors, linkgraph.ActionStatistics} {
			all = append(all, do(t, g, linkgraph.Request{Action: action, SourcePath: n.ID, FollowBacklinks: new(true)}))
		}
	}
	all = append(all, do(t, g, linkgraph.Request{Action: linkgraph.ActionStatistics}))
	for _, r := range all {
		r.Snapshot, r.GraphStats.TraversalTime = "", 0
	}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReuse: rows that make the same graph (other content, copies of the
// rows) give prev's indexes under the new snapshot's id, answering as a
// graph built anew; any change to a name, label, tag, alias or edge gives
// a graph built anew; prev keeps its own id.
func TestReuse(t *testing.T) {
	rows, err := demoRows()
	if err != nil {
		t.Fatal(err)
	}
	prev := demoGraph(t)
	if g, reused, err := linkgraph.Reuse(nil, "next", rows.notes, rows.edges); err != nil || reused || g.Snapshot() != "next" {
		t.Fatalf("no previous graph: reused %v, %v", reused, err)
	}
	copyRows := func() ([]format.Note, []format.Edge) {
		notes := slices.Clone(rows.notes)
		for i := range notes {
			notes[i].Content += "\nOne more sentence."
			notes[i].Labels = slices.Clone(notes[i].Labels)
		}
		return notes, slices.Clone(rows.edges)
	}
	notes, edges := copyRows()
	g, reused, err := linkgraph.Reuse(prev, "next", notes, edges)
	if err != nil || !reused {
		t.Fatalf("the same graph's rows: reused %v, %v", reused, err)
	}
	if g.Snapshot() != "next" || prev.Snapshot() != "demo" {
		t.Errorf("snapshot ids %q, %q", g.Snapshot(), prev.Snapshot())
	}
	fresh, err := linkgraph.New("fresh", notes, edges)
	if err != nil {
		t.Fatal(err)
	}
	if answers(t, g, notes) != answers(t, fresh, notes) {
		t.Error("the reused graph answers differently from one built anew")
	}

	typed := slices.IndexFunc(rows.edges, func(e format.Edge) bool { return len(e.Properties) > 0 })
	if typed < 0 {
		t.Fatal("the demo vault has no edge with properties")
	}
	changes := map[string]func(notes []format.Note, edges []format.Edge) ([]format.Note, []format.Edge){
		"title": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) { n[3].Title += "!"; return n, e },
		"label": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) {
			n[0].Labels = append(n[0].Labels, "X")
			return n, e
		},
		"tag": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) {
			n[1].Tags = append(n[1].Tags, "new")
			return n, e
		},
		"alias": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) {
			n[2].Aliases = []string{"Another"}
			return n, e
		},
		"note removed": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) { return n[:len(n)-1], e },
		"edge removed": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) { return n, e[1:] },
		"edge target": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) {
			e[0].Target = n[len(n)-1].ID
			return n, e
		},
		"edge count": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) { e[0].Count++; return n, e },
		"edge sentence": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) {
			e[0].Sentence += "."
			return n, e
		},
		"edge property": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) {
			e[typed].Properties = append(slices.Clone(e[typed].Properties), format.PropertyFromJSON("new", format.KindString, `"x"`))
			return n, e
		},
		"notes swapped": func(n []format.Note, e []format.Edge) ([]format.Note, []format.Edge) {
			n[0], n[1] = n[1], n[0]
			return n, e
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			notes, edges := change(copyRows())
			g, reused, err := linkgraph.Reuse(prev, "next", notes, edges)
			if err != nil {
				t.Fatal(err)
			}
			if reused {
				t.Fatal("reused the graph of other rows")
			}
			fresh, err := linkgraph.New("fresh", notes, edges)
			if err != nil {
				t.Fatal(err)
			}
			if answers(t, g, notes) != answers(t, fresh, notes) {
				t.Error("answers differ from a graph built anew")
			}
		})
	}
}
