package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// TestGCStaleLeaseFiles leaves lease files of snapshots that are not in
// the data directory (as deleting a snapshot by hand does): gc removes the
// one nobody holds and keeps, and says so, the one this test holds.
func TestGCStaleLeaseFiles(t *testing.T) {
	data := t.TempDir()
	stale := format.NewSnapshotID(time.Now(), "")
	held := format.NewSnapshotID(time.Now(), stale)
	release, err := snapshot.AcquireLease(data, stale)
	if err != nil {
		t.Fatal(err)
	}
	release()
	release, err = snapshot.AcquireLease(data, held)
	if err != nil {
		t.Fatal(err)
	}
	defer release()

	dry := vgOK(t, "snapshot", "gc", "--data", data, "--keep", "1", "--dry-run")
	if !strings.Contains(dry.stdout, "would remove lease file of "+stale) {
		t.Errorf("gc --dry-run output:\n%s", dry.stdout)
	}
	r := vgOK(t, "snapshot", "gc", "--data", data, "--keep", "1")
	for _, want := range []string{
		"removed lease file of " + stale + ": the snapshot is gone",
		"kept lease file of " + held + ": the snapshot is gone, but a running process still has it open",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("gc output lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(snapshot.LeasePath(data, stale)); !os.IsNotExist(err) {
		t.Errorf("the stale lease file is still there: %v", err)
	}
	if _, err := os.Stat(snapshot.LeasePath(data, held)); err != nil {
		t.Errorf("the held lease file was removed: %v", err)
	}
	if des, _ := os.ReadDir(filepath.Join(data, format.LeasesDir)); len(des) != 1 {
		t.Errorf("leases dir holds %d files, want 1", len(des))
	}
}
