package bucket_test

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket/s3test"
)

func randomBytes(seed int64, n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

// edited is b with a few pages rewritten, as a graph database changes
// after a one-note edit.
func edited(b []byte, seed int64) []byte {
	out := bytes.Clone(b)
	r := rand.New(rand.NewSource(seed))
	for range 3 {
		at := r.Intn(len(out)/4096) * 4096
		copy(out[at:], randomBytes(seed*31+int64(at), 4096))
	}
	return out
}

// verified fails t unless the snapshot in dir verifies file by file.
func verified(t *testing.T, dir string) {
	t.Helper()
	if _, problems, err := snapshot.Verify(dir); err != nil || len(problems) > 0 {
		t.Fatalf("%s does not verify: %v %v", dir, err, problems)
	}
}

// objects counts the bucket's objects under prefix.
func (e *env) objects(t *testing.T, prefix string) int {
	t.Helper()
	objs, err := e.b.List(s3test.Context(t), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return len(objs)
}

// TestPushSendsPatchesOfTheParentsFiles: a large file that changed a few
// pages from the parent's goes as a patch; a server holding the parent
// applies it, one holding nothing replays it onto the file object, and
// both get the snapshot byte for byte. --full-objects sends it whole.
func TestPushSendsPatchesOfTheParentsFiles(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	src := t.TempDir()
	graph := randomBytes(1, 2<<20)
	s1 := publish(t, src, files{"graph.kuzu": graph, "nodes.parquet": []byte("notes v1")})
	if _, err := bucket.Push(ctx, e.b, s1.Dir, bucket.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if _, err := bucket.Pull(ctx, e.b, cache, s1.ID, bucket.PullOptions{}); err != nil {
		t.Fatal(err)
	}

	s2 := publish(t, src, files{"graph.kuzu": edited(graph, 2), "nodes.parquet": []byte("notes v2")})
	res, err := bucket.Push(ctx, e.b, s2.Dir, bucket.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("push of the edit: %d of %d bytes, %d as a patch", res.UploadedBytes, res.Bytes, res.PatchBytes)
	if res.Patched != 1 || res.PatchBytes == 0 || res.PatchBytes > int64(len(graph))/20 || res.Uploaded != 3 {
		t.Errorf("push of the edit = %+v; want graph.kuzu as a patch under 5%% of it, nodes.parquet and the manifest", res)
	}
	target := s2.Manifest.Files["graph.kuzu"].SHA256
	if _, err := e.b.Head(ctx, bucket.FileKey(target)); !errors.Is(err, bucket.ErrNotFound) {
		t.Errorf("the patched file is in the bucket whole too: %v", err)
	}
	if _, err := e.b.Head(ctx, bucket.PatchKey(target, s1.Manifest.Files["graph.kuzu"].SHA256)); err != nil {
		t.Errorf("no patch object: %v", err)
	}
	if again, err := bucket.Push(ctx, e.b, s2.Dir, bucket.PushOptions{}); err != nil || !again.Present || again.Patched != 1 {
		t.Errorf("second push = %+v, %v; want present, the patch found", again, err)
	}

	pr, err := bucket.Pull(ctx, e.b, cache, s2.ID, bucket.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pull next to the parent: %d of %d bytes", pr.DownloadedBytes, pr.Bytes)
	if pr.Patched != 1 || pr.DownloadedBytes > int64(len(graph))/20 {
		t.Errorf("pull next to the parent = %+v; want graph.kuzu made from a patch", pr)
	}
	verified(t, pr.Dir)

	fresh, err := bucket.Pull(ctx, e.b, t.TempDir(), s2.ID, bucket.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Patched != 1 || fresh.DownloadedBytes < int64(len(graph)) {
		t.Errorf("pull without the parent = %+v; want the base file object and the patch", fresh)
	}
	verified(t, fresh.Dir)
	for _, d := range []string{pr.Dir, fresh.Dir} {
		if got, _ := os.ReadFile(d + "/graph.kuzu"); !bytes.Equal(got, edited(graph, 2)) {
			t.Errorf("%s/graph.kuzu is not the edited file", d)
		}
		if des, _ := os.ReadDir(d); len(des) != 3 {
			t.Errorf("%s holds %d entries, want the 2 files and the manifest (no base left over)", d, len(des))
		}
	}

	s3 := publish(t, src, files{"graph.kuzu": edited(graph, 3), "nodes.parquet": []byte("notes v3")})
	full, err := bucket.Push(ctx, e.b, s3.Dir, bucket.PushOptions{FullObjects: true})
	if err != nil || full.Patched != 0 || full.UploadedBytes < int64(len(graph)) {
		t.Errorf("push --full-objects = %+v, %v; want graph.kuzu whole", full, err)
	}
}

// TestPatchChainsAreBounded: every MaxChain patches, a file goes whole,
// so a new server replays at most MaxChain of them; gc keeps the chain a
// kept snapshot is made with and removes the rest.
func TestPatchChainsAreBounded(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	src := t.TempDir()
	const maxChain = 3
	graph := randomBytes(4, 256<<10)
	var snaps []*snapshot.Snapshot
	var patched []int
	for i := range 9 {
		graph = edited(graph, int64(10+i))
		s := publish(t, src, files{"graph.kuzu": graph})
		res, err := bucket.Push(ctx, e.b, s.Dir, bucket.PushOptions{MaxChain: maxChain})
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
		patched = append(patched, res.Patched)
	}
	// The first has no parent in the bucket; then 3 patches, one whole...
	want := []int{0, 1, 1, 1, 0, 1, 1, 1, 0}
	for i := range want {
		if patched[i] != want[i] {
			t.Fatalf("files sent as patches per push = %v, want %v", patched, want)
		}
	}
	if n := e.objects(t, "files/"); n != 3 {
		t.Errorf("%d file objects, want 3", n)
	}
	// The newest but one is 3 patches from its file object.
	pr, err := bucket.Pull(ctx, e.b, t.TempDir(), snaps[7].ID, bucket.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	verified(t, pr.Dir)
	if pr.DownloadedBytes < 256<<10 || pr.DownloadedBytes > 256<<10+256<<10/2 {
		t.Errorf("pull of a file 3 patches deep downloaded %d bytes", pr.DownloadedBytes)
	}

	// Keep the 2 newest: snaps[7] needs the file object of snaps[4] and
	// 3 patches, snaps[8] its own file object.
	res, err := bucket.GC(ctx, e.b, bucket.GCOptions{Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	if files, patches := e.objects(t, "files/"), e.objects(t, "patches/"); files != 2 || patches != 3 {
		t.Errorf("after gc: %d file objects and %d patches, want 2 and 3 (gc = %+v)", files, patches, res)
	}
	for _, s := range snaps[7:] {
		pr, err := bucket.Pull(ctx, e.b, t.TempDir(), s.ID, bucket.PullOptions{})
		if err != nil {
			t.Fatalf("kept snapshot %s after gc: %v", s.ID, err)
		}
		verified(t, pr.Dir)
	}
}

// TestDamagedPatchIsRefused: a patch that does not make its file fails
// the pull, naming it, and publishes nothing; a push puts back one of the
// wrong size.
func TestDamagedPatchIsRefused(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	src := t.TempDir()
	graph := randomBytes(5, 1<<20)
	s1 := publish(t, src, files{"graph.kuzu": graph})
	if _, err := bucket.Push(ctx, e.b, s1.Dir, bucket.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	s2 := publish(t, src, files{"graph.kuzu": edited(graph, 6)})
	if res, err := bucket.Push(ctx, e.b, s2.Dir, bucket.PushOptions{}); err != nil || res.Patched != 1 {
		t.Fatalf("push = %+v, %v; want a patch", res, err)
	}
	key := bucket.PatchKey(s2.Manifest.Files["graph.kuzu"].SHA256, s1.Manifest.Files["graph.kuzu"].SHA256)
	obj := e.objectPath(key)
	good, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if _, err := bucket.Pull(ctx, e.b, cache, s1.ID, bucket.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"a literal byte flipped", func(b []byte) []byte { b[len(b)-10] ^= 0xff; return b }},
		{"cut short", func(b []byte) []byte { return b[:len(b)/2] }},
		{"not a patch", func(b []byte) []byte { return bytes.Repeat([]byte("x"), len(b)) }},
		{"an operation garbled", func(b []byte) []byte { b[14] = 'z'; return b }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(obj, tc.damage(bytes.Clone(good)), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(obj, good, 0o644)
			_, err := bucket.Pull(ctx, e.b, cache, s2.ID, bucket.PullOptions{})
			if !errors.Is(err, bucket.ErrCorrupt) || !strings.Contains(err.Error(), "graph.kuzu") || !strings.Contains(err.Error(), "push the snapshot again") {
				t.Fatalf("pull with a damaged patch: %v, want ErrCorrupt naming graph.kuzu and the fix", err)
			}
			if entries, _ := snapshot.List(cache); len(entries) != 1 || entries[0].ID != s1.ID {
				t.Errorf("a refused pull changed the cache: %v", entries)
			}
		})
	}
	if err := os.WriteFile(obj, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := bucket.Push(ctx, e.b, s2.Dir, bucket.PushOptions{})
	if err != nil || res.Repaired != 1 || res.Patched != 1 {
		t.Fatalf("push over a cut patch = %+v, %v; want it replaced", res, err)
	}
	pr, err := bucket.Pull(ctx, e.b, cache, s2.ID, bucket.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	verified(t, pr.Dir)
}

// TestPatchOntoADamagedLocalCopy: a cache whose copy of the parent's file
// is damaged (same size, a byte changed) still pulls the child: the base
// comes from the bucket, and the result verifies.
func TestPatchOntoADamagedLocalCopy(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	src := t.TempDir()
	graph := randomBytes(8, 1<<20)
	s1 := publish(t, src, files{"graph.kuzu": graph})
	if _, err := bucket.Push(ctx, e.b, s1.Dir, bucket.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	s2 := publish(t, src, files{"graph.kuzu": edited(graph, 9)})
	if res, err := bucket.Push(ctx, e.b, s2.Dir, bucket.PushOptions{}); err != nil || res.Patched != 1 {
		t.Fatalf("push = %+v, %v; want a patch", res, err)
	}
	cache := t.TempDir()
	p1, err := bucket.Pull(ctx, e.b, cache, s1.ID, bucket.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	local := p1.Dir + "/graph.kuzu"
	b, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	b[1000] ^= 0xff
	if err := os.WriteFile(local, b, 0o644); err != nil {
		t.Fatal(err)
	}
	pr, err := bucket.Pull(ctx, e.b, cache, s2.ID, bucket.PullOptions{})
	if err != nil {
		t.Fatalf("pull beside a damaged copy of the parent: %v", err)
	}
	verified(t, pr.Dir)
	if pr.DownloadedBytes < int64(len(graph)) {
		t.Errorf("pull = %+v; want the base downloaded from the bucket", pr)
	}
}

// TestNoPatchOntoACutBaseObject: when the bucket's object of the parent's
// file is cut short (a failed copy, a full disk), a patch onto it could
// never be applied: the file goes whole, and a fresh server pulls the
// child all the same.
func TestNoPatchOntoACutBaseObject(t *testing.T) {
	e := newEnv(t)
	ctx := s3test.Context(t)
	src := t.TempDir()
	graph := randomBytes(10, 1<<20)
	s1 := publish(t, src, files{"graph.kuzu": graph})
	if _, err := bucket.Push(ctx, e.b, s1.Dir, bucket.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	base := e.objectPath(bucket.FileKey(s1.Manifest.Files["graph.kuzu"].SHA256))
	if err := os.WriteFile(base, graph[:len(graph)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := publish(t, src, files{"graph.kuzu": edited(graph, 11)})
	res, err := bucket.Push(ctx, e.b, s2.Dir, bucket.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Patched != 0 || res.UploadedBytes < int64(len(graph)) {
		t.Errorf("push onto a cut base = %+v; want graph.kuzu uploaded whole", res)
	}
	pr, err := bucket.Pull(ctx, e.b, t.TempDir(), s2.ID, bucket.PullOptions{})
	if err != nil {
		t.Fatalf("pull of the child of a cut base: %v", err)
	}
	verified(t, pr.Dir)
}
