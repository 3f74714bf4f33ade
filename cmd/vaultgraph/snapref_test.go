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

// TestReadsSkipADamagedNewestSnapshot puts a damaged snapshot after a good
// one, as a copy made by hand and cut short leaves it, or a flipped byte
// in a file of the same size: the commands that read the newest snapshot
// use the good one, as the server does, and say on stderr which one they
// skipped and why; named, the damaged one fails.
func TestReadsSkipADamagedNewestSnapshot(t *testing.T) {
	data := t.TempDir()
	good := indexID(t, "--vault", repoPath("testdata/demo-vault"), "--data", data)
	flip := func(name string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, name)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0xff
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, damage := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		why    string // in the warning
	}{
		{"edges cut short", func(t *testing.T, dir string) {
			if err := os.Truncate(filepath.Join(dir, format.EdgesFile), 100); err != nil {
				t.Fatal(err)
			}
		}, format.EdgesFile + ": size 100, manifest says"},
		{"a flipped byte in the notes", flip(format.NotesFile), format.NotesFile + ": xxh64"},
		{"a flipped byte in the graph database", flip(format.GraphFile), format.GraphFile + ": xxh64"},
	} {
		t.Run(damage.name, func(t *testing.T) {
			bad := format.NewSnapshotID(time.Now().Add(time.Duration(i+1)*time.Hour), good)
			badDir := snapshot.Dir(data, bad)
			if err := os.CopyFS(badDir, os.DirFS(snapshot.Dir(data, good))); err != nil {
				t.Fatal(err)
			}
			rewriteManifest(t, badDir, func(m map[string]any) { m["id"] = bad })
			damage.damage(t, badDir)
			defer os.RemoveAll(badDir)
			if ids := listIDs(t, data); len(ids) != 2 || ids[1] != bad {
				t.Fatalf("snapshots %v, want the damaged one newest", ids)
			}
			checkReadsSkip(t, data, good, bad, damage.why)
		})
	}
}

func checkReadsSkip(t *testing.T, data, good, bad, why string) {
	for _, tc := range []struct {
		args []string
		want string // on stdout
	}{
		{[]string{"query", "-d", data, "MATCH (n:Person) RETURN count(n) AS people"}, "people"},
		{[]string{"query", "-d", data, "--snapshot", "latest", "RETURN 1 AS one"}, "one"},
		{[]string{"search", "-d", data, "Acme"}, "Companies/Acme.md"},
		{[]string{"graph", "statistics", "-d", data}, "most linked"},
		{[]string{"retrieve", "-d", data, "who funds Search"}, "funds"},
		{[]string{"snapshot", "show", "-d", data}, "snapshot   " + good},
	} {
		r := vgOK(t, tc.args...)
		if !strings.Contains(r.stdout, tc.want) {
			t.Errorf("vaultgraph %s: stdout lacks %q:\n%s", strings.Join(tc.args, " "), tc.want, r.stdout)
		}
		for _, want := range []string{"skipped a snapshot that fails its checks", bad, why, "using=" + good} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("vaultgraph %s: stderr lacks %q:\n%s", strings.Join(tc.args, " "), want, r.stderr)
			}
		}
	}

	// Named, the damaged snapshot fails; verify checks the newest as it is.
	for _, args := range [][]string{
		{"query", "-d", data, "--snapshot", bad, "RETURN 1"},
		{"search", "-d", data, "--snapshot", bad[:12], "Acme"},
		{"graph", "statistics", "-d", data, "--snapshot", bad},
		{"snapshot", "show", "-d", data, bad},
	} {
		if r := vg(t, args...); r.code != 1 || !strings.Contains(r.stderr, "invalid snapshot") {
			t.Errorf("vaultgraph %s: exit %d, stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if r := vg(t, "snapshot", "verify", "-d", data); r.code != 1 || !strings.Contains(r.stdout, "FAIL "+bad) {
		t.Errorf("verify of the newest: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

}

// TestReadsFailWithEverySnapshotDamaged: with no snapshot that opens there
// is nothing to fall back to.
func TestReadsFailWithEverySnapshotDamaged(t *testing.T) {
	data := t.TempDir()
	good := indexID(t, "--vault", repoPath("testdata/demo-vault"), "--data", data)
	bad := format.NewSnapshotID(time.Now().Add(time.Hour), good)
	badDir := snapshot.Dir(data, bad)
	if err := os.CopyFS(badDir, os.DirFS(snapshot.Dir(data, good))); err != nil {
		t.Fatal(err)
	}
	rewriteManifest(t, badDir, func(m map[string]any) { m["id"] = bad })
	if err := os.Truncate(filepath.Join(badDir, format.EdgesFile), 100); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(snapshot.Dir(data, good), format.EdgesFile), 100); err != nil {
		t.Fatal(err)
	}
	if r := vg(t, "snapshot", "show", "-d", data); r.code != 1 || !strings.Contains(r.stderr, "2 damaged snapshots skipped") {
		t.Errorf("show with every snapshot damaged: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
