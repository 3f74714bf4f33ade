package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// TestIndexKilledMidWrite kills `vaultgraph index` with SIGKILL at spread-out
// moments of its runs and checks after every kill that a reader never sees a
// partial snapshot: every directory that lists as a snapshot verifies in
// full. The next run must then succeed and clear what the killed runs left.
//
// The kill points are spread over the length of one uninterrupted run. A
// run that ends before its kill (the machine got faster, or the run had
// little to do) does not count: the next kill comes at half the delay,
// until 12 kills have landed mid-run, so that how fast the machine is
// changes how many runs it takes, never the outcome.
func TestIndexKilledMidWrite(t *testing.T) {
	vault := t.TempDir()
	if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 3000, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	// Time one uninterrupted run to spread the kills over a whole run.
	start := time.Now()
	vgOK(t, "index", "--vault", vault, "--data", t.TempDir())
	full := time.Since(start)

	data := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	const kills = 12
	interrupted, leftovers, runs := 0, 0, 0
	shrink := 1.0
	for interrupted < kills {
		if runs++; runs > 20*kills {
			t.Fatalf("only %d of %d runs were killed mid-run", interrupted, runs-1)
		}
		// Alternate full and incremental runs so kills land in both.
		args := []string{"index", "--vault", vault, "--data", data}
		if runs%2 == 0 {
			args = append(args, "--full")
		}
		cmd := exec.Command(binary, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(shrink * float64(full) * (float64(interrupted) + rng.Float64()) / kills)
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			interrupted++
		} else {
			shrink /= 2
		}
		leftovers += countTempDirs(t, data)
		assertOnlyCompleteSnapshots(t, data)
	}
	t.Logf("%d kills landed mid-run in %d runs; %d times a half-written snapshot was left behind", interrupted, runs, leftovers)
	r := vgOK(t, "index", "--vault", vault, "--data", data, "--full")
	if !strings.HasPrefix(r.stdout, "snapshot ") {
		t.Fatalf("run after the kills published nothing: %q", r.stdout)
	}
	if n := countTempDirs(t, data); n > 0 {
		t.Errorf("%d leftovers not removed by the next run", n)
	}
	assertOnlyCompleteSnapshots(t, data)
}

func countTempDirs(t *testing.T, data string) int {
	t.Helper()
	des, err := os.ReadDir(snapshot.SnapshotsDir(data))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, de := range des {
		if strings.HasPrefix(de.Name(), format.TempPrefix) {
			n++
		}
	}
	return n
}

func assertOnlyCompleteSnapshots(t *testing.T, data string) {
	t.Helper()
	entries, err := snapshot.List(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		_, problems, err := snapshot.Verify(e.Dir)
		if err != nil || len(problems) > 0 {
			t.Fatalf("a reader sees a partial snapshot %s: %v %v", e.ID, err, problems)
		}
	}
}
