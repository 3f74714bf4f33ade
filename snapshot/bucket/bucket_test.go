package bucket_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket/s3bucket"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket/s3test"
)

// env is one S3 server with one fresh bucket under a prefix.
type env struct {
	srv  *s3test.Server
	name string // bucket name
	b    bucket.Bucket
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := s3test.Start(t)
	srv.Setenv(t)
	name := srv.Bucket(t)
	loc, err := bucket.ParseURL("s3://" + name + "/team/main")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s3bucket.Open(s3test.Context(t), loc)
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, name: name, b: b}
}

// objectPath is where versitygw keeps the object at key on disk.
func (e *env) objectPath(key string) string {
	return filepath.Join(e.srv.Root, e.name, "team", "main", filepath.FromSlash(key))
}

// files of a synthetic snapshot, by name.
type files map[string][]byte

// publish writes a snapshot holding fs into dataDir.
func publish(t *testing.T, dataDir string, fs files) *snapshot.Snapshot {
	t.Helper()
	newest := ""
	if entries, _ := snapshot.List(dataDir); len(entries) > 0 {
		newest = entries[len(entries)-1].ID
	}
	id := format.NewSnapshotID(time.Now(), newest)
	w, err := snapshot.Create(dataDir, id)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range fs {
		p := filepath.Join(w.Dir(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := w.Publish(&format.Manifest{Parent: newest, Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func blob(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7%251)
	}
	return b
}

func manifestBytes(t *testing.T, dir string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, format.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestPushPullRoundTrip(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	src := t.TempDir()
	s := publish(t, src, files{"vectors.f32": blob(1<<20, 1), "graph/db": []byte("graph"), "copy.f32": blob(1<<20, 1)})

	if ids, err := bucket.Snapshots(ctx, e.b); err != nil || len(ids) != 0 {
		t.Fatalf("empty bucket lists %v, %v", ids, err)
	}
	res, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Two names share one content: one object for both.
	if res.Present || res.Files != 3 || res.Uploaded != 3 || res.UploadedBytes != res.Bytes {
		t.Errorf("first push = %+v, want 3 objects (2 files and the manifest) all uploaded", res)
	}
	ids, err := bucket.Snapshots(ctx, e.b)
	if err != nil || len(ids) != 1 || ids[0] != s.ID {
		t.Fatalf("bucket lists %v, %v; want [%s]", ids, err, s.ID)
	}

	dst := t.TempDir()
	pr, err := bucket.Pull(ctx, e.b, dst, "", bucket.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pr.ID != s.ID || pr.Present || pr.Newest != s.ID || pr.Downloaded != 4 || pr.Linked != 0 {
		t.Errorf("pull = %+v, want %s: 3 files and the manifest downloaded", pr, s.ID)
	}
	if _, problems, err := snapshot.Verify(pr.Dir); err != nil || len(problems) > 0 {
		t.Fatalf("pulled snapshot does not verify: %v %v", err, problems)
	}
	if !bytes.Equal(manifestBytes(t, pr.Dir), manifestBytes(t, s.Dir)) {
		t.Error("the pulled manifest differs from the pushed one")
	}

	again, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{})
	if err != nil || !again.Present || again.Uploaded != 0 {
		t.Errorf("second push of the same snapshot = %+v, %v; want present, nothing uploaded", again, err)
	}
	pr2, err := bucket.Pull(ctx, e.b, dst, s.ID[:8], bucket.PullOptions{})
	if err != nil || !pr2.Present || pr2.Downloaded != 0 {
		t.Errorf("second pull = %+v, %v; want present", pr2, err)
	}
}

func TestSecondPushUploadsOnlyWhatChanged(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	src := t.TempDir()
	big := blob(2<<20, 3)
	s1 := publish(t, src, files{"vectors.f32": big, "nodes.parquet": []byte("notes v1")})
	if _, err := bucket.Push(ctx, e.b, s1.Dir, bucket.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	s2 := publish(t, src, files{"vectors.f32": big, "nodes.parquet": []byte("notes v2, one note edited")})
	res, err := bucket.Push(ctx, e.b, s2.Dir, bucket.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := int64(len("notes v2, one note edited")) + int64(len(manifestBytes(t, s2.Dir)))
	if res.Uploaded != 2 || res.UploadedBytes != want {
		t.Errorf("second push uploaded %d objects, %d bytes; want 2 (the changed file and the manifest), %d bytes of %d", res.Uploaded, res.UploadedBytes, want, res.Bytes)
	}
	t.Logf("second push: %d of %d bytes uploaded", res.UploadedBytes, res.Bytes)

	// A cache holding s1 links the shared file instead of downloading it.
	cache := t.TempDir()
	if _, err := bucket.Pull(ctx, e.b, cache, s1.ID, bucket.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	pr, err := bucket.Pull(ctx, e.b, cache, "latest", bucket.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pr.ID != s2.ID || pr.Linked != 1 || pr.LinkedBytes != int64(len(big)) || pr.Downloaded != 2 {
		t.Errorf("pull of s2 next to s1 = %+v; want vectors.f32 linked, nodes.parquet and the manifest downloaded", pr)
	}
	if _, problems, err := snapshot.Verify(pr.Dir); err != nil || len(problems) > 0 {
		t.Fatalf("pulled snapshot does not verify: %v %v", err, problems)
	}
}

func TestDamagedObjectIsRefused(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	s := publish(t, t.TempDir(), files{"vectors.f32": blob(4096, 5), "nodes.parquet": []byte("notes")})
	if _, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	obj := e.objectPath(bucket.FileKey(s.Manifest.Files["vectors.f32"].SHA256))
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"flipped byte", func(b []byte) []byte { b[100] ^= 0xff; return b }},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }},
		{"longer", func(b []byte) []byte { return append(b, 'x') }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good, err := os.ReadFile(obj)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(obj, tc.damage(bytes.Clone(good)), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(obj, good, 0o644)
			data := t.TempDir()
			_, err = bucket.Pull(ctx, e.b, data, "", bucket.PullOptions{})
			if !errors.Is(err, bucket.ErrCorrupt) || !strings.Contains(err.Error(), "vectors.f32") {
				t.Fatalf("pull of a damaged object: %v, want ErrCorrupt naming vectors.f32", err)
			}
			des, _ := os.ReadDir(snapshot.SnapshotsDir(data))
			if len(des) != 0 {
				t.Errorf("a failed pull left %v in the data directory", des)
			}
		})
	}
	// A missing object is refused the same way, and a push puts it back.
	if err := os.Remove(obj); err != nil {
		t.Fatal(err)
	}
	if _, err := bucket.Pull(ctx, e.b, t.TempDir(), "", bucket.PullOptions{}); !errors.Is(err, bucket.ErrCorrupt) {
		t.Fatalf("pull with a missing object: %v, want ErrCorrupt", err)
	}
	res, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{})
	if err != nil || res.Present || res.Uploaded != 1 || res.UploadedBytes != 4096 {
		t.Fatalf("push after the damaged object was deleted = %+v, %v; want it uploaded again", res, err)
	}
	if _, err := bucket.Pull(ctx, e.b, t.TempDir(), "", bucket.PullOptions{}); err != nil {
		t.Fatalf("pull after the repair: %v", err)
	}
}

func TestInterruptedPushIsInvisibleAndCompletes(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	s := publish(t, t.TempDir(), files{"a": blob(1000, 1), "b": blob(2000, 2), "c": blob(3000, 3)})
	// What a push killed after its first upload leaves.
	a := s.Manifest.Files["a"]
	if err := e.b.Put(ctx, bucket.FileKey(a.SHA256), bytes.NewReader(blob(1000, 1)), a.Size, bucket.PutOptions{SHA256: a.SHA256}); err != nil {
		t.Fatal(err)
	}
	if ids, err := bucket.Snapshots(ctx, e.b); err != nil || len(ids) != 0 {
		t.Fatalf("a half-pushed snapshot lists: %v, %v", ids, err)
	}
	if _, err := bucket.Pull(ctx, e.b, t.TempDir(), "", bucket.PullOptions{}); !errors.Is(err, bucket.ErrNoSnapshot) {
		t.Fatalf("pull of a half-pushed bucket: %v, want ErrNoSnapshot", err)
	}
	res, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Uploaded != 3 || res.UploadedBytes != 5000+int64(len(manifestBytes(t, s.Dir))) {
		t.Errorf("completing push = %+v, want b, c and the manifest uploaded", res)
	}
	if _, err := bucket.Pull(ctx, e.b, t.TempDir(), "", bucket.PullOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestPushRepairsAnObjectOfTheWrongSize(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	s := publish(t, t.TempDir(), files{"a": blob(1000, 1)})
	if _, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.objectPath(bucket.ManifestKey(s.ID))); err != nil {
		t.Fatal(err)
	}
	obj := e.objectPath(bucket.FileKey(s.Manifest.Files["a"].SHA256))
	if err := os.WriteFile(obj, []byte("short"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{})
	if err != nil || res.Repaired != 1 {
		t.Fatalf("push over a truncated object = %+v, %v; want it repaired", res, err)
	}
	if _, err := bucket.Pull(ctx, e.b, t.TempDir(), "", bucket.PullOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestPushRefusesADamagedLocalSnapshot(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	s := publish(t, t.TempDir(), files{"a": blob(1000, 1)})
	if err := os.WriteFile(filepath.Join(s.Dir, "a"), blob(1000, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{}); !errors.Is(err, snapshot.ErrInvalid) {
		t.Fatalf("push of a damaged snapshot: %v, want ErrInvalid", err)
	}
	if objs, _ := e.b.List(ctx, ""); len(objs) != 0 {
		t.Errorf("a refused push left %v", objs)
	}
}

func TestConditionalCreate(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	put := func(body string) error {
		return e.b.Put(ctx, "x", strings.NewReader(body), int64(len(body)), bucket.PutOptions{IfAbsent: true})
	}
	if err := put("one"); err != nil {
		t.Fatal(err)
	}
	if err := put("two"); !errors.Is(err, bucket.ErrExists) {
		t.Fatalf("second conditional create: %v, want ErrExists", err)
	}
	// A body that does not match its declared sha256 is refused by the store.
	sum := strings.Repeat("ab", 32)
	if err := e.b.Put(ctx, "y", strings.NewReader("body"), 4, bucket.PutOptions{SHA256: sum}); err == nil {
		t.Error("an upload with a wrong checksum was accepted")
	}
	if _, err := e.b.Head(ctx, "y"); !errors.Is(err, bucket.ErrNotFound) {
		t.Errorf("head after a refused upload: %v, want ErrNotFound", err)
	}
}

func TestGCKeepsWhatKeptSnapshotsNeed(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	src := t.TempDir()
	shared := blob(5000, 9)
	var snaps []*snapshot.Snapshot
	for i := range 3 {
		s := publish(t, src, files{"shared": shared, "own": blob(100+i, byte(i))})
		if _, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{}); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
	}
	orphan := strings.Repeat("0", 64) // what an interrupted push leaves
	if err := e.b.Put(ctx, bucket.FileKey(orphan), strings.NewReader("left"), 4, bucket.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	dry, err := bucket.GC(ctx, e.b, bucket.GCOptions{Keep: 2, DryRun: true})
	if err != nil || len(dry.Removed) != 1 || dry.Files != 2 {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if ids, _ := bucket.Snapshots(ctx, e.b); len(ids) != 3 {
		t.Fatalf("dry run removed snapshots: %v", ids)
	}
	res, err := bucket.GC(ctx, e.b, bucket.GCOptions{Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Removed) != 1 || res.Removed[0] != snaps[0].ID || res.Files != 2 {
		t.Errorf("gc = %+v, want %s removed with its own file and the orphan", res, snaps[0].ID)
	}
	for _, s := range snaps[1:] {
		if _, err := bucket.Pull(ctx, e.b, t.TempDir(), s.ID, bucket.PullOptions{}); err != nil {
			t.Errorf("kept snapshot %s: %v", s.ID, err)
		}
	}
	if _, err := bucket.Pull(ctx, e.b, t.TempDir(), snaps[0].ID, bucket.PullOptions{}); !errors.Is(err, bucket.ErrNoSnapshot) {
		t.Errorf("removed snapshot still pulls: %v", err)
	}
	if _, err := bucket.GC(ctx, e.b, bucket.GCOptions{Keep: 0}); err == nil {
		t.Error("gc --keep 0 was accepted")
	}
}

// writeLock puts a lock object as another process would.
func writeLock(t *testing.T, e *env, kind string, pid int) string {
	t.Helper()
	host, _ := os.Hostname()
	body, _ := json.Marshal(map[string]any{"kind": kind, "host": host, "pid": pid, "started": time.Now()})
	key := "locks/" + kind + "-01JZZZZZZZZZZZZZZZZZZZZZZZ.json"
	if err := e.b.Put(context.Background(), key, bytes.NewReader(body), int64(len(body)), bucket.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	return key
}

func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true command to get a dead pid from")
	}
	return cmd.Process.Pid
}

func TestLocks(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	s := publish(t, t.TempDir(), files{"a": blob(100, 1)})

	// A live gc (this process stands in for it) excludes pushes.
	key := writeLock(t, e, "gc", os.Getpid())
	if _, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{}); !errors.Is(err, bucket.ErrLocked) || !strings.Contains(err.Error(), "a gc from") {
		t.Fatalf("push during a gc: %v, want ErrLocked naming the gc", err)
	}
	if objs, _ := e.b.List(ctx, "locks/"); len(objs) != 1 {
		t.Errorf("a push that backed off left its lock: %v", objs)
	}
	if err := e.b.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}

	// A live push excludes gc, but not another push.
	key = writeLock(t, e, "push", os.Getpid())
	if _, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{}); err != nil {
		t.Fatalf("push beside another push: %v", err)
	}
	if _, err := bucket.GC(ctx, e.b, bucket.GCOptions{Keep: 1}); !errors.Is(err, bucket.ErrLocked) {
		t.Fatalf("gc during a push: %v, want ErrLocked", err)
	}
	if err := e.b.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}

	// The lock of a push killed on this host is stale: gc goes ahead and
	// removes it.
	key = writeLock(t, e, "push", deadPID(t))
	res, err := bucket.GC(ctx, e.b, bucket.GCOptions{Keep: 1})
	if err != nil {
		t.Fatalf("gc beside a dead push's lock: %v", err)
	}
	if len(res.StaleLocks) != 1 || res.StaleLocks[0] != key {
		t.Errorf("stale locks removed = %v, want %s", res.StaleLocks, key)
	}
	if objs, _ := e.b.List(ctx, "locks/"); len(objs) != 0 {
		t.Errorf("locks left after gc: %v", objs)
	}
}

func TestMirrorSyncSkipsADamagedNewest(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	src := t.TempDir()
	var snaps []*snapshot.Snapshot
	for i := range 3 {
		s := publish(t, src, files{"own": blob(100+i, byte(i))})
		if _, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{}); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
	}
	newestObj := e.objectPath(bucket.FileKey(snaps[2].Manifest.Files["own"].SHA256))
	good, _ := os.ReadFile(newestObj)
	bad := bytes.Clone(good)
	bad[0] ^= 1
	if err := os.WriteFile(newestObj, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	mr := &bucket.Mirror{Bucket: e.b, Dir: cache, Keep: 1}
	res, err := mr.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Remote != snaps[2].ID || res.Pulled != snaps[1].ID || len(res.Failed) != 1 || res.Failed[0].ID != snaps[2].ID {
		t.Fatalf("sync = %+v; want %s failed and %s pulled", res, snaps[2].ID, snaps[1].ID)
	}
	// Repaired, the next Sync pulls it, and the cache keeps one.
	if err := os.WriteFile(newestObj, good, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = mr.Sync(ctx)
	if err != nil || res.Pulled != snaps[2].ID {
		t.Fatalf("sync after repair = %+v, %v", res, err)
	}
	entries, _ := snapshot.List(cache)
	if len(entries) != 1 || entries[0].ID != snaps[2].ID {
		t.Errorf("cache holds %v, want only %s", entries, snaps[2].ID)
	}
	if res, err := mr.Sync(ctx); err != nil || res.Pulled != "" {
		t.Errorf("sync with nothing new = %+v, %v", res, err)
	}
}

func TestCredentialsNeverInErrors(t *testing.T) {
	e := newEnv(t)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-"+e.srv.Secret())
	loc, _ := bucket.ParseURL("s3://" + e.name + "/p")
	b, err := s3bucket.Open(s3test.Context(t), loc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.List(s3test.Context(t), "")
	if err == nil {
		t.Fatal("a wrong secret was accepted")
	}
	if strings.Contains(err.Error(), e.srv.Secret()) || !strings.Contains(err.Error(), "credentials") {
		t.Errorf("error = %v; want it to name the credentials to check, never the secret", err)
	}
}

// An access key the store does not know: versitygw answers 404
// XAdminUserNotFound, which was taken for "no such object" (review5 F10:
// push said a lock PUT found no such object). A put never means that.
func TestUnknownAccessKeyIsNotAMissingObject(t *testing.T) {
	e := newEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "NOSUCHKEY")
	loc, _ := bucket.ParseURL("s3://" + e.name + "/p")
	b, err := s3bucket.Open(s3test.Context(t), loc)
	if err != nil {
		t.Fatal(err)
	}
	for op, err := range map[string]error{
		"put":  b.Put(s3test.Context(t), "locks/x.json", strings.NewReader("{}"), 2, bucket.PutOptions{}),
		"list": func() error { _, err := b.List(s3test.Context(t), ""); return err }(),
	} {
		if err == nil || errors.Is(err, bucket.ErrNotFound) || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
			t.Errorf("%s with an unknown access key: %v; want an error naming AWS_ACCESS_KEY_ID", op, err)
		}
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in, bucket, prefix string
		ok                 bool
	}{
		{"s3://team-vault/main", "team-vault", "main", true},
		{"s3://team-vault", "team-vault", "", true},
		{"s3://team-vault/a/b/", "team-vault", "a/b", true},
		{"S3://team-vault/x", "team-vault", "x", true},
		{"s3://Team/x", "", "", false},
		{"s3://ab/x", "", "", false},
		{"s3://b-ok/a/../b", "", "", false},
		{"s3://key:secret@bucket/x", "", "", false},
		{"/local/dir", "", "", false},
		{"s3://bucket/x?versionId=1", "", "", false},
	} {
		loc, err := bucket.ParseURL(tc.in)
		if (err == nil) != tc.ok || loc.Bucket != tc.bucket || loc.Prefix != tc.prefix {
			t.Errorf("ParseURL(%q) = %+v, %v", tc.in, loc, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret@") {
			t.Errorf("ParseURL(%q) error repeats the credentials: %v", tc.in, err)
		}
	}
}

// A manifest object that does not read as its snapshot's manifest is
// refused by pull with the fix in the message, and pushing the snapshot
// again replaces it; a valid manifest of another snapshot under the same
// id is a conflict that push leaves alone.
func TestPushReplacesADamagedManifest(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	s := publish(t, t.TempDir(), files{"a": blob(1000, 1)})
	if _, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	obj := e.objectPath(bucket.ManifestKey(s.ID))
	good := manifestBytes(t, s.Dir)
	other := publish(t, t.TempDir(), files{"b": blob(10, 2)})
	for _, tc := range []struct {
		name   string
		damage []byte
	}{
		{"cut short", good[:len(good)/2]},
		{"empty", nil},
		{"a byte changed", func() []byte {
			b := bytes.Clone(good)
			i := bytes.Index(b, []byte(`"created"`))
			b[i+len(`"created":"`)] ^= 1 // still JSON, a digit of the year changed
			return b
		}()},
		{"another snapshot's manifest", manifestBytes(t, other.Dir)},
		{"its format version changed", bytes.Replace(good, []byte(fmt.Sprintf(`"format_version":%d`, format.Version)), []byte(`"format_version":99`), 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(obj, tc.damage, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := bucket.Pull(ctx, e.b, t.TempDir(), s.ID, bucket.PullOptions{})
			if !errors.Is(err, bucket.ErrCorrupt) || !strings.Contains(err.Error(), "push the snapshot again") {
				t.Fatalf("pull of a damaged manifest: %v, want ErrCorrupt saying to push again", err)
			}
			res, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{})
			if err != nil || !res.RepairedManifest || res.Present || res.Uploaded != 1 {
				t.Fatalf("push over a damaged manifest = %+v, %v; want the manifest replaced", res, err)
			}
			if have, _ := os.ReadFile(obj); !bytes.Equal(have, good) {
				t.Fatal("the manifest object is not the snapshot's manifest after the push")
			}
			if _, err := bucket.Pull(ctx, e.b, t.TempDir(), s.ID, bucket.PullOptions{}); err != nil {
				t.Fatalf("pull after the repair: %v", err)
			}
		})
	}
	// A well-formed manifest under the id that is not the local one.
	m := *s.Manifest
	m.Created = m.Created.Add(time.Hour)
	conflicting, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(obj, conflicting, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{}); !errors.Is(err, bucket.ErrConflict) {
		t.Fatalf("push over another snapshot's manifest under the id: %v, want ErrConflict", err)
	}
	if have, _ := os.ReadFile(obj); !bytes.Equal(have, conflicting) {
		t.Fatal("a refused push replaced a valid manifest")
	}
}
