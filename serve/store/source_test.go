package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket/s3bucket"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket/s3test"
)

func openBucket(t *testing.T, url string) bucket.Bucket {
	t.Helper()
	loc, err := bucket.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s3bucket.Open(s3test.Context(t), loc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func push(t *testing.T, b bucket.Bucket, dir string) {
	t.Helper()
	if _, err := bucket.Push(s3test.Context(t), b, dir, bucket.PushOptions{}); err != nil {
		t.Fatal(err)
	}
}

func cached(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := snapshot.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	return ids
}

// TestBucketSource serves a bucket through a cache while readers run:
// swaps to each pushed snapshot, keeps a leased one until it is released,
// refuses a damaged download while the current snapshot keeps serving,
// and serves the cache when the bucket does not answer.
func TestBucketSource(t *testing.T) {
	f := newFixture(t)
	srv := s3test.Start(t)
	srv.Setenv(t)
	url := "s3://" + srv.Bucket(t) + "/vault"
	b := openBucket(t, url)
	cache := t.TempDir()
	st, err := NewFrom(Bucket(&bucket.Mirror{Bucket: b, Dir: cache, Keep: 1}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	if st.Source() != url || st.DataDir() != cache {
		t.Errorf("source %q, data dir %q", st.Source(), st.DataDir())
	}

	// Readers throughout: never a nil or closed snapshot once serving.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads atomic.Int64
	startReaders := func() {
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					s, release := st.Acquire()
					if s == nil {
						t.Error("a reader found nothing served")
						release()
						return
					}
					if s.Manifest.Counts.Notes == 0 {
						t.Error("a reader found an empty snapshot")
					}
					reads.Add(1)
					release()
				}
			}()
		}
	}

	r1 := f.publish()
	push(t, b, r1.Dir)
	if res := refresh(t, st); res.Current != r1.ID || !res.Swapped {
		t.Fatalf("first refresh = %+v, want %s", res, r1.ID)
	}
	startReaders()
	held, release := st.Acquire()

	r2 := f.publish()
	push(t, b, r2.Dir)
	if res := refresh(t, st); res.Current != r2.ID {
		t.Fatalf("refresh after a push = %+v, want %s", res, r2.ID)
	}
	if ids := cached(t, cache); len(ids) != 2 {
		t.Errorf("cache holds %v while %s is still read, want both", ids, held.ID)
	}
	release()
	eventually(t, "the old snapshot to close", func() bool { return !inUse(t, cache, r1.ID) })
	refresh(t, st)
	if ids := cached(t, cache); len(ids) != 1 || ids[0] != r2.ID {
		t.Errorf("cache holds %v after the old snapshot was released, want only %s", ids, r2.ID)
	}

	// r3 arrives with a damaged object.
	r3 := f.publish()
	old := map[string]bool{}
	for _, fi := range r2.Manifest.Files {
		old[fi.SHA256] = true
	}
	var key string
	for name, fi := range r3.Manifest.Files {
		if !old[fi.SHA256] {
			key = bucket.FileKey(fi.SHA256)
			content, _ := os.ReadFile(filepath.Join(r3.Dir, filepath.FromSlash(name)))
			bad := bytes.Clone(content)
			bad[0] ^= 1
			if err := b.Put(s3test.Context(t), key, bytes.NewReader(bad), int64(len(bad)), bucket.PutOptions{}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	push(t, b, r3.Dir)
	res := refresh(t, st)
	if res.Current != r2.ID || len(res.Rejected) != 1 || res.Rejected[0].ID != r3.ID || !strings.Contains(res.Rejected[0].Reason, "sha256 mismatch") {
		t.Fatalf("refresh with a damaged object = %+v; want %s rejected and %s served", res, r3.ID, r2.ID)
	}
	if s := st.Stats(); s.Rejected != 1 || s.LastRejection == nil || s.LastRejection.ID != r3.ID {
		t.Errorf("stats after the rejection: %+v", s)
	}
	if ids := cached(t, cache); len(ids) != 1 {
		t.Errorf("a refused download left %v in the cache", ids)
	}
	if err := b.Delete(s3test.Context(t), key); err != nil {
		t.Fatal(err)
	}
	push(t, b, r3.Dir)
	if res := refresh(t, st); res.Current != r3.ID {
		t.Fatalf("refresh after the repair = %+v, want %s", res, r3.ID)
	}
	close(stop)
	wg.Wait()
	if reads.Load() == 0 {
		t.Error("the readers read nothing")
	}

	// A bucket that does not answer: the cache is served.
	cache2 := t.TempDir()
	if _, err := bucket.Pull(s3test.Context(t), b, cache2, "", bucket.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	gone := openBucket(t, "s3://no-such-bucket-here/vault")
	st2, err := NewFrom(Bucket(&bucket.Mirror{Bucket: gone, Dir: cache2, Keep: 1}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close(context.Background()) })
	if res := refresh(t, st2); res.Current != r3.ID {
		t.Errorf("refresh with the bucket gone = %+v, want the cached %s", res, r3.ID)
	}
	// ...and the failing polls show in the stats (/status, vault_status,
	// vaultgraph_source_errors_total), not only in the log (review5 F18).
	first := st2.Stats().SourceError
	refresh(t, st2)
	e := st2.Stats()
	if first == nil || e.SourceError == nil || e.SourceErrors != 2 || e.SourceError.Failures != 2 || !e.SourceError.Since.Equal(first.Since) ||
		!strings.Contains(e.SourceError.Reason, "does not exist") {
		t.Errorf("stats after two polls of a bucket that does not answer: %+v (first %+v)", e, first)
	}
	if e := st.Stats(); e.SourceError != nil || e.SourceErrors != 0 {
		t.Errorf("a bucket that answers: %+v", e)
	}
}
