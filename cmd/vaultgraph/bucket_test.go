package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket/s3bucket"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket/s3test"
)

// The tests in this file ship snapshots through a real S3 server
// (versitygw on loopback): one indexer pushing, servers and pulls reading.

type bucketEnv struct {
	srv *s3test.Server
	url string
	b   bucket.Bucket
}

func newBucketEnv(t *testing.T) *bucketEnv {
	t.Helper()
	srv := s3test.Start(t)
	srv.Setenv(t) // for the subprocesses too
	name := srv.Bucket(t)
	e := &bucketEnv{srv: srv, url: "s3://" + name + "/team/main"}
	loc, err := bucket.ParseURL(e.url)
	if err != nil {
		t.Fatal(err)
	}
	if e.b, err = s3bucket.Open(s3test.Context(t), loc); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *bucketEnv) snapshots(t *testing.T) []string {
	t.Helper()
	ids, err := bucket.Snapshots(s3test.Context(t), e.b)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

var pushLine = regexp.MustCompile(`pushed ([0-9A-Z]{26}) to \S+: uploaded (\d+) of (\d+) objects, (\d+) of (\d+) bytes`)

// pushed is what a push printed.
type pushed struct {
	id                string
	objects, total    int
	bytes, totalBytes int64
}

func parsePush(t *testing.T, out string) pushed {
	t.Helper()
	m := pushLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no push report in:\n%s", out)
	}
	n := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	return pushed{id: m[1], objects: int(n(m[2])), total: int(n(m[3])), bytes: n(m[4]), totalBytes: n(m[5])}
}

func readManifest(t *testing.T, dir string) *format.Manifest {
	t.Helper()
	s, err := snapshot.Open(dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Manifest
}

// newBytes is what pushing snapshot dir costs after parent: its files of
// a content parent lacks, once each, and its manifest.
func newBytes(t *testing.T, dir, parent string) int64 {
	t.Helper()
	old := map[string]bool{}
	for _, fi := range readManifest(t, parent).Files {
		old[fi.SHA256] = true
	}
	raw, err := os.ReadFile(filepath.Join(dir, format.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(raw))
	for _, fi := range readManifest(t, dir).Files {
		if !old[fi.SHA256] {
			old[fi.SHA256] = true
			n += fi.Size
		}
	}
	return n
}

// TestBucketPushPull pushes from one data directory and pulls into
// another, then pushes a one-note edit, which uploads only the files that
// changed, and garbage-collects the bucket.
func TestBucketPushPull(t *testing.T) {
	e := newBucketEnv(t)
	vault, a, b := copyDemoVault(t), t.TempDir(), t.TempDir()
	s1 := indexID(t, "--vault", vault, "--data", a)

	r := vgOK(t, "snapshot", "push", "--data", a, e.url)
	p := parsePush(t, r.stdout)
	if p.id != s1 || p.objects != p.total || p.bytes != p.totalBytes {
		t.Errorf("first push = %+v, want everything of %s uploaded", p, s1)
	}
	again := vgOK(t, "snapshot", "push", "--data", a, e.url, s1[:8])
	if again.stdout != "" || !strings.Contains(again.stderr, "already pushed "+s1) {
		t.Errorf("second push: stdout %q, stderr %q; want only 'already pushed' on stderr", again.stdout, again.stderr)
	}

	r = vgOK(t, "snapshot", "pull", "--data", b, e.url)
	if !strings.Contains(r.stdout, "pulled "+s1) {
		t.Errorf("pull: %s", r.stdout)
	}
	vgOK(t, "snapshot", "verify", "--data", b, s1)
	ma, _ := os.ReadFile(filepath.Join(snapshot.Dir(a, s1), format.ManifestFile))
	mb, _ := os.ReadFile(filepath.Join(snapshot.Dir(b, s1), format.ManifestFile))
	if !bytes.Equal(ma, mb) {
		t.Error("the pulled manifest differs from the pushed one")
	}

	// A one-note edit, indexed and pushed in one run.
	editNote(t, vault, "Projects/Search.md", "Search", "Search (edited)")
	r = vgOK(t, "index", "--vault", vault, "--data", a, "--push", e.url)
	s2 := snapshotLine.FindStringSubmatch(r.stdout)[1]
	p = parsePush(t, r.stdout)
	// The files s1 lacks, the graph database among them as a patch of
	// s1's: less than those files whole.
	whole := newBytes(t, snapshot.Dir(a, s2), snapshot.Dir(a, s1))
	if p.id != s2 || p.bytes >= whole || !strings.Contains(r.stdout, "as patches of the parent's files") {
		t.Errorf("push after a one-note edit = %+v; want less than the %d bytes of the files s1 lacks, with patches\n%s", p, whole, r.stdout)
	}
	t.Logf("one-note edit of the demo vault: uploaded %d of %d objects, %d of %d bytes (%.0f%%; %d bytes without patches)",
		p.objects, p.total, p.bytes, p.totalBytes, 100*float64(p.bytes)/float64(p.totalBytes), whole)

	r = vgOK(t, "snapshot", "pull", "--data", b, e.url)
	if m := regexp.MustCompile(`; (\d+) bytes linked`).FindStringSubmatch(r.stdout); m == nil || m[1] == "0" {
		t.Errorf("pull of s2 next to s1 linked nothing: %s", r.stdout)
	}
	if !strings.Contains(r.stdout, "made by applying patches") {
		t.Errorf("pull of s2 next to s1 applied no patch: %s", r.stdout)
	}
	vgOK(t, "snapshot", "verify", "--data", b, s2)

	// Unchanged: the run pushes nothing and says so on stderr only.
	r = vgOK(t, "index", "--vault", vault, "--data", a, "--push", e.url)
	if r.stdout != "" || !strings.Contains(r.stderr, "already pushed "+s2) {
		t.Errorf("unchanged run with --push: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	r = vgOK(t, "snapshot", "gc", "--data", e.url, "--keep", "1")
	if !strings.Contains(r.stdout, "removed "+s1) {
		t.Errorf("bucket gc: %s", r.stdout)
	}
	if ids := e.snapshots(t); len(ids) != 1 || ids[0] != s2 {
		t.Errorf("bucket holds %v after gc, want [%s]", ids, s2)
	}
	c := t.TempDir()
	vgOK(t, "snapshot", "pull", "--data", c, e.url)
	vgOK(t, "snapshot", "verify", "--data", c, s2)
	if r := vg(t, "snapshot", "pull", "--data", c, e.url, s1); r.code != 2 {
		t.Errorf("pull of a removed snapshot: exit %d, want 2\n%s", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"snapshot", "push", "--data", a, "s3://Bad_Name/x"},
		{"snapshot", "push", "--data", a, "s3://user:secret@bucket/x"},
		{"index", "--vault", vault, "--data", a, "--push", "/not/a/bucket"},
		{"serve", "--data", e.url, "--cache", e.url},
		{"snapshot", "gc", "--data", e.url, "--keep", "1", "--older-than", "1d"},
	} {
		if r := vg(t, args...); r.code != 2 || strings.Contains(r.stderr, "secret") {
			t.Errorf("vaultgraph %s: exit %d, want 2 without repeating a secret\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// status is what the tests read of GET /status.
type status struct {
	Snapshot  string `json:"snapshot"`
	Snapshots struct {
		Rejected      int64            `json:"rejected"`
		LastRejection *json.RawMessage `json:"last_rejection"`
	} `json:"snapshots"`
}

func (s *server) status(t *testing.T) status {
	t.Helper()
	resp, err := http.Get("http://" + s.addr + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st status
	_ = json.NewDecoder(resp.Body).Decode(&st)
	return st
}

// waitStatus polls /status (bounded) until ok holds.
func (s *server) waitStatus(t *testing.T, what string, ok func(status) bool) status {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := s.status(t)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never %s; /status: %+v", what, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServersFollowABucket (tables, vectors and BM25; no graph database,
// to keep it quick) runs two servers on one bucket: both serve the
// newest snapshot, swap to the next one pushed, refuse one with a damaged
// object while the previous keeps serving, and take it once repaired.
func TestServersFollowABucket(t *testing.T) {
	e := newBucketEnv(t)
	vault, data := copyDemoVault(t), t.TempDir()
	r := vgOK(t, "index", "--vault", vault, "--data", data, "--graph=false", "--push", e.url)
	s1 := snapshotLine.FindStringSubmatch(r.stdout)[1]

	// One with --cache, one with the default cache in the user's cache
	// directory.
	xdg := t.TempDir()
	loc, _ := bucket.ParseURL(e.url)
	caches := []string{t.TempDir(), filepath.Join(xdg, "vaultgraph", "s3", loc.Bucket, "team", "main")}
	servers := []*server{
		startServer(t, e.url, nil, "--cache", caches[0], "--poll", "100ms"),
		startServer(t, e.url, []string{"XDG_CACHE_HOME=" + xdg}, "--poll", "100ms"),
	}
	for _, s := range servers {
		s.waitServing(t, s1)
	}

	editNote(t, vault, "Projects/Search.md", "Search", "Search (edited)")
	r = vgOK(t, "index", "--vault", vault, "--data", data, "--graph=false", "--push", e.url)
	s2 := snapshotLine.FindStringSubmatch(r.stdout)[1]
	for _, s := range servers {
		s.waitServing(t, s2)
	}
	// The cache keeps --keep (1) snapshots once the old one is released.
	for _, cache := range caches {
		waitFor(t, "the cache to drop "+s1, func() bool {
			ids := listIDs(t, cache)
			return len(ids) == 1 && ids[0] == s2
		})
	}

	// s3 arrives with one of its new objects damaged (a bad disk, a bad
	// writer): the same size, one byte flipped.
	editNote(t, vault, "Projects/Search.md", "(edited)", "(edited twice)")
	s3 := indexID(t, "--vault", vault, "--data", data, "--graph=false")
	ctx := s3test.Context(t)
	old := map[string]bool{}
	for _, fi := range readManifest(t, snapshot.Dir(data, s2)).Files {
		old[fi.SHA256] = true
	}
	var victim string
	var content []byte
	for name, fi := range readManifest(t, snapshot.Dir(data, s3)).Files {
		if !old[fi.SHA256] {
			victim = fi.SHA256
			content, _ = os.ReadFile(filepath.Join(snapshot.Dir(data, s3), filepath.FromSlash(name)))
			break
		}
	}
	bad := bytes.Clone(content)
	bad[len(bad)/2] ^= 0x40
	if err := e.b.Put(ctx, bucket.FileKey(victim), bytes.NewReader(bad), int64(len(bad)), bucket.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	vgOK(t, "snapshot", "push", "--data", data, e.url)
	for _, s := range servers {
		st := s.waitStatus(t, "rejected "+s3, func(st status) bool {
			return st.Snapshots.LastRejection != nil && strings.Contains(string(*st.Snapshots.LastRejection), s3)
		})
		if st.Snapshot != s2 || !strings.Contains(string(*st.Snapshots.LastRejection), "sha256 mismatch") {
			t.Errorf("after a damaged push the server serves %s (want %s), rejection %s", st.Snapshot, s2, *st.Snapshots.LastRejection)
		}
	}
	for _, cache := range caches {
		if ids := listIDs(t, cache); len(ids) != 1 || ids[0] != s2 {
			t.Errorf("cache %s holds %v, want only %s: a refused download is never published", cache, ids, s2)
		}
	}

	// Deleting the damaged object and pushing again repairs it; the
	// servers retry and swap.
	if err := e.b.Delete(ctx, bucket.FileKey(victim)); err != nil {
		t.Fatal(err)
	}
	p := parsePush(t, vgOK(t, "snapshot", "push", "--data", data, e.url).stdout)
	if p.objects != 1 || p.bytes != int64(len(content)) {
		t.Errorf("repairing push = %+v, want the one object uploaded", p)
	}
	for _, s := range servers {
		s.waitServing(t, s3)
		if st := s.status(t); st.Snapshots.LastRejection != nil {
			t.Errorf("/status once the repaired %s serves still reports last_rejection %s", s3, *st.Snapshots.LastRejection)
		} else if st.Snapshots.Rejected == 0 {
			t.Errorf("/status once the repaired %s serves counts no rejection; the count is kept", s3)
		}
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 60s for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stallingProxy forwards S3 requests to the server, letting through the
// first upload of a file object and holding every later one until the
// test ends, so that a push can be killed half-way at a known point.
type stallingProxy struct {
	*httptest.Server
	mu      sync.Mutex
	uploads int
	stalled chan struct{} // closed once an upload is held after one went through
	release chan struct{}
	once    sync.Once
}

func newStallingProxy(t *testing.T, target string) *stallingProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &stallingProxy{stalled: make(chan struct{}), release: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(u)
	first := make(chan struct{})
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/files/") {
			p.mu.Lock()
			p.uploads++
			n := p.uploads
			p.mu.Unlock()
			if n > 1 {
				<-first
				p.once.Do(func() { close(p.stalled) })
				<-p.release
				_, _ = io.Copy(io.Discard, r.Body)
				http.Error(w, "stalled by the test", http.StatusServiceUnavailable)
				return
			}
			rp.ServeHTTP(w, r)
			close(first)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(p.release); p.Server.Close() })
	return p
}

// TestPushKilledMidway kills a push with SIGKILL after its first upload:
// no reader sees the partial snapshot, and the next push completes it,
// uploading only what is missing.
func TestPushKilledMidway(t *testing.T) {
	e := newBucketEnv(t)
	vault, data := copyDemoVault(t), t.TempDir()
	r := vgOK(t, "index", "--vault", vault, "--data", data, "--graph=false", "--push", e.url)
	s1 := snapshotLine.FindStringSubmatch(r.stdout)[1]
	editNote(t, vault, "Projects/Search.md", "Search", "Search (edited)")
	s2 := indexID(t, "--vault", vault, "--data", data, "--graph=false")

	proxy := newStallingProxy(t, e.srv.Endpoint)
	push := exec.Command(binary, "snapshot", "push", "--data", data, e.url)
	push.Env = append(os.Environ(), "AWS_ENDPOINT_URL_S3="+proxy.URL)
	var out bytes.Buffer
	push.Stdout, push.Stderr = &out, &out
	if err := push.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- push.Wait() }()
	select {
	case <-proxy.stalled:
	case err := <-exited:
		t.Fatalf("push ended before it was stalled: %v\n%s", err, out.String())
	case <-time.After(2 * time.Minute):
		t.Fatal("push never reached its second upload")
	}
	if err := push.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited

	// Half of s2 is in the bucket, but no reader takes it for a snapshot.
	if ids := e.snapshots(t); len(ids) != 1 || ids[0] != s1 {
		t.Fatalf("bucket lists %v after the killed push, want [%s]", ids, s1)
	}
	if n := presentNew(t, e, data, s1, s2); n != 1 {
		t.Errorf("%d of s2's new objects are in the bucket after the killed push, want the 1 that went through", n)
	}
	srv := startServer(t, e.url, nil, "--cache", t.TempDir(), "--poll", "100ms")
	srv.waitServing(t, s1)
	c := t.TempDir()
	if r := vgOK(t, "snapshot", "pull", "--data", c, e.url); !strings.Contains(r.stdout, "pulled "+s1) {
		t.Errorf("pull after the killed push: %s", r.stdout)
	}

	p := parsePush(t, vgOK(t, "snapshot", "push", "--data", data, e.url).stdout)
	want := newBytes(t, snapshot.Dir(data, s2), snapshot.Dir(data, s1))
	if p.id != s2 || p.bytes >= want {
		t.Errorf("completing push = %+v; want less than the %d bytes s1 lacks: the killed push's upload is kept", p, want)
	}
	srv.waitServing(t, s2)
	vgOK(t, "snapshot", "pull", "--data", c, e.url)
	vgOK(t, "snapshot", "verify", "--data", c, s2)

	// The killed push's lock is stale (its process is gone): gc runs.
	if r := vgOK(t, "snapshot", "gc", "--data", e.url, "--keep", "2"); !strings.Contains(r.stdout, "removed stale lock") {
		t.Errorf("gc after the killed push did not remove its lock:\n%s", r.stdout)
	}
}

// presentNew counts the files of s2 that s1 lacks and the bucket holds,
// as file objects or patches.
func presentNew(t *testing.T, e *bucketEnv, data, s1, s2 string) int {
	t.Helper()
	old := map[string]bool{}
	for _, fi := range readManifest(t, snapshot.Dir(data, s1)).Files {
		old[fi.SHA256] = true
	}
	n := 0
	for _, fi := range readManifest(t, snapshot.Dir(data, s2)).Files {
		if old[fi.SHA256] {
			continue
		}
		old[fi.SHA256] = true
		if _, err := e.b.Head(s3test.Context(t), bucket.FileKey(fi.SHA256)); err == nil {
			n++
		} else if ps, err := e.b.List(s3test.Context(t), "patches/"+fi.SHA256+"/"); err == nil && len(ps) > 0 {
			n++ // sent as a patch of s1's file
		}
	}
	return n
}

// TestIndexPushes pushes from index --watch and from the command line a
// schedule unit runs.
func TestIndexPushes(t *testing.T) {
	e := newBucketEnv(t)
	vault, data := copyDemoVault(t), t.TempDir()
	cmd := exec.Command(binary, "index", "--vault", vault, "--data", data, "--graph=false", "--watch", "--debounce", "100ms", "--push", e.url)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	pushedAll := func(n int) func() bool {
		return func() bool {
			local, remote := listIDs(t, data), e.snapshots(t)
			return len(local) == n && len(remote) == n && remote[n-1] == local[n-1]
		}
	}
	waitFor(t, "the watch to push its first snapshot", pushedAll(1))
	editNote(t, vault, "People/Bob.md", "role: engineer", "role: staff engineer")
	waitFor(t, "the watch to push the edit", pushedAll(2))
	_ = cmd.Process.Signal(os.Interrupt)
	if err := <-exited; err != nil {
		t.Errorf("watch: %v\n%s", err, out.String())
	}
	if n := len(pushLine.FindAllString(out.String(), -1)); n != 2 {
		t.Errorf("watch reported %d pushes, want 2:\n%s", n, out.String())
	}

	// A timer's run: quiet when there is nothing new.
	if r := vgOK(t, "index", "--vault", vault, "--data", data, "--graph=false", "--quiet", "--push", e.url); r.stdout != "" || r.stderr != "" {
		t.Errorf("quiet unchanged run with --push printed %q %q", r.stdout, r.stderr)
	}
	r := vgOK(t, "schedule", "systemd", "--vault", vault, "--data", data, "--every", "10m", "--", "--push", e.url)
	if !strings.Contains(r.stdout, " --push "+e.url) {
		t.Errorf("the unit does not push:\n%s", r.stdout)
	}
	if r := vg(t, "schedule", "systemd", "--vault", vault, "--data", data, "--", "--push", "s3://x"); r.code != 2 || !strings.Contains(r.stderr, "--push") {
		t.Errorf("schedule with a bad --push: exit %d %s", r.code, r.stderr)
	}
}
