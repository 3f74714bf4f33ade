package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// killGroup kills index runs with SIGKILL at random points. The points
// are spread over the length of one uninterrupted run, measured first;
// where a kill lands changes nothing in what is checked.
func killGroup(s *suite) {
	vault := filepath.Join(s.tmp, "kill-vault")
	data := filepath.Join(s.tmp, "kill-data")
	var full time.Duration
	if !s.run("generate and index a 2,000-note vault", 10*time.Minute, func(ctx context.Context) error {
		if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 2000, Seed: 7}); err != nil {
			return err
		}
		start := time.Now()
		if _, err := s.vgOK(ctx, "index", "--vault", vault, "--data", filepath.Join(s.tmp, "kill-timing"), "--quiet"); err != nil {
			return err
		}
		full = time.Since(start)
		return nil
	}) {
		return
	}
	rng := rand.New(rand.NewPCG(12, 1))
	// A run that ends before its kill does not count; the next kill comes
	// sooner (half the delays), so the machine's speed changes how many
	// runs it takes, not the outcome.
	landed, shrink := 0, 1.0
	for i := 0; landed < s.kills && i < 10*s.kills; i++ {
		args := []string{"index", "--vault", vault, "--data", data, "--quiet"}
		if i%3 == 1 {
			args = append(args, "--full")
		}
		delay := time.Duration(shrink * rng.Float64() * float64(full))
		name := fmt.Sprintf("kill -9 run %d at %.0f%% of a run", i+1, 100*float64(delay)/float64(full))
		s.run(name, 10*time.Minute, func(ctx context.Context) error {
			// Some runs have changes to index, some do not.
			if i%2 == 0 {
				if _, err := vaultgen.Edit(vault, int64(100+i), 20); err != nil {
					return err
				}
			}
			before, err := treeSum(vault)
			if err != nil {
				return err
			}
			cmd := exec.CommandContext(ctx, s.bin, args...)
			if err := cmd.Start(); err != nil {
				return err
			}
			select {
			case <-time.After(delay):
			case <-ctx.Done():
			}
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				landed++
			} else {
				shrink /= 2
			}
			if err := onlyCompleteSnapshots(data); err != nil {
				return err
			}
			after, err := treeSum(vault)
			if err != nil {
				return err
			}
			return sameTree(before, after)
		})
	}
	s.run(fmt.Sprintf("the run after %d kills mid-run succeeds", landed), 10*time.Minute, func(ctx context.Context) error {
		if landed < s.kills {
			return fmt.Errorf("only %d kills landed while index ran in %d runs", landed, 10*s.kills)
		}
		if _, err := vaultgen.Edit(vault, 999, 5); err != nil {
			return err
		}
		if _, err := s.vgOK(ctx, "index", "--vault", vault, "--data", data, "--quiet"); err != nil {
			return err
		}
		if err := onlyCompleteSnapshots(data); err != nil {
			return err
		}
		des, err := os.ReadDir(snapshot.SnapshotsDir(data))
		if err != nil {
			return err
		}
		for _, de := range des {
			if strings.HasPrefix(de.Name(), format.TempPrefix) {
				return fmt.Errorf("the run left %s behind", de.Name())
			}
		}
		// Nothing lost: the newest snapshot holds every note of the vault.
		entries, err := snapshot.List(data)
		if err != nil || len(entries) == 0 {
			return fmt.Errorf("no snapshot after the run: %v", err)
		}
		snap, err := snapshot.Open(entries[len(entries)-1].Dir, snapshot.OpenOptions{VerifyChecksums: true})
		if err != nil {
			return err
		}
		notes := 0
		if err := filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				notes++
			}
			return err
		}); err != nil {
			return err
		}
		if snap.Manifest.Counts.Notes != notes {
			return fmt.Errorf("the newest snapshot has %d notes, the vault %d", snap.Manifest.Counts.Notes, notes)
		}
		_, err = s.vgOK(ctx, "query", "--data", data, "MATCH (n) RETURN count(n)")
		return err
	})
}

// onlyCompleteSnapshots checks what a reader can see in a data directory:
// every directory named as a snapshot has a manifest and verifies in
// full (sha256 of every file, no file the manifest does not name).
func onlyCompleteSnapshots(data string) error {
	des, err := os.ReadDir(snapshot.SnapshotsDir(data))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, de := range des {
		if !format.ValidSnapshotID(de.Name()) {
			continue
		}
		dir := filepath.Join(snapshot.SnapshotsDir(data), de.Name())
		_, problems, err := snapshot.Verify(dir)
		if err != nil {
			return fmt.Errorf("a partial snapshot is visible: %w", err)
		}
		if len(problems) > 0 {
			return fmt.Errorf("a partial snapshot is visible: %s: %v", de.Name(), problems)
		}
	}
	return nil
}
