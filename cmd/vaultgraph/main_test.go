package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// binary is the vaultgraph command built once for the tests that drive it
// as a user would, in a subprocess.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vaultgraph-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "vaultgraph")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build vaultgraph:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one command printed and how it exited.
type result struct {
	stdout, stderr string
	code           int
}

// vg runs the vaultgraph binary with args.
func vg(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// vgOK runs vaultgraph and fails the test unless it exits 0.
func vgOK(t *testing.T, args ...string) result {
	t.Helper()
	r := vg(t, args...)
	if r.code != 0 {
		t.Fatalf("vaultgraph %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// repoPath returns a path relative to the repository root.
func repoPath(p string) string {
	return filepath.Join("..", "..", filepath.FromSlash(p))
}
