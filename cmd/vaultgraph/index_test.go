package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

func TestIndexThenUnchanged(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	first := vgOK(t, "index", "--vault", vault, "--data", data)
	m := regexp.MustCompile(`(?m)^snapshot ([0-9A-Z]{26})$`).FindStringSubmatch(first.stdout)
	if m == nil {
		t.Fatalf("index printed no snapshot id:\n%s", first.stdout)
	}
	id := m[1]
	second := vgOK(t, "index", "--vault", vault, "--data", data)
	if second.stdout != "" {
		t.Errorf("unchanged run printed on stdout: %q", second.stdout)
	}
	if !strings.Contains(second.stderr, "unchanged "+id) {
		t.Errorf("unchanged run stderr = %q, want %q", second.stderr, "unchanged "+id)
	}
	if q := vgOK(t, "index", "--quiet", "--vault", vault, "--data", data); q.stdout != "" || q.stderr != "" {
		t.Errorf("--quiet printed %q %q", q.stdout, q.stderr)
	}

	list := vgOK(t, "snapshot", "list", "--data", data)
	if !strings.Contains(list.stdout, id) {
		t.Errorf("snapshot list does not show %s:\n%s", id, list.stdout)
	}
	show := vgOK(t, "snapshot", "show", "--data", data)
	for _, want := range []string{id, format.NotesFile, format.EdgesFile, format.ChunksFile} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("snapshot show lacks %q:\n%s", want, show.stdout)
		}
	}
	if v := vgOK(t, "snapshot", "verify", "--data", data, id[:10]); !strings.Contains(v.stdout, "ok   "+id) {
		t.Errorf("verify: %s", v.stdout)
	}

	// One flipped byte must fail verification with a non-zero exit.
	p := filepath.Join(snapshot.Dir(data, id), format.EdgesFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	v := vg(t, "snapshot", "verify", "--data", data)
	if v.code != 1 || !strings.Contains(v.stdout, "FAIL "+id) || !strings.Contains(v.stdout, format.EdgesFile+": sha256 mismatch") {
		t.Errorf("verify of a damaged snapshot: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	// snapshot list checks more than sizes: the flipped byte is not ok.
	list = vgOK(t, "snapshot", "list", "--data", data)
	if !strings.Contains(list.stdout, format.EdgesFile+": xxh64 mismatch") || strings.Contains(list.stdout, " ok") {
		t.Errorf("snapshot list of a damaged snapshot:\n%s", list.stdout)
	}
}

// TestIndexQuietAndLocked: --quiet prints nothing and logs warnings only
// (unless --log-level says otherwise); a run finding another indexer exits
// 75 and says so: as an error with what to do, or, quiet (as the
// scheduled units run it), as one line saying the run was skipped.
func TestIndexQuietAndLocked(t *testing.T) {
	vault, data := copyDemoVault(t), t.TempDir()
	if r := vgOK(t, "index", "--vault", vault, "--data", data, "--graph=false", "--quiet"); r.stdout != "" || r.stderr != "" {
		t.Errorf("index --quiet printed %q %q", r.stdout, r.stderr)
	}
	editNote(t, vault, "People/Bob.md", "role: engineer", "role: staff engineer")
	if r := vgOK(t, "--log-level", "info", "index", "--vault", vault, "--data", data, "--graph=false", "--quiet"); r.stdout != "" || !strings.Contains(r.stderr, `level=INFO msg="published snapshot"`) {
		t.Errorf("--log-level info index --quiet printed %q %q", r.stdout, r.stderr)
	}

	release, err := snapshot.Lock(context.Background(), data, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	lock := filepath.Join(data, format.LockFile)
	for _, tc := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"--quiet"}, "vaultgraph: skipped: another indexer (a watch, a manual or scheduled run) holds " + lock + "; nothing was done, the next run catches up\n", "--wait"},
		{nil, "vaultgraph: data directory is locked by another indexer (" + lock + ", held by pid", "after waiting"},
		{[]string{"--wait", "100ms"}, "): still held after waiting 100ms; pass a longer --wait", "wait for it"},
	} {
		r := vg(t, append([]string{"index", "--vault", vault, "--data", data, "--graph=false"}, tc.args...)...)
		if r.code != 75 || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, tc.not) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("index %v beside another indexer: exit %d, stderr %q; want 75 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestIndexUsageErrors(t *testing.T) {
	r := vg(t, "index", "--data", t.TempDir())
	if r.code == 0 || !strings.Contains(r.stderr, "vault") {
		t.Errorf("index without --vault: exit %d, stderr %q", r.code, r.stderr)
	}
	r = vg(t, "index", "--vault", filepath.Join(t.TempDir(), "nope"), "--data", t.TempDir())
	if r.code != 1 || !strings.Contains(r.stderr, "open vault") {
		t.Errorf("missing vault: exit %d, stderr %q", r.code, r.stderr)
	}
	r = vg(t, "snapshot", "show", "--data", t.TempDir())
	if r.code != 1 || !strings.Contains(r.stderr, "run vaultgraph index first") {
		t.Errorf("show on an empty data dir: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestDemo(t *testing.T) {
	data := t.TempDir()
	r := vgOK(t, "demo", "--vault", repoPath("testdata/demo-vault"), "--data", data)
	for _, want := range []string{"Indexed", "labels", "Person", "edge types", "funds", "Acme (Company) funds Search (Project) - amount 250000, currency EUR"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, r.stdout)
		}
	}
	// The paraphrase: the default embedder finds the September review
	// first, the lexical one does not.
	const review = "1. 2024-09-12 Search Review  (Meetings/2024/2024-09-12 Search Review.md"
	if !strings.Contains(r.stdout, demoParaphrase) || !strings.Contains(r.stdout, review) {
		t.Errorf("demo output lacks the paraphrase's answer:\n%s", r.stdout)
	}
	again := vgOK(t, "demo", "--vault", repoPath("testdata/demo-vault"), "--data", data)
	if !strings.Contains(again.stdout, "unchanged") || !strings.Contains(again.stdout, review) {
		t.Errorf("second demo run did not say the vault is unchanged:\n%s", again.stdout)
	}
	lexical := vgOK(t, "demo", "--vault", repoPath("testdata/demo-vault"), "--data", t.TempDir(), "--embedder", "lexical", "--graph=false")
	if !strings.Contains(lexical.stdout, "with lexical vectors") || strings.Contains(lexical.stdout, review) {
		t.Errorf("with the lexical embedder:\n%s", lexical.stdout)
	}
}

// copyDemoVault copies the demo vault so tests can edit it.
func copyDemoVault(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(repoPath("testdata/demo-vault"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// treeOf lists every path under dir with its size, to show that a command
// wrote nothing there.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d", p, info.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIndexRefusesSwappedDirs runs index with --vault and --data swapped,
// both ways the mistake shows (a data directory that holds notes, a vault
// that holds snapshots): exit 2, and nothing is written to either.
func TestIndexRefusesSwappedDirs(t *testing.T) {
	vault, data := copyDemoVault(t), t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", data)
	beforeVault, beforeData := treeOf(t, vault), treeOf(t, data)
	for _, args := range [][]string{
		{"index", "--vault", data, "--data", vault},
		{"index", "--vault", data, "--data", t.TempDir()},
		{"index", "--vault", t.TempDir(), "--data", vault},
		{"index", "--watch", "--vault", data, "--data", vault},
	} {
		r := vg(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "swapped") {
			t.Errorf("%v: exit %d, stderr %q; want 2 saying the directories look swapped", args, r.code, r.stderr)
		}
	}
	if after := treeOf(t, vault); !slices.Equal(after, beforeVault) {
		t.Errorf("the vault changed:\n%v\n%v", beforeVault, after)
	}
	if after := treeOf(t, data); !slices.Equal(after, beforeData) {
		t.Errorf("the data directory changed:\n%v\n%v", beforeData, after)
	}
}

// TestIndexWarnsOnEmptiedVault indexes a vault, empties it and indexes
// again: the run publishes but warns that 0 notes replace many.
func TestIndexWarnsOnEmptiedVault(t *testing.T) {
	vault, data := copyDemoVault(t), t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", data)
	// The same folder, emptied (a vault not mounted looks like this).
	if err := os.RemoveAll(vault); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(vault, 0o755); err != nil {
		t.Fatal(err)
	}
	r := vgOK(t, "index", "--vault", vault, "--data", data)
	if !strings.Contains(r.stderr, "0 notes over one with many") {
		t.Errorf("no warning for an emptied vault: %q", r.stderr)
	}
}

// TestIndexBadEmbedderIsUsage checks that an --embedder value naming no
// embedder is a usage error (exit 2), as the README promises.
func TestIndexBadEmbedderIsUsage(t *testing.T) {
	data := t.TempDir()
	r := vg(t, "index", "--embedder", "nonsense", "--vault", repoPath("testdata/demo-vault"), "--data", data)
	if r.code != 2 || !strings.Contains(r.stderr, "unknown embedder") {
		t.Errorf("--embedder nonsense: exit %d, stderr %q", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("--embedder nonsense wrote %v", entries)
	}
}

// TestOneShotHeap: only an incremental one-shot run lets the heap grow
// between collections (GOGC=400); a first run, a --full run and a run
// with GOGC in the environment keep the runtime's default.
func TestOneShotHeap(t *testing.T) {
	vault, data := copyDemoVault(t), t.TempDir()
	const says = "an incremental run: the heap grows"
	run := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, append([]string{"--log-level", "debug", "index", "--vault", vault, "--data", data}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("index %v: %v\n%s", args, err, errb.String())
		}
		return errb.String()
	}
	edit := func(i int) {
		f, err := os.OpenFile(filepath.Join(vault, "Projects", "Search.md"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "\nEdit %d.\n", i)
		f.Close()
	}
	if strings.Contains(run(nil), says) {
		t.Error("a first run raised GOGC")
	}
	edit(1)
	if !strings.Contains(run(nil), says) {
		t.Error("an incremental run kept the default GOGC")
	}
	edit(2)
	if strings.Contains(run(nil, "--full"), says) {
		t.Error("a --full run raised GOGC")
	}
	edit(3)
	if strings.Contains(run([]string{"GOGC=100"}), says) {
		t.Error("GOGC in the environment was overridden")
	}
}
