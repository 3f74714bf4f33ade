package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// ciDir holds the Node packages of the independent clients the tests drive
// vaultgraph with (ci/package.json, ci/package-lock.json).
var ciDir = repoPath("ci")

// installNode installs ci/node_modules from the lock file once per test
// binary, so `go test ./...` works on a fresh machine with Node and npm,
// and again whenever the lock file changed since (its sha256 is kept in
// node_modules/.vaultgraph-lock).
var installNode = sync.OnceValue(func() error {
	lock, err := os.ReadFile(filepath.Join(ciDir, "package-lock.json"))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(lock)
	stamp := filepath.Join(ciDir, "node_modules", ".vaultgraph-lock")
	if b, err := os.ReadFile(stamp); err == nil && string(b) == hex.EncodeToString(sum[:]) {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = ciDir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	return os.WriteFile(stamp, []byte(hex.EncodeToString(sum[:])), 0o644)
})

// node runs a script of ci/ with Node and returns its stdout.
func node(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	if err := installNode(); err != nil {
		t.Fatalf("npm ci in %s: %v", ciDir, err)
	}
	cmd := exec.Command("node", append([]string{filepath.Join(ciDir, script)}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s %v: %v", script, args, err)
	}
	return out
}
