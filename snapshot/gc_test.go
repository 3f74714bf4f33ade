package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

func ids(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}

func publishN(t *testing.T, data string, n int) []string {
	t.Helper()
	var out []string
	after := ""
	for range n {
		s := publish(t, data, after)
		after = s.ID
		out = append(out, s.ID)
	}
	return out
}

func TestGC(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	all := publishN(t, data, 5)
	leftover := filepath.Join(SnapshotsDir(data), format.TempPrefix+format.NewSnapshotID(time.Now(), all[4]))
	os.MkdirAll(leftover, 0o755)
	release, err := AcquireLease(data, all[0])
	if err != nil {
		t.Fatal(err)
	}

	dry, err := GC(ctx, data, GCOptions{Keep: 2, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := List(data); len(entries) != 5 || !slices.Equal(dry.Removed, all[1:3]) || len(dry.Leftovers) != 1 {
		t.Fatalf("dry run removed something or reported wrongly: %+v, %d left", dry, len(entries))
	}
	if _, err := os.Stat(leftover); err != nil {
		t.Fatal("dry run removed a leftover")
	}

	res, err := GC(ctx, data, GCOptions{Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := &GCResult{Removed: all[1:3], Leased: all[:1], Kept: all[3:], Leftovers: []string{filepath.Base(leftover)}}
	if !slices.Equal(res.Removed, want.Removed) || !slices.Equal(res.Leased, want.Leased) || !slices.Equal(res.Kept, want.Kept) || !slices.Equal(res.Leftovers, want.Leftovers) {
		t.Fatalf("GC = %+v, want %+v", res, want)
	}
	entries, _ := List(data)
	if got := ids(entries); !slices.Equal(got, []string{all[0], all[3], all[4]}) {
		t.Fatalf("left %v", got)
	}
	des, _ := os.ReadDir(SnapshotsDir(data))
	if len(des) != 3 {
		t.Errorf("snapshots dir holds %d entries, want 3 (no temporary dirs)", len(des))
	}
	for _, id := range all[1:3] {
		if _, err := os.Stat(LeasePath(data, id)); !os.IsNotExist(err) {
			t.Errorf("lease file of removed %s left behind: %v", id, err)
		}
	}

	// Once the server lets go, the old snapshot goes.
	release()
	res, err = GC(ctx, data, GCOptions{Keep: 2})
	if err != nil || !slices.Equal(res.Removed, all[:1]) {
		t.Fatalf("GC after release = %+v, %v", res, err)
	}
}

func TestGCOlderThan(t *testing.T) {
	data := t.TempDir()
	all := publishN(t, data, 3)
	res, err := GC(context.Background(), data, GCOptions{Keep: 1, OlderThan: 7 * 24 * time.Hour})
	if err != nil || len(res.Removed) != 0 || len(res.Kept) != 3 {
		t.Fatalf("GC of young snapshots = %+v, %v", res, err)
	}
	res, err = GC(context.Background(), data, GCOptions{Keep: 1, OlderThan: 7 * 24 * time.Hour, Now: time.Now().Add(8 * 24 * time.Hour)})
	if err != nil || !slices.Equal(res.Removed, all[:2]) {
		t.Fatalf("GC a week later = %+v, %v", res, err)
	}
}

// A damaged newest snapshot must not cost the newest good one.
func TestGCKeepsNewestIntact(t *testing.T) {
	data := t.TempDir()
	all := publishN(t, data, 3)
	os.Remove(filepath.Join(Dir(data, all[2]), format.NotesFile))
	res, err := GC(context.Background(), data, GCOptions{Keep: 1})
	if err != nil || !slices.Equal(res.Removed, all[:1]) || !slices.Equal(res.Kept, all[1:]) {
		t.Fatalf("GC = %+v, %v; want %s removed", res, err, all[0])
	}
}

// A byte flipped in place keeps the file's size: gc checks hashes, as the
// servers do, before it calls a snapshot the newest that opens (review5
// F3: it kept the damaged newest and removed the good one).
func TestGCKeepsNewestIntactWhenDamageKeepsTheSize(t *testing.T) {
	data := t.TempDir()
	all := publishN(t, data, 3)
	p := filepath.Join(Dir(data, all[2]), format.NotesFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := GC(context.Background(), data, GCOptions{Keep: 1})
	if err != nil || !slices.Equal(res.Removed, all[:1]) || !slices.Equal(res.Kept, all[1:]) {
		t.Fatalf("GC = %+v, %v; want %s removed, the damaged %s and the intact %s kept", res, err, all[0], all[2], all[1])
	}
}

func TestGCRefuses(t *testing.T) {
	data := t.TempDir()
	publishN(t, data, 2)
	if _, err := GC(context.Background(), data, GCOptions{Keep: 0}); err == nil {
		t.Error("keep 0 accepted")
	}
	release, err := Lock(context.Background(), data, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := GC(context.Background(), data, GCOptions{Keep: 1}); !errors.Is(err, ErrLocked) {
		t.Errorf("GC while an indexer runs = %v, want ErrLocked", err)
	}
	if entries, _ := List(data); len(entries) != 2 {
		t.Errorf("GC removed snapshots without the lock")
	}
}
