package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// loadNotes is the number of Load/ notes (added one per publish) a
// snapshot holds; the demo vault has 31 notes besides them.
type observation struct {
	kind     string // status, query, note, search
	snapshot string
	value    int  // status: notes; query: Load/ notes counted by Cypher; note: the K asked for
	found    bool // note: 200 rather than 404
}

// TestSwapUnderLoad sends requests continuously from several clients while
// the indexer publishes five new snapshots and every snapshot but the
// newest is deleted from disk as soon as it is replaced. No request may
// fail; every answer must be consistent with the one snapshot it names;
// afterwards only the newest snapshot is open, mapped and leased, and open
// file descriptors and heap are back to where they were.
func TestSwapUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes six snapshots")
	}
	vault := copyDemoVault(t)
	data := t.TempDir()
	first, err := index(vault, data)
	if err != nil {
		t.Fatal(err)
	}
	var expected sync.Map // snapshot id -> number of Load/ notes
	expected.Store(first.ID, 0)
	ts := startServer(t, data, serverConfig{})
	watchCtx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan error)
	go func() { watched <- ts.st.Watch(watchCtx, store.WatchOptions{Poll: 250 * time.Millisecond}) }()
	defer func() { stopWatch(); <-watched }()

	// Baselines, after a warm-up so that lazily built state (pools,
	// metrics series, the graph's buffer pool) exists on both sides.
	var obs []observation
	for i := range 20 {
		if _, err := ts.observe(i%4, rand.New(rand.NewPCG(1, uint64(i))), &obs); err != nil {
			t.Fatal(err)
		}
	}
	ts.client.CloseIdleConnections()
	baseFDs := settledFDs(t)
	baseHeap := heapInuse()

	var (
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []string
		requests atomic.Int64
	)
	obs = obs[:0]
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			var mine []observation
			for i := 0; ; i++ {
				select {
				case <-stop:
					mu.Lock()
					obs = append(obs, mine...)
					mu.Unlock()
					return
				default:
				}
				if _, err := ts.observe(i%4, rng, &mine); err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
				}
				requests.Add(1)
			}
		}()
	}

	var ids []string
	for k := 1; k <= 5; k++ {
		note := filepath.Join(vault, "Load", fmt.Sprintf("Note %d.md", k))
		os.MkdirAll(filepath.Dir(note), 0o755)
		if err := os.WriteFile(note, []byte(fmt.Sprintf("# Load note %d\nWritten under load; see [[Alice]].\n", k)), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := index(vault, data)
		if err != nil {
			t.Fatal(err)
		}
		expected.Store(res.ID, k)
		ids = append(ids, res.ID)
		eventually(t, "the server swaps to "+res.ID, func() bool { return ts.st.Current() == res.ID })
		// Delete every older snapshot at once, while requests may still
		// run on the one just replaced.
		entries, err := snapshot.List(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries[:len(entries)-1] {
			if err := os.RemoveAll(e.Dir); err != nil {
				t.Fatal(err)
			}
		}
	}
	served := requests.Load()
	eventually(t, "requests on the last snapshot", func() bool { return requests.Load() > served+200 })
	close(stop)
	wg.Wait()

	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed; first: %s", len(failures), requests.Load(), failures[0])
	}
	seen := map[string]int{}
	for _, o := range obs {
		v, ok := expected.Load(o.snapshot)
		if !ok {
			t.Fatalf("an answer names snapshot %q, which was never published", o.snapshot)
		}
		k := v.(int)
		seen[o.snapshot]++
		switch {
		case o.kind == "status" && o.value != 31+k,
			o.kind == "query" && o.value != k,
			o.kind == "note" && o.found != (o.value <= k):
			t.Errorf("inconsistent answer from %s (holding %d load notes): %+v", o.snapshot, k, o)
		}
	}
	t.Logf("%d requests, answers by snapshot: %v", requests.Load(), seen)
	last := ids[len(ids)-1]
	if len(seen) < 2 || seen[last] == 0 {
		t.Errorf("answers came from %v; want several snapshots including the last, %s", seen, last)
	}
	if st := ts.st.Stats(); st.Swaps != 5 || st.Rejected != 0 {
		t.Errorf("stats = %+v, want 5 swaps and no rejection", st)
	}

	// Everything but the newest snapshot is closed, unmapped and unleased,
	// and the process is back to its baseline.
	eventually(t, "retired snapshots close", func() bool { return ts.st.Stats().Open == 1 })
	for _, id := range append([]string{first.ID}, ids[:len(ids)-1]...) {
		if used, err := snapshot.InUse(data, id); err != nil || used {
			t.Errorf("snapshot %s still leased (%v)", id, err)
		}
	}
	for _, m := range mappedFiles(t, data) {
		if !strings.Contains(m, last) {
			t.Errorf("a retired snapshot's file is still mapped: %s", m)
		}
	}
	ts.client.CloseIdleConnections()
	eventually(t, fmt.Sprintf("open file descriptors back to %d", baseFDs), func() bool { return countFDs(t) <= baseFDs })
	heap := heapInuse()
	t.Logf("heap in use: %d KiB before, %d KiB after", baseHeap>>10, heap>>10)
	if heap > 2*baseHeap+16<<20 {
		t.Errorf("heap grew from %d to %d bytes", baseHeap, heap)
	}
}

// observe sends one request of the given kind and records what the
// answer says. Any transport error, unexpected status or mismatch between
// the X-Snapshot-Id header and the body is an error.
func (ts *testServer) observe(kind int, rng *rand.Rand, out *[]observation) (*response, error) {
	var req request
	var o observation
	switch kind {
	case 0:
		req, o.kind = request{path: "/status"}, "status"
	case 1:
		req, o.kind = request{method: "POST", path: "/query", body: `{"query": "MATCH (n) WHERE n.path STARTS WITH 'Load/' RETURN count(n) AS c"}`}, "query"
	case 2:
		o.kind, o.value = "note", 1+rng.IntN(5)
		req = request{path: fmt.Sprintf("/notes/Load%%2FNote%%20%d.md", o.value)}
	default:
		req, o.kind = request{method: "POST", path: "/search", body: `{"query": "load note written under load", "k": 5}`}, "search"
	}
	r, err := ts.try(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.kind, err)
	}
	ok := r.status == http.StatusOK || (o.kind == "note" && r.status == http.StatusNotFound)
	if !ok {
		return r, fmt.Errorf("%s: status %d: %s", o.kind, r.status, r.body)
	}
	var body struct {
		Snapshot string
		Counts   struct{ Notes int }
		Rows     [][]int
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		return r, fmt.Errorf("%s: %w: %s", o.kind, err, r.body)
	}
	if h := r.header.Get("X-Snapshot-Id"); h == "" || h != body.Snapshot {
		return r, fmt.Errorf("%s: header names %q, body %q", o.kind, h, body.Snapshot)
	}
	o.snapshot = body.Snapshot
	switch o.kind {
	case "status":
		o.value = body.Counts.Notes
	case "query":
		if len(body.Rows) != 1 || len(body.Rows[0]) != 1 {
			return r, fmt.Errorf("query: %s", r.body)
		}
		o.value = body.Rows[0][0]
	case "note":
		o.found = r.status == http.StatusOK
	}
	*out = append(*out, o)
	return r, nil
}

func countFDs(t *testing.T) int {
	t.Helper()
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(des)
}

// settledFDs waits for connections the server is still closing.
func settledFDs(t *testing.T) int {
	n := countFDs(t)
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		m := countFDs(t)
		if m == n {
			return n
		}
		n = m
	}
	return n
}

func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// mappedFiles lists the memory-mapped files under dir.
func mappedFiles(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps")
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), dir) {
			out = append(out, sc.Text())
		}
	}
	return out
}
