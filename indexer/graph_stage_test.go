package indexer

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// graphRun indexes with only the graph stage and returns the result and
// what was logged.
func graphRun(t *testing.T, vault, data string, stage GraphStage) (*Result, string) {
	t.Helper()
	var log bytes.Buffer
	res := run(t, vault, data, func(o *Options) {
		o.Stages = []Stage{stage}
		o.Log = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	if _, problems, err := snapshot.Verify(res.Dir); err != nil || len(problems) > 0 {
		t.Fatalf("snapshot %s: %v %v", res.ID, err, problems)
	}
	return res, log.String()
}

func editNote(t *testing.T, vault, note, old, new string) {
	t.Helper()
	path := filepath.Join(vault, note)
	data, err := os.ReadFile(path)
	must(t, err)
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s has no %q", note, old)
	}
	must(t, os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644))
}

func TestGraphStageUpdatesTheParentsGraph(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	stage := GraphStage{BufferPoolSize: 64 << 20, UpdateLimit: 1}
	first, _ := graphRun(t, vault, data, stage)
	if g := first.Manifest.Graph; g == nil || g.Build != format.GraphBuilt {
		t.Fatalf("first run: graph %+v, want built", g)
	}
	editNote(t, vault, "People/Bob.md", "{hours: 120}", "{hours: 130}")
	second, log := graphRun(t, vault, data, stage)
	if g := second.Manifest.Graph; g.Build != format.GraphUpdated || g.Notes != first.Manifest.Graph.Notes {
		t.Fatalf("second run: graph %+v, want updated; log:\n%s", g, log)
	}
	if !strings.Contains(log, `msg="graph updated"`) {
		t.Errorf("log:\n%s", log)
	}
	// A negative limit always builds.
	editNote(t, vault, "People/Bob.md", "{hours: 130}", "{hours: 140}")
	stage.UpdateLimit = -1
	third, _ := graphRun(t, vault, data, stage)
	if g := third.Manifest.Graph; g.Build != format.GraphBuilt {
		t.Fatalf("third run: graph %s, want built", g.Build)
	}
}

// TestGraphStageFallsBack checks both ways an update gives way to a build:
// a layout change (logged at info) and a failure (here a parent graph
// that no longer matches its manifest, logged as a warning). Either way
// the snapshot is published with a graph.
func TestGraphStageFallsBack(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	stage := GraphStage{BufferPoolSize: 64 << 20, UpdateLimit: 1}
	graphRun(t, vault, data, stage)

	editNote(t, vault, "People/Bob.md", "role: engineer", "role: engineer\nshoe_size: 44")
	second, log := graphRun(t, vault, data, stage)
	if g := second.Manifest.Graph; g.Build != format.GraphBuilt {
		t.Fatalf("new property key: graph %s, want built", g.Build)
	}
	if !strings.Contains(log, "level=INFO") || !strings.Contains(log, "note property keys") {
		t.Errorf("the reason is not logged:\n%s", log)
	}

	path := filepath.Join(second.Dir, format.GraphFile)
	db, err := os.ReadFile(path)
	must(t, err)
	db[len(db)/2] ^= 1
	must(t, os.Chmod(path, 0o644))
	must(t, os.WriteFile(path, db, 0o644))
	editNote(t, vault, "People/Bob.md", "shoe_size: 44", "shoe_size: 45")
	third, log := graphRun(t, vault, data, stage)
	if g := third.Manifest.Graph; g.Build != format.GraphBuilt || third.Parent != second.ID {
		t.Fatalf("altered parent: graph %s, parent %s", g.Build, third.Parent)
	}
	// The copy is checked by the manifest's xxh64 (graphdb.Update).
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "xxh64") {
		t.Errorf("the failure is not logged as a warning:\n%s", log)
	}
}
