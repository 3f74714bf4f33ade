package snapshot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestGCStaleLeases deletes snapshots by hand, as users do, and checks
// that gc removes their lease files unless a process holds them, and
// leaves every other file of DATA/leases alone.
func TestGCStaleLeases(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	all := publishN(t, data, 3)
	// all[0]: leased once, released, then deleted by hand.
	release, err := AcquireLease(data, all[0])
	if err != nil {
		t.Fatal(err)
	}
	release()
	// all[1]: deleted by hand while a server still holds it.
	releaseHeld, err := AcquireLease(data, all[1])
	if err != nil {
		t.Fatal(err)
	}
	defer releaseHeld()
	// all[2]: still there, its lease released.
	release, err = AcquireLease(data, all[2])
	if err != nil {
		t.Fatal(err)
	}
	release()
	// A lease file of a snapshot that never was here, and a file that is
	// not a lease.
	ghost := format.NewSnapshotID(time.Now(), all[2])
	leases := filepath.Join(data, format.LeasesDir)
	os.WriteFile(LeasePath(data, ghost), nil, 0o644)
	os.WriteFile(filepath.Join(leases, "README"), []byte("mine"), 0o644)
	for _, id := range all[:2] {
		if err := os.RemoveAll(Dir(data, id)); err != nil {
			t.Fatal(err)
		}
	}
	leaseFiles := func() []string {
		des, err := os.ReadDir(leases)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		return names
	}
	everything := leaseFiles()

	dry, err := GC(ctx, data, GCOptions{Keep: 5, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{all[0], ghost}; !slices.Equal(dry.StaleLeases, want) || !slices.Equal(dry.HeldLeases, all[1:2]) {
		t.Errorf("dry run: stale %v held %v, want stale %v held %v", dry.StaleLeases, dry.HeldLeases, want, all[1:2])
	}
	if got := leaseFiles(); !slices.Equal(got, everything) {
		t.Fatalf("dry run removed lease files: %v, had %v", got, everything)
	}

	res, err := GC(ctx, data, GCOptions{Keep: 5})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{all[0], ghost}; !slices.Equal(res.StaleLeases, want) || !slices.Equal(res.HeldLeases, all[1:2]) {
		t.Errorf("gc: stale %v held %v, want stale %v held %v", res.StaleLeases, res.HeldLeases, want, all[1:2])
	}
	want := []string{all[1] + format.LeaseSuffix, all[2] + format.LeaseSuffix, "README"}
	if got := leaseFiles(); !slices.Equal(got, want) {
		t.Errorf("lease files after gc = %v, want %v", got, want)
	}
	// The held lease still counts: its file is the one InUse checks.
	if used, err := InUse(data, all[1]); err != nil || !used {
		t.Errorf("InUse(%s) = %v, %v after gc; the held lease was lost", all[1], used, err)
	}

	// Once released, it goes too.
	releaseHeld()
	res, err = GC(ctx, data, GCOptions{Keep: 5})
	if err != nil || !slices.Equal(res.StaleLeases, all[1:2]) || len(res.HeldLeases) != 0 {
		t.Fatalf("gc after release = %+v, %v", res, err)
	}
	if got, want := leaseFiles(), []string{all[2] + format.LeaseSuffix, "README"}; !slices.Equal(got, want) {
		t.Errorf("lease files = %v, want %v", got, want)
	}
}

// TestAcquireLeaseAfterUnlink makes AcquireLease wait on a lease file that
// gc unlinks: the lease it returns must be on the file now at the lease
// path (which InUse checks), or, when the snapshot is gone, an error.
func TestAcquireLeaseAfterUnlink(t *testing.T) {
	for _, snapshotGone := range []bool{false, true} {
		t.Run(fmt.Sprintf("snapshot gone %v", snapshotGone), func(t *testing.T) {
			data := t.TempDir()
			id := publish(t, data, "").ID
			os.MkdirAll(filepath.Join(data, format.LeasesDir), 0o755)
			// Play gc: hold the lease file exclusively.
			f, err := os.OpenFile(LeasePath(data, id), os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			if err := tryLock(f); err != nil {
				t.Fatal(err)
			}
			type result struct {
				release func() error
				err     error
			}
			done := make(chan result, 1)
			go func() {
				release, err := AcquireLease(data, id)
				done <- result{release, err}
			}()
			waitBlockedOn(t, f)
			if snapshotGone {
				os.RemoveAll(Dir(data, id))
			}
			if err := os.Remove(LeasePath(data, id)); err != nil {
				t.Fatal(err)
			}
			f.Close()
			r := <-done
			if snapshotGone {
				if !errors.Is(r.err, ErrNotFound) {
					t.Fatalf("AcquireLease of a removed snapshot = %v, want ErrNotFound", r.err)
				}
				if _, err := os.Stat(LeasePath(data, id)); !os.IsNotExist(err) {
					t.Errorf("AcquireLease recreated the lease file of a removed snapshot: %v", err)
				}
				return
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			defer r.release()
			if used, err := InUse(data, id); err != nil || !used {
				t.Errorf("InUse = %v, %v: the lease is on an unlinked file", used, err)
			}
		})
	}
}

// waitBlockedOn waits until some flock request on f's file, which the
// caller holds locked, is blocked (Linux lists those in /proc/locks with
// "->"). It skips the test where locks cannot be seen there.
func waitBlockedOn(t *testing.T, f *os.File) {
	t.Helper()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no inode numbers")
	}
	inode := fmt.Sprintf(":%d ", st.Ino)
	// locksOn returns the /proc/locks lines about f's file.
	locksOn := func() []string {
		b, err := os.ReadFile("/proc/locks")
		if err != nil {
			t.Skip("cannot see locks:", err)
		}
		var out []string
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			if strings.Contains(sc.Text(), inode) {
				out = append(out, sc.Text())
			}
		}
		return out
	}
	if len(locksOn()) == 0 {
		t.Skip("/proc/locks does not list the lock this test holds")
	}
	for {
		for _, line := range locksOn() {
			if strings.Contains(line, "->") {
				return
			}
		}
		time.Sleep(10 * time.Millisecond) // poll interval, not a deadline
	}
}
