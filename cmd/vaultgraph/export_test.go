package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/archive"
)

// TestExportCompression: -o's name picks the compression, and a name that
// would lie about the archive (.gz, which export does not write, or a
// --compress the name contradicts) is refused.
func TestExportCompression(t *testing.T) {
	for _, tc := range []struct {
		out, flag string
		want      archive.Compression
		err       string
	}{
		{"", "", archive.None, ""},
		{"", "zstd", archive.Zstd, ""},
		{"snap.tar", "", archive.None, ""},
		{"snap.tar.zst", "", archive.Zstd, ""},
		{"SNAP.TAR.ZST", "", archive.Zstd, ""},
		{"snap.zstd", "", archive.Zstd, ""},
		{"snap.archive", "", archive.None, ""},
		{"snap.archive", "zstd", archive.Zstd, ""},
		{"snap.tar.zst", "zstd", archive.Zstd, ""},
		{"snap.tar.gz", "", "", "the name says gzip, but export writes plain tar or zstd: name it snap.tar.zst (zstd) or snap.tar"},
		{"snap.tgz", "zstd", "", "the name says gzip"},
		{"snap.tar.xz", "", "", "the name says xz"},
		{"snap.tar", "zstd", "", "--compress zstd with -o snap.tar: the name says plain tar"},
		{"snap.tar.zst", "none", "", "the name says zstd"},
		{"snap.tar", "gzip", "", "unknown compression"},
	} {
		got, err := exportCompression(tc.out, tc.flag)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("-o %q --compress %q: %q, %v; want %q", tc.out, tc.flag, got, err, tc.want)
		case tc.err != "" && (!isUsageError(err) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("-o %q --compress %q: %v, want a usage error containing %q", tc.out, tc.flag, err, tc.err)
		}
	}
}

// TestExportDelta ships an edit as a delta on its parent: refused, naming
// the parent, by a data directory without it; imported after the parent,
// verifying as the full archive's import does, and a fraction of its size.
func TestExportDelta(t *testing.T) {
	vault := copyDemoVault(t)
	dataA, dataB, dataC := t.TempDir(), t.TempDir(), t.TempDir()
	work := t.TempDir()
	id1 := indexID(t, "--vault", vault, "--data", dataA)
	editNote(t, vault, "Projects/Search.md", "status: active", "status: paused")
	id2 := indexID(t, "--vault", vault, "--data", dataA)

	full, delta := filepath.Join(work, "full.tar"), filepath.Join(work, "delta.tar")
	vgOK(t, "snapshot", "export", "--data", dataA, "-o", full, id2)
	r := vgOK(t, "snapshot", "export", "--data", dataA, "--base", id1, "-o", delta, id2)
	if !strings.HasPrefix(r.stdout, "exported "+id2+" as a delta on "+id1) {
		t.Errorf("delta export: %q", r.stdout)
	}
	fi, _ := os.Stat(full)
	di, _ := os.Stat(delta)
	t.Logf("delta %d bytes, full archive %d (%.1f%%)", di.Size(), fi.Size(), 100*float64(di.Size())/float64(fi.Size()))
	if di.Size() >= fi.Size() {
		t.Errorf("the delta (%d bytes) is no smaller than the full archive (%d)", di.Size(), fi.Size())
	}

	if r := vg(t, "snapshot", "import", "--data", dataB, delta); r.code != 1 || !strings.Contains(r.stderr, id1) || !strings.Contains(r.stderr, "import "+id1+" first") {
		t.Fatalf("delta without its base: exit %d: %s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(snapshot.SnapshotsDir(dataB)); len(entries) != 0 {
		t.Fatalf("a refused delta left %d entries", len(entries))
	}
	base := filepath.Join(work, "base.tar")
	vgOK(t, "snapshot", "export", "--data", dataA, "-o", base, id1)
	vgOK(t, "snapshot", "import", "--data", dataB, base)
	if r := vgOK(t, "snapshot", "import", "--data", dataB, delta); !strings.Contains(r.stdout, "imported "+id2) || !regexp.MustCompile(`, [1-9]\d* more files? taken from `+id1).MatchString(r.stdout) {
		t.Errorf("delta import: %q", r.stdout)
	}
	// A delta on the snapshot itself would leave everything out.
	if r := vg(t, "snapshot", "export", "--data", dataA, "--base", id2, "-o", filepath.Join(work, "self.tar"), id2); r.code != 2 || !strings.Contains(r.stderr, "is the snapshot being exported") {
		t.Errorf("export --base itself: exit %d: %s", r.code, r.stderr)
	}
	vgOK(t, "snapshot", "import", "--data", dataC, base)
	vgOK(t, "snapshot", "import", "--data", dataC, full)
	vb := vgOK(t, "snapshot", "verify", "--data", dataB, "--all")
	vc := vgOK(t, "snapshot", "verify", "--data", dataC, "--all")
	if vb.stdout != vc.stdout || strings.Count(vb.stdout, "ok   ") != 2 {
		t.Errorf("after the delta:\n%s\nafter the full archive:\n%s", vb.stdout, vc.stdout)
	}
	q := []string{"query", "MATCH (n:Note) RETURN count(n)"}
	if a, b := vgOK(t, append(q, "--data", dataB)...).stdout, vgOK(t, append(q, "--data", dataC)...).stdout; a != b {
		t.Errorf("queries differ after a delta and a full import: %q, %q", a, b)
	}
}

// /dev/null is a character device but no terminal: export > /dev/null
// was refused as "a terminal" (review5 F16).
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no %s: %v", os.DevNull, err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("%s is taken for a terminal", os.DevNull)
	}
}

// --json output not read at a terminal is one line: an agent reading it
// pays for indentation (review5 F12: retrieve-context --json printed 40%
// over its --max-bytes).
func TestJSONIsCompactForPrograms(t *testing.T) {
	var b strings.Builder
	if err := writeJSON(&b, map[string]any{"a": []int{1, 2}, "b": map[string]string{"c": "d"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), `{"a":[1,2],"b":{"c":"d"}}`+"\n"; got != want {
		t.Errorf("writeJSON wrote %q, want %q", got, want)
	}
}
