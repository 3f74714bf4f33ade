package indexer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestRunTakesTheOpenedSnapshotOnlyWhileItIsTheNewestAndIntact checks
// Options.Opened: the run builds on it while it is the newest snapshot,
// and on the newest good one when another run published after it or
// one of its files is gone.
func TestRunTakesTheOpenedSnapshotOnlyWhileItIsTheNewestAndIntact(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	edit := func(text string) {
		t.Helper()
		must(t, os.WriteFile(filepath.Join(vault, "Projects/Crawler.md"), []byte("---\ntype: Project\n---\n"+text+"\n"), 0o644))
	}
	first := run(t, vault, data)
	opened := openSnap(t, first.Dir)

	edit("Fetches pages politely.")
	second := run(t, vault, data, func(o *Options) { o.Opened = opened })
	if second.Parent != first.ID || second.Parsed != 1 || second.Reused != len(smallVault)-1 {
		t.Fatalf("run with the newest opened: %+v, want parent %s, 1 parsed", second, first.ID)
	}

	edit("Fetches pages slowly.")
	third := run(t, vault, data, func(o *Options) { o.Opened = opened })
	if third.Parent != second.ID {
		t.Fatalf("run with an opened snapshot no longer the newest built on %s, want %s", third.Parent, second.ID)
	}

	opened = openSnap(t, third.Dir)
	must(t, os.Remove(filepath.Join(third.Dir, format.SegmentFile(format.NotesTable, 0))))
	edit("Fetches pages again.")
	fourth := run(t, vault, data, func(o *Options) { o.Opened = opened })
	if fourth.Parent != second.ID {
		t.Fatalf("run with a damaged opened snapshot built on %s, want the newest good one %s", fourth.Parent, second.ID)
	}
}
