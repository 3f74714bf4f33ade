package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/diff"
)

// The tests in this file drive the operating commands (export, import,
// diff, gc, index --watch, schedule) as a user would, with two or three
// data directories standing in for machines.

// vgIn runs vaultgraph with stdin and returns stdout as bytes (archives).
func vgIn(t *testing.T, stdin []byte, args ...string) (stdout []byte, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return out.Bytes(), errb.String(), code
}

var snapshotLine = regexp.MustCompile(`(?m)^snapshot ([0-9A-Z]{26})$`)

// indexID runs index and returns the published snapshot's id.
func indexID(t *testing.T, args ...string) string {
	t.Helper()
	r := vgOK(t, append([]string{"index"}, args...)...)
	m := snapshotLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("index published nothing:\n%s%s", r.stdout, r.stderr)
	}
	return m[1]
}

func listIDs(t *testing.T, data string) []string {
	t.Helper()
	entries, err := snapshot.List(data)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	return ids
}

// dirState lists every path and size under dir except index.lock and
// lease files, to check that a refused command changed nothing.
func dirState(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == format.LockFile || strings.HasPrefix(rel, format.LeasesDir) {
			return nil
		}
		fi, _ := d.Info()
		out = append(out, rel+" "+fi.Mode().String()+" "+strings.Repeat("#", int(fi.Size()%7)))
		return nil
	})
	return out
}

// editNote rewrites a note of the vault with a replacement.
func editNote(t *testing.T, vault, note, old, new string) {
	t.Helper()
	p := filepath.Join(vault, filepath.FromSlash(note))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not contain %q", note, old)
	}
	if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// server is a running `vaultgraph serve`.
type server struct {
	cmd  *exec.Cmd
	addr string
}

func startServer(t *testing.T, data string, env []string, args ...string) *server {
	t.Helper()
	args = append([]string{"serve", "--data", data, "--addr", "127.0.0.1:0", "--graph-memory", "64"}, args...)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`msg=listening addr=(\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case s.addr = <-addr:
	case <-time.After(60 * time.Second):
		t.Fatal("vaultgraph serve did not start listening")
	}
	return s
}

// current returns the snapshot the server serves.
func (s *server) current(t *testing.T) string {
	t.Helper()
	resp, err := http.Get("http://" + s.addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct {
		Snapshot string `json:"snapshot"`
	}
	json.NewDecoder(resp.Body).Decode(&h)
	return h.Snapshot
}

// waitServing waits until the server serves id.
func (s *server) waitServing(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for s.current(t) != id {
		if time.Now().After(deadline) {
			t.Fatalf("server serves %s, not %s, after 60s", s.current(t), id)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestShipSnapshotsBetweenMachines indexes on machine A, ships snapshots to
// machine B (export and import, through stdin and through a zstd file) and
// to machine C (a plain directory copy, verified, renamed into place), with
// a server on B swapping to each import; then diffs across machines and
// garbage-collects B while its server holds an old snapshot.
func TestShipSnapshotsBetweenMachines(t *testing.T) {
	vault := copyDemoVault(t)
	dataA, dataB, dataC := t.TempDir(), t.TempDir(), t.TempDir()
	work := t.TempDir()

	id1 := indexID(t, "--vault", vault, "--data", dataA)
	tar1, stderr, code := vgIn(t, nil, "snapshot", "export", "--data", dataA)
	if code != 0 || !strings.Contains(stderr, "exported "+id1) {
		t.Fatalf("export to stdout: exit %d: %s", code, stderr)
	}
	if out, stderr, code := vgIn(t, tar1, "snapshot", "import", "--data", dataB); code != 0 || !strings.Contains(string(out), "imported "+id1) {
		t.Fatalf("import from stdin: exit %d: %s%s", code, out, stderr)
	}
	srv := startServer(t, dataB, nil)
	srv.waitServing(t, id1)

	// Change the vault: drop a typed edge, add a link to a missing note,
	// change a property; machine A indexes, B imports from a zstd file.
	editNote(t, vault, "Projects/Search.md", "- depends_on:: [[Ranking]]", "- mentions [[Nonexistent Idea]]")
	editNote(t, vault, "Projects/Search.md", "status: active", "status: paused")
	id2 := indexID(t, "--vault", vault, "--data", dataA)
	file2 := filepath.Join(work, "snap2.tar.zst")
	r := vgOK(t, "snapshot", "export", "--data", dataA, "-o", file2, id2)
	b, _ := os.ReadFile(file2)
	if !bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Fatal("-o .tar.zst did not write zstd")
	}
	// Both say how many bytes of archive they wrote and read.
	if want := fmt.Sprintf("as %d bytes of zstd\n", len(b)); !strings.HasPrefix(r.stdout, "exported "+id2+" to "+file2) || !strings.HasSuffix(r.stdout, want) {
		t.Errorf("export -o: %q, want it to end in %q", r.stdout, want)
	}
	if r := vgOK(t, "snapshot", "import", "--data", dataB, file2); !strings.Contains(r.stdout, "imported "+id2) || !strings.HasSuffix(r.stdout, fmt.Sprintf("from %d bytes of zstd\n", len(b))) {
		t.Fatalf("import of a zstd file: %s", r.stdout)
	}
	// A name promising a compression export does not write is refused,
	// and nothing is written under it.
	if r := vg(t, "snapshot", "export", "--data", dataA, "-o", filepath.Join(work, "snap2.tar.gz"), id2); r.code != 2 || !strings.Contains(r.stderr, "export writes plain tar or zstd") {
		t.Errorf("export -o .tar.gz: exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "snap2.tar.gz")); err == nil {
		t.Error("a refused export left a file")
	}
	srv.waitServing(t, id2)
	if r := vgOK(t, "snapshot", "verify", "--data", dataB, "--all"); strings.Count(r.stdout, "ok   ") != 2 {
		t.Errorf("imported snapshots do not verify:\n%s", r.stdout)
	}

	// The same snapshot again is already imported: exit 0, as a job that
	// imports the latest release whether or not it changed needs, with B
	// left as it was; through a pipe too. Another snapshot under the same
	// id is refused.
	before := dirState(t, dataB)
	if r := vg(t, "snapshot", "import", "--data", dataB, file2); r.code != 0 || r.stdout != "" || !strings.HasPrefix(r.stderr, "already imported "+id2) {
		t.Errorf("second import: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if r := vg(t, "snapshot", "import", "--quiet", "--data", dataB, file2); r.code != 0 || r.stdout+r.stderr != "" {
		t.Errorf("second import --quiet: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	plain, _, _ := vgIn(t, nil, "snapshot", "export", "--data", dataA, id2)
	if _, stderr, code := vgIn(t, plain, "snapshot", "import", "--data", dataB); code != 0 || !strings.Contains(stderr, "already imported") {
		t.Errorf("second import from stdin: exit %d: %s", code, stderr)
	}
	otherID := retar(t, plain, func(name string, b []byte) []byte {
		if strings.HasSuffix(name, format.ManifestFile) {
			return bytes.Replace(b, []byte(`"created"`), []byte(`"created" `), 1)
		}
		return b
	})
	if _, stderr, code := vgIn(t, otherID, "snapshot", "import", "--data", dataB); code != 1 || !strings.Contains(stderr, "another snapshot with the same id") {
		t.Errorf("another snapshot under the id: exit %d: %s", code, stderr)
	}
	if after := dirState(t, dataB); !slices.Equal(before, after) {
		t.Errorf("importing a present id changed the data directory")
	}

	// Machine C gets a plain copy (as rsync would make), verified before
	// it is renamed into place.
	incoming := filepath.Join(dataC, "incoming", id2)
	if err := os.CopyFS(incoming, os.DirFS(snapshot.Dir(dataA, id2))); err != nil {
		t.Fatal(err)
	}
	if r := vgOK(t, "snapshot", "verify", incoming); !strings.Contains(r.stdout, "ok   "+id2) {
		t.Errorf("verify of a copied directory: %s", r.stdout)
	}
	os.MkdirAll(snapshot.SnapshotsDir(dataC), 0o755)
	if err := os.Rename(incoming, snapshot.Dir(dataC, id2)); err != nil {
		t.Fatal(err)
	}
	if ids := listIDs(t, dataC); !slices.Equal(ids, []string{id2}) {
		t.Errorf("machine C lists %v", ids)
	}
	// A damaged copy fails verification.
	bad := filepath.Join(work, "bad", id2)
	os.CopyFS(bad, os.DirFS(snapshot.Dir(dataA, id2)))
	flipByte(t, filepath.Join(bad, format.EdgesFile))
	if r := vg(t, "snapshot", "verify", bad); r.code != 1 || !strings.Contains(r.stdout, "sha256 mismatch") {
		t.Errorf("verify of a damaged copy: exit %d: %s", r.code, r.stdout)
	}

	// Diff across machines: B's first snapshot against A's newest.
	r = vgOK(t, "snapshot", "diff", "--data", dataB, "--to-data", dataA, "--format", "json", id1, "latest")
	var rep diff.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("diff --format json: %v\n%s", err, r.stdout)
	}
	if rep.From.ID != id1 || rep.To.ID != id2 ||
		!slices.Equal(rep.Edges.Removed, []diff.Edge{{Type: "depends_on", Source: "Projects/Search.md", Target: "Projects/Ranking.md"}}) ||
		!slices.Equal(rep.Unresolved.Gained, []diff.Edge{{Type: "links_to", Source: "Projects/Search.md", Target: "Nonexistent Idea"}}) ||
		len(rep.Notes.Changed) != 1 || rep.Notes.Changed[0].Note != "Projects/Search.md" {
		t.Errorf("diff report = %+v", rep)
	}
	if ch := rep.Notes.Changed; len(ch) == 1 && !slices.Equal(ch[0].Properties, []diff.PropertyChange{{Key: "status", Change: "changed", Before: "active", After: "paused"}}) {
		t.Errorf("property changes = %+v", ch[0].Properties)
	}
	md := vgOK(t, "snapshot", "diff", "--data", dataB, "--format", "markdown", id1, id2)
	for _, want := range []string{"### vaultgraph snapshot diff", "| edges | 0 | 1 |", "Nonexistent Idea", "property status: active -> paused"} {
		if !strings.Contains(md.stdout, want) {
			t.Errorf("markdown diff lacks %q:\n%s", want, md.stdout)
		}
	}
	// With no arguments diff compares the newest with the one before.
	if r := vgOK(t, "snapshot", "diff", "--data", dataA); !strings.HasPrefix(r.stdout, "snapshot diff "+id1+" -> "+id2+": 1 notes changed, 1 edges removed, 1 unresolved links gained") {
		t.Errorf("text diff: %s", r.stdout)
	}

	// Fail-on gates: exit 3 with the diff printed, 0 when none holds.
	for _, tc := range []struct {
		failOn string
		code   int
	}{{"removed-edges", 3}, {"new-unresolved", 3}, {"new-warnings,model-change", 0}, {"removed-edges,new-warnings", 3}} {
		r := vg(t, "snapshot", "diff", "--data", dataA, "--fail-on", tc.failOn, id1, id2)
		if r.code != tc.code || !strings.HasPrefix(r.stdout, "snapshot diff") {
			t.Errorf("--fail-on %s: exit %d, want %d\n%s%s", tc.failOn, r.code, tc.code, r.stdout, r.stderr)
		}
		if tc.code == 3 && !strings.Contains(r.stderr, "fails --fail-on") {
			t.Errorf("--fail-on %s: stderr %q", tc.failOn, r.stderr)
		}
	}
	// A model change (a copy whose manifest names another model) trips
	// model-change.
	other := filepath.Join(work, "other-model", id2)
	os.CopyFS(other, os.DirFS(snapshot.Dir(dataA, id2)))
	rewriteManifest(t, other, func(m map[string]any) {
		e, _ := m["embedder"].(map[string]any)
		if e == nil {
			e = map[string]any{}
			m["embedder"] = e
		}
		e["provider"], e["model"], e["fingerprint"] = "ollama", "nomic-embed-text", "0000"
	})
	if r := vg(t, "snapshot", "diff", "--data", dataA, "--fail-on", "model-change", id2, other); r.code != 3 || !strings.Contains(r.stdout, "embedding model") {
		t.Errorf("model change: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := vg(t, "snapshot", "diff", "--data", dataA, "--fail-on", "removed-notes"); r.code != 2 {
		t.Errorf("unknown condition: exit %d %s", r.code, r.stderr)
	}

	// gc on B while its server holds an old snapshot. The server is
	// stopped (SIGSTOP) so that it cannot swap to the third snapshot: it
	// keeps its lease on id2, which gc must keep.
	editNote(t, vault, "Projects/Search.md", "status: paused", "status: done")
	id3 := indexID(t, "--vault", vault, "--data", dataA)
	tar3, _, _ := vgIn(t, nil, "snapshot", "export", "--data", dataA, id3)
	waitReleased(t, dataB, id1) // the server let go of id1 when it swapped to id2
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := vgIn(t, tar3, "snapshot", "import", "--data", dataB); code != 0 {
		t.Fatalf("import id3: %s", stderr)
	}
	leftover := filepath.Join(snapshot.SnapshotsDir(dataB), format.TempPrefix+"crashed-run")
	os.MkdirAll(filepath.Join(leftover, "x"), 0o755)
	r = vgOK(t, "snapshot", "gc", "--data", dataB, "--keep", "1")
	for _, want := range []string{"removed " + id1, "kept " + id2 + ": open in a running server", "removed leftover " + filepath.Base(leftover)} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("gc output lacks %q:\n%s", want, r.stdout)
		}
	}
	if ids := listIDs(t, dataB); !slices.Equal(ids, []string{id2, id3}) {
		t.Errorf("after gc B lists %v, want [%s %s]", ids, id2, id3)
	}
	if _, problems, err := snapshot.Verify(snapshot.Dir(dataB, id2)); err != nil || len(problems) > 0 {
		t.Errorf("the leased snapshot was touched: %v %v", err, problems)
	}
	// Resumed, the server swaps to id3 and lets id2 go; the next gc
	// removes it.
	srv.cmd.Process.Signal(syscall.SIGCONT)
	srv.waitServing(t, id3)
	waitReleased(t, dataB, id2)
	if r := vgOK(t, "snapshot", "gc", "--data", dataB, "--keep", "1"); !strings.Contains(r.stdout, "removed "+id2) {
		t.Errorf("gc after the swap: %s", r.stdout)
	}
	if ids := listIDs(t, dataB); !slices.Equal(ids, []string{id3}) {
		t.Errorf("B lists %v, want [%s]", ids, id3)
	}
	if srv.current(t) != id3 {
		t.Errorf("the server stopped serving %s", id3)
	}

	// gc never runs beside an indexer: it exits 75 and removes nothing.
	release, err := snapshot.Lock(context.Background(), dataA, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r := vg(t, "snapshot", "gc", "--data", dataA, "--keep", "1"); r.code != 75 || !strings.Contains(r.stderr, "locked") {
		t.Errorf("gc beside an indexer: exit %d: %s", r.code, r.stderr)
	}
	release()
	if ids := listIDs(t, dataA); len(ids) != 3 {
		t.Errorf("A lists %v after a refused gc", ids)
	}
	if r := vgOK(t, "snapshot", "gc", "--data", dataA, "--keep", "1", "--older-than", "7d"); !strings.Contains(r.stdout, "removed 0 snapshots, kept 3") {
		t.Errorf("gc --older-than 7d of fresh snapshots: %s", r.stdout)
	}
}

func flipByte(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func rewriteManifest(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, format.ManifestFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	// Sealed again as the indexer would (the manifest's own checksum):
	// the edit stands for a snapshot written that way, not a damaged one.
	b, _ = json.Marshal(m)
	var sealed format.Manifest
	if err := json.Unmarshal(b, &sealed); err != nil {
		t.Fatal(err)
	}
	b, err = sealed.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// retar rewrites an archive's entries.
func retar(t *testing.T, archive []byte, edit func(name string, body []byte) []byte) []byte {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(archive))
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		body = edit(hdr.Name, body)
		hdr.Size = int64(len(body))
		tw.WriteHeader(hdr)
		tw.Write(body)
	}
	tw.Close()
	return out.Bytes()
}

// TestImportRefusesDamagedArchives imports damaged archives into a data
// directory that already holds a snapshot: each is refused with exit 1 and
// a message saying why, and the directory is left exactly as it was.
func TestImportRefusesDamagedArchives(t *testing.T) {
	vault := copyDemoVault(t)
	dataA, dataB := t.TempDir(), t.TempDir()
	indexID(t, "--vault", vault, "--data", dataA, "--graph=false")
	editNote(t, vault, "People/Bob.md", "role: engineer", "role: staff engineer")
	indexID(t, "--vault", vault, "--data", dataA, "--graph=false")
	good, _, _ := vgIn(t, nil, "snapshot", "export", "--data", dataA)
	first, _, _ := vgIn(t, nil, "snapshot", "export", "--data", dataA, listIDs(t, dataA)[0])
	if _, stderr, code := vgIn(t, first, "snapshot", "import", "--data", dataB); code != 0 {
		t.Fatal(stderr)
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)*2/3] ^= 0x10
	cases := map[string]struct {
		archive []byte
		want    string
	}{
		"flipped byte":  {flipped, "corrupt snapshot archive"},
		"truncated tar": {good[:len(good)/2], "truncated"},
		"unknown format version": {retar(t, good, func(name string, b []byte) []byte {
			return bytes.Replace(b, fmt.Appendf(nil, `"format_version":%d`, format.Version), []byte(`"format_version": 99`), 1)
		}), "unknown snapshot format version 99"},
		"not an archive": {[]byte("just some text, not a tar at all"), "corrupt snapshot archive"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := dirState(t, dataB)
			_, stderr, code := vgIn(t, tc.archive, "snapshot", "import", "--data", dataB)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, stderr, tc.want)
			}
			if after := dirState(t, dataB); !slices.Equal(before, after) {
				t.Errorf("the data directory changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
	// The intact archive still imports after all that.
	if _, stderr, code := vgIn(t, good, "snapshot", "import", "--data", dataB); code != 0 {
		t.Errorf("intact archive: %s", stderr)
	}
}

// TestIndexWatch runs `vaultgraph index --watch` (file system events, and
// polling) and waits for an edit, a new folder's note and an edit inside
// that folder to reach snapshots.
func TestIndexWatch(t *testing.T) {
	for _, mode := range [][]string{{"--watch", "--debounce", "100ms"}, {"--poll", "300ms", "--debounce", "50ms"}} {
		t.Run(mode[0], func(t *testing.T) {
			vault, data := copyDemoVault(t), t.TempDir()
			args := append([]string{"index", "--vault", vault, "--data", data, "--graph=false"}, mode...)
			cmd := exec.Command(binary, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				if cmd.ProcessState == nil {
					cmd.Process.Kill()
				}
			}()
			waitNote := func(what, note string, ok func(format.NoteSignature, bool) bool) {
				t.Helper()
				deadline := time.Now().Add(60 * time.Second)
				for time.Now().Before(deadline) {
					if s, err := snapshot.Resolve(data, "latest"); err == nil {
						if sn, err := snapshot.Open(s.Dir, snapshot.OpenOptions{}); err == nil {
							sig, found := sn.Manifest.Notes[note]
							if ok(sig, found) {
								return
							}
						}
					}
					select {
					case err := <-exited:
						t.Fatalf("watch exited (%v) waiting for %s:\n%s%s", err, what, stdout.String(), stderr.String())
					case <-time.After(50 * time.Millisecond):
					}
				}
				t.Fatalf("no snapshot with %s within 60s:\n%s", what, stderr.String())
			}
			hasSHA := func(p string) func(format.NoteSignature, bool) bool {
				b, _ := os.ReadFile(p)
				want := format.TextHash(string(b))
				return func(s format.NoteSignature, ok bool) bool { return ok && s.SHA256 == want }
			}
			waitNote("the first snapshot", "People/Bob.md", func(_ format.NoteSignature, ok bool) bool { return ok })
			editNote(t, vault, "People/Bob.md", "role: engineer", "role: staff engineer")
			waitNote("the edit", "People/Bob.md", hasSHA(filepath.Join(vault, "People", "Bob.md")))

			fresh := filepath.Join(vault, "Areas", "Hiring", "Plan.md")
			os.MkdirAll(filepath.Dir(fresh), 0o755)
			os.WriteFile(fresh, []byte("# Plan\n\nHire with [[Bob]].\n"), 0o644)
			waitNote("the new folder's note", "Areas/Hiring/Plan.md", hasSHA(fresh))
			time.Sleep(20 * time.Millisecond)
			os.WriteFile(fresh, []byte("# Plan\n\nHire with [[Bob]] and [[Alice]].\n"), 0o644)
			waitNote("the edit in the new folder", "Areas/Hiring/Plan.md", hasSHA(fresh))

			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("watch after SIGTERM: %v\n%s", err, stderr.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatal("watch did not stop on SIGTERM")
			}
			if n := len(snapshotLine.FindAllString(stdout.String(), -1)); n < 4 {
				t.Errorf("watch printed %d snapshots, want at least 4:\n%s", n, stdout.String())
			}
		})
	}
}

func TestSchedule(t *testing.T) {
	vault, data, out := copyDemoVault(t), t.TempDir(), t.TempDir()
	r := vgOK(t, "schedule", "systemd", "--vault", vault, "--data", data, "--every", "30m", "--env", "VAULTGRAPH_EMBEDDER=builtin", "--out", out, "--", "--ignore", "Templates/")
	if !strings.Contains(r.stdout, "vaultgraph-index.service") || !strings.Contains(r.stdout, "vaultgraph-index.timer") {
		t.Errorf("schedule systemd --out: %s", r.stdout)
	}
	service, _ := os.ReadFile(filepath.Join(out, "vaultgraph-index.service"))
	timer, _ := os.ReadFile(filepath.Join(out, "vaultgraph-index.timer"))
	bin, _ := filepath.Abs(binary)
	for _, want := range []string{"ExecStart=" + bin + " --log-level warn index --vault " + vault + " --data " + data + " --quiet --wait 0s --ignore Templates/",
		"Type=oneshot", "Nice=19", "IOSchedulingClass=idle", "SuccessExitStatus=75", "Environment=VAULTGRAPH_EMBEDDER=builtin"} {
		if !strings.Contains(string(service), want) {
			t.Errorf("service lacks %q:\n%s", want, service)
		}
	}
	if !strings.Contains(string(timer), "OnUnitInactiveSec=30min") || !strings.Contains(string(timer), "WantedBy=timers.target") {
		t.Errorf("timer:\n%s", timer)
	}
	if sa, err := exec.LookPath("systemd-analyze"); err == nil {
		cmd := exec.Command(sa, "verify", filepath.Join(out, "vaultgraph-index.service"), filepath.Join(out, "vaultgraph-index.timer"))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("systemd-analyze verify: %v\n%s", err, b)
		}
	} else {
		t.Log("systemd-analyze not installed; checked the units' structure only")
	}
	// Printed, the two units follow each other.
	if r := vgOK(t, "schedule", "systemd", "--vault", vault, "--data", data); strings.Count(r.stdout, "[Unit]") != 2 {
		t.Errorf("schedule systemd printed:\n%s", r.stdout)
	}

	r = vgOK(t, "schedule", "launchd", "--vault", vault, "--data", data, "--every", "1h", "--log", filepath.Join(out, "index.log"))
	var plist struct {
		XMLName xml.Name `xml:"plist"`
		Dict    struct {
			Keys   []string `xml:"key"`
			Arrays []struct {
				Strings []string `xml:"string"`
			} `xml:"array"`
			Integers []int `xml:"integer"`
		} `xml:"dict"`
	}
	dec := xml.NewDecoder(strings.NewReader(r.stdout))
	dec.Strict = true
	if err := dec.Decode(&plist); err != nil {
		t.Fatalf("launchd plist is not well-formed: %v\n%s", err, r.stdout)
	}
	for _, k := range []string{"Label", "ProgramArguments", "StartInterval", "RunAtLoad", "LowPriorityIO", "Nice", "StandardErrorPath"} {
		if !slices.Contains(plist.Dict.Keys, k) {
			t.Errorf("plist lacks %s:\n%s", k, r.stdout)
		}
	}
	if len(plist.Dict.Arrays) != 1 || plist.Dict.Arrays[0].Strings[0] != bin || !slices.Contains(plist.Dict.Arrays[0].Strings, "--quiet") {
		t.Errorf("ProgramArguments = %+v", plist.Dict.Arrays)
	}
	if !slices.Contains(plist.Dict.Integers, 3600) {
		t.Errorf("StartInterval is not 3600: %v", plist.Dict.Integers)
	}
	if r := vg(t, "schedule", "systemd", "--vault", vault, "--data", data, "--every", "10s"); r.code != 2 {
		t.Errorf("--every 10s: exit %d %s", r.code, r.stderr)
	}
	// A data directory inside the vault, which every run would refuse.
	if r := vg(t, "schedule", "systemd", "--vault", vault, "--data", filepath.Join(vault, ".vaultgraph")); r.code != 2 ||
		!strings.Contains(r.stderr, "inside the vault") {
		t.Errorf("--data inside the vault: exit %d %s", r.code, r.stderr)
	}
	// Index options the unit's runs would refuse are refused now, and so
	// are a watch (it never ends, so the timer never starts it again) and
	// options the unit sets itself; nothing is written.
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"Templates/"}, "index options after --"},
		{[]string{"--ignored", "x"}, "index options after --"},
		{[]string{"--graph", "false"}, "index options after --"},
		{[]string{"--watch"}, "index options after --: --watch: a watch never ends"},
		{[]string{"--poll", "30s"}, "Restart=on-failure"},
		{[]string{"--vault", "/tmp"}, "index options after --: --vault: the unit already"},
		{[]string{"--data", data}, "index options after --: --data: the unit already"},
		{[]string{"--chunk-chars", "0"}, "index options after --: --chunk-chars must be at least 1, not 0"},
		{[]string{"--embedder", "nonsense"}, `unknown embedder "nonsense"`},
	} {
		dir := t.TempDir()
		args := append([]string{"schedule", "systemd", "--vault", vault, "--data", data, "--out", dir, "--"}, tc.extra...)
		if r := vg(t, args...); r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("schedule systemd -- %s: exit %d %s", strings.Join(tc.extra, " "), r.code, r.stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("schedule systemd -- %s wrote %v", strings.Join(tc.extra, " "), entries)
		}
	}
	// --log-level, which index takes anywhere, goes where the app reads it.
	r = vgOK(t, "schedule", "systemd", "--vault", vault, "--data", data, "--", "--log-level", "debug", "--full")
	if want := "ExecStart=" + bin + " --log-level debug index --vault " + vault + " --data " + data + " --quiet --wait 0s --full\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("-- --log-level debug: want %q in\n%s", want, r.stdout)
	}
	// A vault that is not there fails every run: refused, and a quoted ~
	// is named as the reason.
	if r := vg(t, "schedule", "systemd", "--vault", "~/Vault", "--data", data); r.code != 2 || !strings.Contains(r.stderr, `~ is not expanded when quoted or after =: write --vault "$HOME/Vault"`) {
		t.Errorf("--vault '~/Vault': exit %d %s", r.code, r.stderr)
	}
	// --name may be the unit's file name.
	named := t.TempDir()
	vgOK(t, "schedule", "systemd", "--vault", vault, "--data", data, "--name", "notes-index.service", "--out", named)
	if entries, _ := os.ReadDir(named); len(entries) != 2 || entries[0].Name() != "notes-index.service" || entries[1].Name() != "notes-index.timer" {
		t.Errorf("--name notes-index.service wrote %v", entries)
	}
	// Values of --env: systemd shows them to every user whatever the
	// file's mode, so schedule points to --env-file; a launchd agent is
	// written readable by its user only.
	r = vgOK(t, "schedule", "systemd", "--vault", vault, "--data", data, "--env", "API_TOKEN=s3cret", "--out", t.TempDir())
	if !strings.Contains(r.stderr, "warning: vaultgraph-index.service holds the values of --env API_TOKEN") || !strings.Contains(r.stderr, "--env-file") {
		t.Errorf("systemd --env: stderr %q", r.stderr)
	}
	agents := t.TempDir()
	vgOK(t, "schedule", "launchd", "--vault", vault, "--data", data, "--env", "API_TOKEN=s3cret", "--log", filepath.Join(out, "index.log"), "--out", agents)
	if fi, err := os.Stat(filepath.Join(agents, "com.github.vaultgraph.index.plist")); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Errorf("launchd --env --out wrote mode %v, want 0600", fi.Mode())
	}
}

// waitReleased waits until no process holds a lease on snapshot id.
func waitReleased(t *testing.T, data, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		used, err := snapshot.InUse(data, id)
		if err != nil {
			t.Fatal(err)
		}
		if !used {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("snapshot %s still leased after 30s", id)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
