package vectors

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// Benchmarks of the figures the issue asks for. Run them one at a time,
// e.g.:
//
//	go test ./snapshot/vectors -run '^$' -bench 'Query100k' -benchtime 2000x -timeout 30m
//	go test ./snapshot/vectors -run '^$' -bench 'RealText20k' -benchtime 2000x
//	go test ./snapshot/vectors -run '^$' -bench 'Open100k'
//
// Each builds its data set and graph once per process (a minute or two at
// 100,000 vectors; -vectors.cache DIR keeps them for the next run) and
// reports recall@10 against an exact scan of the float32 vectors (so it
// counts what storing them as int8 codes costs), the median (p50) and 99th
// percentile query latency on one goroutine, and the speed-up of the graph
// over the exact scan measured in the same run. -vectors.ef, -vectors.m,
// -vectors.m0 and -vectors.efc change the beam widths measured and the
// graph's parameters.

var (
	benchM   = flag.Int("vectors.m", 0, "HNSW M for the benchmarks' graphs (default: DefaultParams)")
	benchM0  = flag.Int("vectors.m0", 0, "HNSW M0 for the benchmarks' graphs (default: 2*M)")
	benchEfC = flag.Int("vectors.efc", 0, "HNSW efConstruction for the benchmarks' graphs (default: DefaultParams)")
	benchEf  = flag.String("vectors.ef", "", "comma-separated efSearch values to measure (default: per benchmark)")
)

// benchParams are DefaultParams with the flags' overrides.
func benchParams() Params {
	p := DefaultParams()
	if *benchM > 0 {
		p.M, p.M0 = *benchM, 2**benchM
	}
	if *benchM0 > 0 {
		p.M0 = *benchM0
	}
	if *benchEfC > 0 {
		p.EfConstruction = *benchEfC
	}
	return p
}

func benchEfs(defaults ...int) []int {
	if *benchEf == "" {
		return defaults
	}
	var out []int
	for _, s := range strings.Split(*benchEf, ",") {
		var ef int
		fmt.Sscan(s, &ef)
		out = append(out, ef)
	}
	return out
}

var benchCache = flag.String("vectors.cache", "",
	"folder that keeps the benchmarks' vector files and graphs between runs (default: built anew, removed at exit)")

var benchVaults = flag.String("vectors.vaults", "/work/shared/vaults",
	"folder of real Markdown notes for BenchmarkRealText20k (generated text when absent)")

// benchIndex is a vector file and graph built for benchmarks.
type benchIndex struct {
	file    *File
	graph   *Graph
	rows    testRows // the float32 vectors written, for recall
	queries [][]float32
	build   time.Duration
	dir     string
	kept    bool // under -vectors.cache: not removed at exit
}

var benchIndexes sync.Map // name -> *benchIndex

// TestMain removes the benchmarks' data sets (hundreds of MB) at exit.
func TestMain(m *testing.M) {
	code := m.Run()
	benchIndexes.Range(func(_, v any) bool {
		bi := v.(*benchIndex)
		bi.graph.Close()
		bi.file.Close()
		if !bi.kept {
			os.RemoveAll(bi.dir)
		}
		return true
	})
	os.Exit(code)
}

// cachedIndex builds (once per process) a vector file and graph from set.
func cachedIndex(b *testing.B, name string, dims int, set func() vectorSet) *benchIndex {
	if v, ok := benchIndexes.Load(name); ok {
		return v.(*benchIndex)
	}
	if bi := openCachedIndex(b, name, set); bi != nil {
		return bi
	}
	s := set()
	dir, err := os.MkdirTemp("", "vaultgraph-bench-vectors-")
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "vectors")
	if err := WriteFile(path, Hash{1}, dims, s.rows.hashes, func(i int) []float32 { return s.rows.vecs[i] }); err != nil {
		b.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	g, err := Build(context.Background(), f, benchParams(), runtime.GOMAXPROCS(0), nil)
	if err != nil {
		b.Fatal(err)
	}
	bi := &benchIndex{file: f, rows: s.rows, queries: s.queries, build: time.Since(start), dir: dir}
	if err := g.WriteFile(filepath.Join(dir, "hnsw")); err != nil {
		b.Fatal(err)
	}
	if bi.graph, err = OpenGraph(filepath.Join(dir, "hnsw"), f); err != nil {
		b.Fatal(err)
	}
	if *benchCache != "" {
		keep := cacheDir(name)
		os.MkdirAll(filepath.Dir(keep), 0o755)
		if err := os.Rename(dir, keep); err != nil {
			b.Fatal(err)
		}
		bi.dir, bi.kept = keep, true
		b.Logf("kept in %s", keep)
	}
	benchIndexes.Store(name, bi)
	return bi
}

// cacheDir names a data set's folder under -vectors.cache by its graph
// parameters and layout.
func cacheDir(name string) string {
	p := benchParams()
	return filepath.Join(*benchCache, fmt.Sprintf("%s-m%d-m0%d-efc%d-layout%d", name, p.M, p.M0, p.EfConstruction, format.HNSWLayout))
}

// openCachedIndex opens a data set kept by an earlier run with
// -vectors.cache; the vectors and queries are drawn again (set), the graph
// is not rebuilt.
func openCachedIndex(b *testing.B, name string, set func() vectorSet) *benchIndex {
	if *benchCache == "" {
		return nil
	}
	dir := cacheDir(name)
	f, err := OpenFile(filepath.Join(dir, "vectors"))
	if err != nil {
		return nil
	}
	g, err := OpenGraph(filepath.Join(dir, "hnsw"), f)
	if err != nil {
		f.Close()
		return nil
	}
	s := set()
	bi := &benchIndex{file: f, graph: g, rows: s.rows, queries: s.queries, dir: dir, kept: true}
	benchIndexes.Store(name, bi)
	return bi
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*p)]
}

// benchQueries measures the graph's queries in the loop and reports
// recall@10, latency percentiles and the speed-up over exact scans of the
// same queries.
func benchQueries(b *testing.B, bi *benchIndex, ef int) {
	b.Logf("%d vectors of %d dims; graph %+v built in %s", bi.file.Len(), bi.file.Dims(), bi.graph.Params(), bi.build.Round(time.Millisecond))
	recall := recallAt(b, bi.graph, bi.rows, bi.queries, 10, ef)
	computed := 0
	for _, q := range bi.queries {
		_, n, err := bi.graph.search(q, 10, ef)
		if err != nil {
			b.Fatal(err)
		}
		computed += n
	}
	var exact []time.Duration
	for _, q := range bi.queries[:min(len(bi.queries), 100)] {
		start := time.Now()
		if _, err := bi.file.Search(q, 10, nil); err != nil {
			b.Fatal(err)
		}
		exact = append(exact, time.Since(start))
	}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		q := bi.queries[i%len(bi.queries)]
		i++
		start := time.Now()
		if _, err := bi.graph.Search(q, 10, ef); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	p50, e50 := percentile(lat, 0.5), percentile(exact, 0.5)
	b.ReportMetric(recall, "recall@10")
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
	b.ReportMetric(float64(e50.Microseconds()), "exact-p50-µs")
	b.ReportMetric(float64(e50)/float64(p50), "speedup-x")
	b.ReportMetric(100*float64(computed)/float64(len(bi.queries)*bi.file.Len()), "visited-%")
}

// BenchmarkQuery100k: 100,000 vectors of 384 dimensions, the size of a
// large vault's chunks. "latent" vectors are random with the low intrinsic
// dimension of text embeddings (32 latent dimensions plus noise);
// "uniform" vectors are uniform on the sphere, where every vector is
// almost equidistant from every other, the worst case of any index.
func BenchmarkQuery100k(b *testing.B) {
	for _, tc := range []struct {
		name string
		set  func() vectorSet
		ef   []int
	}{
		{"latent32", func() vectorSet { return latentSet(1, 100_000, 500, 384, 32) }, []int{64, 96, 128}},
		{"uniform", func() vectorSet { return uniformSet(1, 100_000, 500, 384) }, []int{128, 1024, 3072}},
	} {
		for _, ef := range benchEfs(tc.ef...) {
			b.Run(fmt.Sprintf("%s/ef=%d", tc.name, ef), func(b *testing.B) {
				benchQueries(b, cachedIndex(b, tc.name, 384, tc.set), ef)
			})
		}
	}
}

// BenchmarkRealText20k: 20,000 chunks of real notes (the shared vaults,
// else generated prose) embedded with the lexical embedder.
func BenchmarkRealText20k(b *testing.B) {
	for _, ef := range benchEfs(64, 128, 256) {
		b.Run(fmt.Sprintf("ef=%d", ef), func(b *testing.B) {
			benchQueries(b, cachedIndex(b, "realtext", embed.BuiltinDims, func() vectorSet {
				return realTextSet(b, embed.NewBuiltin(), 20_000, 500)
			}), ef)
		})
	}
}

// BenchmarkRealTextStatic20k is BenchmarkRealText20k with the default
// embedder's vectors (static word vectors plus lexical features).
func BenchmarkRealTextStatic20k(b *testing.B) {
	e, err := embed.NewStatic()
	if err != nil {
		b.Fatal(err)
	}
	for _, ef := range benchEfs(64, 96, 128, 256) {
		b.Run(fmt.Sprintf("ef=%d", ef), func(b *testing.B) {
			benchQueries(b, cachedIndex(b, "realtext-static", e.Info().Dimensions, func() vectorSet {
				return realTextSet(b, e, 20_000, 500)
			}), ef)
		})
	}
}

// realTextSet embeds n chunks of about 1,500 characters cut from real
// notes at paragraph breaks, and nq queries: the first sentence-like part
// of other chunks, as a user would type.
func realTextSet(b *testing.B, e embed.Embedder, n, nq int) vectorSet {
	chunks := realChunks(*benchVaults, n+nq)
	source := "the shared vaults"
	if len(chunks) < n+nq {
		chunks = generatedChunks(n + nq)
		source = "generated text"
	}
	b.Logf("real-text set: %d chunks from %s", n, source)
	vecs, err := embed.EmbedDocuments(context.Background(), e, chunks[:n], nil)
	if err != nil {
		b.Fatal(err)
	}
	var s vectorSet
	for i, text := range chunks[:n] {
		s.rows.hashes = append(s.rows.hashes, sha256.Sum256([]byte(fmt.Sprint(i, text))))
		s.rows.vecs = append(s.rows.vecs, vecs[i])
	}
	s.rows.sort()
	for _, text := range chunks[n:] {
		words := strings.Fields(text)
		q, _ := e.Embed(context.Background(), embed.Query, []string{strings.Join(words[:min(8, len(words))], " ")})
		s.queries = append(s.queries, q[0])
	}
	return s
}

func realChunks(root string, max int) []string {
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	// Interleave the vaults' files so the sample is not one vault alone.
	rand.New(rand.NewSource(1)).Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	var chunks []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var cur strings.Builder
		for _, para := range strings.Split(string(data), "\n\n") {
			if strings.TrimSpace(para) == "" {
				continue
			}
			cur.WriteString(para)
			cur.WriteString("\n\n")
			if cur.Len() >= 1500 {
				chunks = append(chunks, cur.String())
				cur.Reset()
			}
		}
		if len(strings.Fields(cur.String())) >= 5 {
			chunks = append(chunks, cur.String())
		}
		if len(chunks) >= max {
			return chunks[:max]
		}
	}
	return chunks
}

// generatedChunks writes prose from a Zipf-distributed vocabulary in a few
// hundred topics, when no real notes are at hand.
func generatedChunks(n int) []string {
	r := rand.New(rand.NewSource(2))
	vocab := make([]string, 20000)
	for i := range vocab {
		var w strings.Builder
		for range 3 + r.Intn(7) {
			w.WriteByte(byte('a' + r.Intn(26)))
		}
		vocab[i] = w.String()
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	out := make([]string, n)
	for i := range out {
		topic := r.Intn(300) * 60
		var sb strings.Builder
		for sb.Len() < 1500 {
			w := int(zipf.Uint64())
			if r.Intn(3) == 0 {
				w = (topic + r.Intn(60)) % len(vocab)
			}
			sb.WriteString(vocab[w])
			sb.WriteByte(' ')
		}
		out[i] = sb.String()
	}
	return out
}

// BenchmarkOpen100k is the server's load time of a 100,000-vector index:
// memory-mapping the vector file and the graph and checking both.
func BenchmarkOpen100k(b *testing.B) {
	bi := cachedIndex(b, "latent32", 384, func() vectorSet { return latentSet(1, 100_000, 500, 384, 32) })
	for b.Loop() {
		f, err := OpenFile(filepath.Join(bi.dir, "vectors"))
		if err != nil {
			b.Fatal(err)
		}
		g, err := OpenGraph(filepath.Join(bi.dir, "hnsw"), f)
		if err != nil {
			b.Fatal(err)
		}
		g.Close()
		f.Close()
	}
}
