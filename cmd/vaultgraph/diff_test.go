package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/diff"
)

// TestSnapshotDiffEdgeProperties indexes the demo vault, changes the
// property of a typed edge (depends_on:: [[Crawler]] {critical: true}),
// indexes again and checks that snapshot diff reports the change in every
// format and that --fail-on changed-edges gates on it.
func TestSnapshotDiffEdgeProperties(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	id1 := indexID(t, "--vault", vault, "--data", data, "--graph=false")
	editNote(t, vault, "Projects/Search.md", "depends_on:: [[Crawler]] {critical: true}", "depends_on:: [[Crawler]] {critical: false, since: 2024}")
	id2 := indexID(t, "--vault", vault, "--data", data, "--graph=false")

	r := vgOK(t, "snapshot", "diff", "--data", data, "--format", "json", id1, id2)
	var rep diff.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("diff --format json: %v\n%s", err, r.stdout)
	}
	want := []diff.EdgeChange{{Type: "depends_on", Source: "Projects/Search.md", Target: "Projects/Crawler.md", Properties: []diff.PropertyChange{
		{Key: "critical", Change: diff.PropertyChanged, Before: "true", After: "false"},
		{Key: "since", Change: diff.PropertyAdded, After: "2024"},
	}}}
	if !reflect.DeepEqual(rep.Edges.Changed, want) {
		t.Errorf("edges.changed = %+v, want %+v", rep.Edges.Changed, want)
	}
	if len(rep.Edges.Added)+len(rep.Edges.Removed) != 0 {
		t.Errorf("a property change shows as edges added %v, removed %v", rep.Edges.Added, rep.Edges.Removed)
	}

	text := vgOK(t, "snapshot", "diff", "--data", data).stdout
	for _, want := range []string{
		"snapshot diff " + id1 + " -> " + id2 + ": 1 notes changed, 1 edges changed",
		"edges changed (1)\n  ~ Projects/Search.md -[depends_on]-> Projects/Crawler.md\n      property critical: true -> false\n      property since: added 2024\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text diff lacks %q:\n%s", want, text)
		}
	}
	md := vgOK(t, "snapshot", "diff", "--data", data, "--format", "markdown").stdout
	if !strings.Contains(md, "<details><summary>Edges changed (1)</summary>") || !strings.Contains(md, "property critical: true -> false") {
		t.Errorf("markdown diff:\n%s", md)
	}

	for _, tc := range []struct {
		failOn string
		code   int
	}{{"changed-edges", 3}, {"removed-edges,new-unresolved", 0}} {
		r := vg(t, "snapshot", "diff", "--data", data, "--fail-on", tc.failOn)
		if r.code != tc.code || !strings.HasPrefix(r.stdout, "snapshot diff") {
			t.Errorf("--fail-on %s: exit %d, want %d\n%s%s", tc.failOn, r.code, tc.code, r.stdout, r.stderr)
		}
		if tc.code == 3 && !strings.Contains(r.stderr, "fails --fail-on changed-edges") {
			t.Errorf("--fail-on %s: stderr %q", tc.failOn, r.stderr)
		}
	}
}
