package doctor_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/doctor"
	"github.com/vaultgraph/vaultgraph/indexer/schedule"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
)

// writeVault writes notes (path -> text) into a new vault folder.
func writeVault(t *testing.T, notes map[string]string) string {
	t.Helper()
	vault := t.TempDir()
	for p, text := range notes {
		full := filepath.Join(vault, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return vault
}

var demoNotes = map[string]string{
	"Projects/Search.md":  "---\ntype: Project\n---\n# Search\n\ndepends_on:: [[Crawler]]\n\nThe search project ranks notes.\n",
	"Projects/Crawler.md": "---\ntype: Project\n---\n# Crawler\n\nFetches pages for [[Search]].\n",
	"People/Ann.md":       "---\ntype: Person\n---\nAnn works on [[Search]].\n",
}

// index publishes a snapshot of vault into data with the builtin embedder
// (or e) and returns its id.
func index(t *testing.T, vault, data string, e embed.Embedder) string {
	t.Helper()
	if e == nil {
		e = embed.NewBuiltin()
	}
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data,
		Stages: []indexer.Stage{&indexer.EmbedStage{Embedder: e}}})
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

// offline is a Config whose server check asks a port nothing listens on
// and whose unit directories are empty folders of the test.
func offline(t *testing.T, data, vault string) doctor.Config {
	home := t.TempDir()
	return doctor.Config{Data: data, Vault: vault, Server: closedURL(t), Home: home,
		ConfigHome: filepath.Join(home, ".config"), SystemUnitDir: t.TempDir(), Binary: "/usr/local/bin/vaultgraph"}
}

// closedURL is the URL of a loopback port that was just closed.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func check(t *testing.T, r doctor.Report, name string) doctor.Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s check in %+v", name, r.Checks)
	return doctor.Check{}
}

func expect(t *testing.T, r doctor.Report, name string, want doctor.Status, words ...string) doctor.Check {
	t.Helper()
	c := check(t, r, name)
	all := c.Summary + "\n" + c.Fix + "\n" + strings.Join(c.Details, "\n")
	if c.Status != want {
		t.Errorf("%s: status %s, want %s: %s", name, c.Status, want, all)
	}
	for _, w := range words {
		if !strings.Contains(all, w) {
			t.Errorf("%s: %q missing from %s", name, w, all)
		}
	}
	return c
}

func TestHealthyInstall(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := filepath.Join(t.TempDir(), "data")
	id := index(t, vault, data, nil)
	cfg := offline(t, data, "")
	cfg.Server = ""
	cfg.HTTP = &http.Client{Transport: refuse{}}
	r := doctor.Run(context.Background(), cfg)
	if !r.OK {
		t.Fatalf("healthy install reported a failure: %+v", r.Checks)
	}
	if r.Vault != vault {
		t.Errorf("vault %q, want the one the snapshot records, %q", r.Vault, vault)
	}
	var names []string
	for _, c := range r.Checks {
		names = append(names, c.Name)
	}
	want := []string{"vault", "data", "space", "lock", "snapshot", "warnings", "pending", "embedder", "schedule", "server", "mcp"}
	if !slices.Equal(names, want) {
		t.Errorf("checks %v, want %v", names, want)
	}
	expect(t, r, "vault", doctor.OK, "3 notes")
	expect(t, r, "snapshot", doctor.OK, id, "verifies")
	expect(t, r, "warnings", doctor.OK)
	expect(t, r, "pending", doctor.OK)
	expect(t, r, "embedder", doctor.OK, "builtin")
	expect(t, r, "lock", doctor.OK, "free")
	expect(t, r, "schedule", doctor.Info, "vaultgraph schedule")
	expect(t, r, "server", doctor.Info, "no server answers")
	expect(t, r, "mcp", doctor.Info, "claude mcp add vaultgraph -- /usr/local/bin/vaultgraph serve --stdio --data "+data)
}

// refuse is a transport for which nothing listens anywhere.
type refuse struct{}

func (refuse) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("connection refused")
}

func TestNoSnapshotYet(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := filepath.Join(t.TempDir(), "data")
	r := doctor.Run(context.Background(), offline(t, data, vault))
	if r.OK {
		t.Fatal("a data directory without a snapshot passed")
	}
	expect(t, r, "data", doctor.Info, "does not exist yet")
	expect(t, r, "snapshot", doctor.Fail, "no snapshot yet", "vaultgraph index")
	if _, err := os.Stat(data); err == nil {
		t.Error("doctor created the data directory")
	}
}

func TestVaultAndDataSwapped(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := t.TempDir()
	index(t, vault, data, nil)
	r := doctor.Run(context.Background(), offline(t, vault, data))
	expect(t, r, "vault", doctor.Fail, "data directory, not a vault", "swapped")
	expect(t, r, "data", doctor.Fail, "looks like a vault", "swapped")

	inner := filepath.Join(vault, "Projects", "data")
	r = doctor.Run(context.Background(), offline(t, inner, vault))
	expect(t, r, "vault", doctor.Fail, "inside the vault")

	r = doctor.Run(context.Background(), offline(t, data, filepath.Join(vault, "nope")))
	expect(t, r, "vault", doctor.Fail, "does not exist")
}

func TestDamagedSnapshots(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := t.TempDir()
	first := index(t, vault, data, nil)
	if err := os.WriteFile(filepath.Join(vault, "People", "Bob.md"), []byte("Bob reviews [[Search]].\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := index(t, vault, data, nil)
	if err := os.WriteFile(filepath.Join(vault, "People", "Cy.md"), []byte("Cy.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	third := index(t, vault, data, nil)

	// A flipped byte keeps the size: only a checksum finds it.
	p := filepath.Join(snapshot.Dir(data, third), "nodes.parquet")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// An older one loses a file.
	if err := os.Remove(filepath.Join(snapshot.Dir(data, first), "edges.parquet")); err != nil {
		t.Fatal(err)
	}
	r := doctor.Run(context.Background(), offline(t, data, vault))
	if r.OK {
		t.Fatal("a damaged newest snapshot passed")
	}
	expect(t, r, "snapshot", doctor.Fail, third, "damaged", "nodes.parquet: sha256 mismatch", "keep serving "+second, first)
}

func TestWarningsAndPendingVectors(t *testing.T) {
	vault := writeVault(t, demoNotes)
	for i := range 4 {
		p := filepath.Join(vault, "Broken", "Bad"+strconv.Itoa(i)+".md")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("---\ntitle: [unclosed\n---\ntext\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := embedtest.NewOllama(t)
	srv.Fail(embedtest.Status500, -1)
	e, err := embed.New("ollama:nomic-embed-text", embed.Config{OllamaHost: srv.URL(), Attempts: 1, RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	index(t, vault, data, e)
	r := doctor.Run(context.Background(), offline(t, data, vault))
	w := expect(t, r, "warnings", doctor.Warn, "4 warnings", "and 1 more")
	if len(w.Details) != 1 {
		t.Errorf("warnings of one kind in %d groups: %v", len(w.Details), w.Details)
	}
	expect(t, r, "pending", doctor.Warn, "no vector yet", "vaultgraph index")
	// The server still fails: the embedder check says so.
	cfg := offline(t, data, vault)
	cfg.Embed = embed.Config{OllamaHost: srv.URL()}
	r = doctor.Run(context.Background(), cfg)
	expect(t, r, "embedder", doctor.Fail, "ollama:nomic-embed-text", srv.URL())
}

func TestEmbedder(t *testing.T) {
	vault := writeVault(t, demoNotes)
	srv := embedtest.NewOllama(t)
	e, err := embed.New("ollama:nomic-embed-text", embed.Config{OllamaHost: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	index(t, vault, data, e)
	cfg := offline(t, data, vault)
	cfg.Embed = embed.Config{OllamaHost: srv.URL()}

	r := doctor.Run(context.Background(), cfg)
	expect(t, r, "embedder", doctor.OK, "answers", "dimensions", "digest")

	// New weights under the same name (ollama pull).
	srv.SetDigest("nomic-embed-text:latest", embedtest.Digest("newer weights"))
	r = doctor.Run(context.Background(), cfg)
	expect(t, r, "embedder", doctor.Fail, "other weights", "--reembed")

	// A server without the model.
	other := embedtest.NewOllama(t, "all-minilm:latest")
	cfg.Embed = embed.Config{OllamaHost: other.URL()}
	r = doctor.Run(context.Background(), cfg)
	expect(t, r, "embedder", doctor.Fail, "does not answer")

	// Nothing listens.
	cfg.Embed = embed.Config{OllamaHost: strings.TrimPrefix(closedURL(t), "http://")}
	r = doctor.Run(context.Background(), cfg)
	expect(t, r, "embedder", doctor.Fail, "does not answer", "start the model server")
}

func TestLockHolder(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := t.TempDir()
	index(t, vault, data, nil)
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("no /proc/locks on this system: the lock check says it cannot tell, tested nowhere else")
	}
	// A stale pid: a process that has exited.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "index.lock"), []byte(strconv.Itoa(gone.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := doctor.Run(context.Background(), offline(t, data, vault))
	expect(t, r, "lock", doctor.OK, "stale", strconv.Itoa(gone.Process.Pid))

	release, err := snapshot.Lock(context.Background(), data, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	r = doctor.Run(context.Background(), offline(t, data, vault))
	expect(t, r, "lock", doctor.OK, "held by pid "+strconv.Itoa(os.Getpid()))
	// The doctor never takes the lock: an indexer starting now is not
	// refused because of it (the holder is this test, so try from a
	// second descriptor after the doctor ran: still ours alone).
	if _, err := snapshot.Lock(context.Background(), data, 0); !errors.Is(err, snapshot.ErrLocked) {
		t.Errorf("second lock: %v, want ErrLocked", err)
	}
}

func TestSpace(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := t.TempDir()
	index(t, vault, data, nil)
	for _, tc := range []struct {
		free  uint64
		want  doctor.Status
		words string
	}{
		{1 << 40, doctor.OK, "free"},
		{1 << 10, doctor.Fail, "cannot publish"},
	} {
		cfg := offline(t, data, vault)
		cfg.FreeSpace = func(string) (uint64, error) { return tc.free, nil }
		expect(t, doctor.Run(context.Background(), cfg), "space", tc.want, tc.words)
	}
}

// TestFullDiskForReal puts a data directory on a tmpfs with room for the
// snapshot it holds and half another.
func TestFullDiskForReal(t *testing.T) {
	vault := writeVault(t, demoNotes)
	built := t.TempDir()
	id := index(t, vault, built, nil)
	paged, raw := pagedSize(t, built)
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size="+strconv.FormatInt(paged+raw/2, 10)); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): TestSpace covers the check with a given free-space figure", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, 0) })
	data := filepath.Join(mnt, "data")
	if err := os.CopyFS(data, os.DirFS(built)); err != nil {
		t.Fatal(err)
	}
	// Now that the copy is in, leave exactly half a snapshot free: what
	// the copy took is not what paged estimates (a directory takes no data
	// page), and the margin moved with every change of the snapshot's size.
	var st syscall.Statfs_t
	if err := syscall.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	used := int64(st.Blocks-st.Bfree) * st.Bsize
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT, "size="+strconv.FormatInt(used+raw/2, 10)); err != nil {
		t.Fatalf("resize the tmpfs: %v", err)
	}
	r := doctor.Run(context.Background(), offline(t, data, vault))
	expect(t, r, "space", doctor.Fail, "cannot publish")
	expect(t, r, "snapshot", doctor.OK, id)

	// Read-only: the data directory cannot be written, even by root.
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	r = doctor.Run(context.Background(), offline(t, data, vault))
	expect(t, r, "data", doctor.Fail, "cannot be written")
}

// TestSnapshotsFolderNotWritable: the data directory's top may be written
// but its snapshots folder not (a read-only mount over it stands in for a
// wrong owner, which root would not notice): the doctor says so before an
// index run fails on it (review5 F15).
func TestSnapshotsFolderNotWritable(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := t.TempDir()
	index(t, vault, data, nil)
	snaps := snapshot.SnapshotsDir(data)
	if err := syscall.Mount("tmpfs", snaps, "tmpfs", syscall.MS_RDONLY, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the data check is covered by TestFullDiskForReal's read-only case", err)
	}
	t.Cleanup(func() { syscall.Unmount(snaps, 0) })
	expect(t, doctor.Run(context.Background(), offline(t, data, vault)), "data", doctor.Fail, snaps+" cannot be written")
}

// pagedSize is what dir takes on a tmpfs (every file and folder rounded
// up to whole pages) and the sum of its files' sizes.
func pagedSize(t *testing.T, dir string) (paged, raw int64) {
	page := int64(os.Getpagesize())
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil {
			paged += (fi.Size()+page-1)/page*page + page
			raw += fi.Size()
		}
		return nil
	})
	return paged, raw
}

func TestSchedule(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := t.TempDir()
	index(t, vault, data, nil)
	job := schedule.Job{Name: "vaultgraph-index", Description: "vaultgraph: re-index " + vault,
		Command: []string{"/opt/vault graph/vaultgraph", "--log-level", "warn", "index", "--vault", vault, "--data", data, "--quiet"},
		Every:   15 * time.Minute}
	units, err := schedule.Systemd(job)
	if err != nil {
		t.Fatal(err)
	}
	cfg := offline(t, data, vault)
	dir := filepath.Join(cfg.ConfigHome, "systemd", "user")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, units.ServiceName), units.Service, 0o644); err != nil {
		t.Fatal(err)
	}
	// A unit for another data directory is not this one's.
	other := job
	other.Name = "vaultgraph-other"
	other.Command = []string{"/bin/vaultgraph", "index", "--vault", vault, "--data", "/elsewhere"}
	ou, _ := schedule.Systemd(other)
	os.WriteFile(filepath.Join(dir, ou.ServiceName), ou.Service, 0o644)
	os.WriteFile(filepath.Join(dir, ou.TimerName), ou.Timer, 0o644)

	expect(t, doctor.Run(context.Background(), cfg), "schedule", doctor.Fail, "without its timer")
	if err := os.WriteFile(filepath.Join(dir, units.TimerName), units.Timer, 0o644); err != nil {
		t.Fatal(err)
	}

	// What systemctl show answers, by unit.
	answers := map[string]string{}
	var asked [][]string
	cfg.Run = func(_ context.Context, name string, args ...string) ([]byte, error) {
		asked = append(asked, append([]string{name}, args...))
		if name != "systemctl" || len(args) < 3 || args[0] != "--user" || args[1] != "show" {
			return nil, errors.New("unexpected command")
		}
		a, ok := answers[args[2]]
		if !ok {
			return nil, errors.New("Failed to connect to bus")
		}
		return []byte(a), nil
	}
	expect(t, doctor.Run(context.Background(), cfg), "schedule", doctor.Warn, "could not be asked", "Failed to connect to bus")

	answers["vaultgraph-index.timer"] = "ActiveState=inactive\nLastTriggerUSec=n/a\nNextElapseUSecRealtime=\n"
	answers["vaultgraph-index.service"] = "Result=success\nExecMainStatus=0\nExecMainExitTimestamp=\n"
	expect(t, doctor.Run(context.Background(), cfg), "schedule", doctor.Fail, "inactive", "systemctl --user enable --now vaultgraph-index.timer")

	answers["vaultgraph-index.timer"] = "ActiveState=active\nLastTriggerUSec=Tue 2026-12-01 10:00:00 UTC\nNextElapseUSecRealtime=Tue 2026-12-01 10:15:00 UTC\n"
	answers["vaultgraph-index.service"] = "Result=exit-code\nExecMainStatus=1\nExecMainExitTimestamp=Tue 2026-12-01 10:00:03 UTC\n"
	expect(t, doctor.Run(context.Background(), cfg), "schedule", doctor.Fail, "exited 1", "journalctl --user -u vaultgraph-index.service")

	answers["vaultgraph-index.service"] = "Result=success\nExecMainStatus=0\nExecMainExitTimestamp=Tue 2026-12-01 10:00:03 UTC\n"
	expect(t, doctor.Run(context.Background(), cfg), "schedule", doctor.OK, "active", "10:00:03", "10:15:00")
	for _, a := range asked {
		if slices.Contains(a, "vaultgraph-other.timer") {
			t.Errorf("asked about another data directory's unit: %v", a)
		}
	}
}

func TestScheduleLaunchd(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := t.TempDir()
	index(t, vault, data, nil)
	cfg := offline(t, data, vault)
	plist, err := schedule.Launchd(schedule.Job{Name: "com.github.vaultgraph.index", Description: "vaultgraph",
		Command: []string{"/usr/local/bin/vaultgraph", "index", "--vault", vault, "--data", data}, Every: time.Hour,
		LogPath: "/tmp/vaultgraph.log"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cfg.Home, "Library", "LaunchAgents")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "com.github.vaultgraph.index.plist"), plist, 0o644)
	exit := "0"
	cfg.Run = func(_ context.Context, name string, args ...string) ([]byte, error) {
		if name != "launchctl" || args[0] != "print" || !strings.HasSuffix(args[1], "/com.github.vaultgraph.index") {
			return nil, errors.New("unexpected command")
		}
		return []byte("gui/501/com.github.vaultgraph.index = {\n\tstate = not running\n\tlast exit code = " + exit + "\n}\n"), nil
	}
	expect(t, doctor.Run(context.Background(), cfg), "schedule", doctor.OK, "exited 0")
	exit = "1"
	expect(t, doctor.Run(context.Background(), cfg), "schedule", doctor.Fail, "exited 1")
}

func TestServer(t *testing.T) {
	vault := writeVault(t, demoNotes)
	data := t.TempDir()
	id := index(t, vault, data, nil)

	cfg := offline(t, data, vault)
	expect(t, doctor.Run(context.Background(), cfg), "server", doctor.Fail, "nothing answers")

	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	cfg.Server = other.URL
	expect(t, doctor.Run(context.Background(), cfg), "server", doctor.Fail, "not vaultgraph's health document")

	// An older snapshot served (the real server is tested from the CLI).
	var serving string
	older := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" || r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok","ready":true,"snapshot":"` + serving + `"}`))
	}))
	defer older.Close()
	cfg.Server, cfg.Token = older.URL, "s3cret"
	serving = "01AAAAAAAAAAAAAAAAAAAAAAAA"
	expect(t, doctor.Run(context.Background(), cfg), "server", doctor.Warn, "older than the newest "+id)
	serving = id
	expect(t, doctor.Run(context.Background(), cfg), "server", doctor.OK, "the newest")
}
