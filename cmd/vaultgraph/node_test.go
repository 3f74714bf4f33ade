package main

import (
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
// binary, so `go test ./...` works on a fresh machine with Node and npm.
var installNode = sync.OnceValue(func() error {
	if _, err := os.Stat(filepath.Join(ciDir, "node_modules", ".package-lock.json")); err == nil {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = ciDir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
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
