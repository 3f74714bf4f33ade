package indexer

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// Public repositories measured by BenchmarkPublicRepository, brought in for
// the measurement only (never committed, never copied into the project):
//
//	git clone https://github.com/pallets/flask /tmp/pub/flask
//	git clone https://github.com/honojs/hono /tmp/pub/hono
//
// VAULTGRAPH_PUBLIC_REPOS names another folder holding them.
var publicRepos = []struct {
	name          string
	commit, saved string // files changed by the commit and the save
	comment       string // how a line comment starts in them
}{
	{"flask", "src/flask/helpers.py", "src/flask/app.py", "#"},
	{"hono", "src/hono.ts", "src/context.ts", "//"},
}

// publicRepo returns the path of a public repository, skipping with what
// to do when it is absent (as in CI).
func publicRepo(tb testing.TB, name string) string {
	tb.Helper()
	root := os.Getenv("VAULTGRAPH_PUBLIC_REPOS")
	if root == "" {
		root = "/tmp/pub"
	}
	p := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(p, ".git")); err != nil {
		tb.Skipf("%s is absent: clone the public repository there to measure it (see publicRepos), or set VAULTGRAPH_PUBLIC_REPOS", p)
	}
	return p
}

// BenchmarkPublicRepository indexes the demo vault beside a clone of each
// public repository (made under the temporary folder: the repository
// itself is only read), with the graph stage (updated in place after the
// first run, or always built from scratch) and without it, then again
// after one commit and after one saved file. It reports seconds per 1,000 files
// for the first run and seconds for each incremental run.
//
//	go test ./indexer -run '^$' -bench BenchmarkPublicRepository -benchtime 1x
func BenchmarkPublicRepository(b *testing.B) {
	vault, err := filepath.Abs("../testdata/demo-vault")
	if err != nil {
		b.Fatal(err)
	}
	for _, pr := range publicRepos {
		for _, mode := range []struct {
			name  string
			graph *GraphStage // nil: no graph stage
		}{
			{"graph", &GraphStage{UpdateLimit: benchGraphLimit()}},
			{"no-graph", nil},
		} {
			withGraph := mode.graph != nil
			b.Run(pr.name+"/"+mode.name, func(b *testing.B) {
				src := publicRepo(b, pr.name)
				e, err := embed.NewStatic()
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					b.StopTimer()
					tmp := b.TempDir()
					clone := filepath.Join(tmp, pr.name)
					git(b, "", "clone", "--quiet", "--no-hardlinks", src, clone)
					data := filepath.Join(tmp, "data")
					stages := func() []Stage {
						st := []Stage{BM25Stage{}, &EmbedStage{Embedder: e}}
						if withGraph {
							st = append(st, *mode.graph)
						}
						return st
					}
					run := func(what, data string, st []Stage) (*Result, time.Duration) {
						start := time.Now()
						res, err := Run(b.Context(), Options{Vault: vault, Data: data, Repos: []Repo{{Name: pr.name, Path: clone}}, Stages: st})
						if err != nil {
							b.Fatalf("%s: %v", what, err)
						}
						return res, time.Since(start)
					}
					// index runs the stages; with the graph, the same run is
					// also made on a copy of the data directory with the graph
					// built from scratch, right before or after (in turn), so
					// that the two compare within one stretch of the
					// machine's load.
					rebuilt := map[string]time.Duration{}
					turn := 0
					index := func(what string) (*Result, time.Duration) {
						if !withGraph || what == "first run" {
							return run(what, data, stages())
						}
						b.StopTimer()
						copyData := filepath.Join(b.TempDir(), "data")
						if err := os.CopyFS(copyData, os.DirFS(data)); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
						rebuild := append(stages()[:2:2], GraphStage{UpdateLimit: -1})
						turn++
						if turn%2 == 0 {
							_, rebuilt[what] = run(what+", rebuilt", copyData, rebuild)
						}
						res, d := run(what, data, stages())
						if turn%2 == 1 {
							_, rebuilt[what] = run(what+", rebuilt", copyData, rebuild)
						}
						return res, d
					}
					b.StartTimer()
					first, firstTime := index("first run")
					files := first.Manifest.Counts.CodeFiles
					b.StopTimer()
					appendLine(b, filepath.Join(clone, pr.commit), "\n"+pr.comment+" vaultgraph benchmark\n")
					git(b, clone, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "--quiet", "-am", "benchmark commit")
					b.StartTimer()
					committed, commitTime := index("after a commit")
					b.StopTimer()
					appendLine(b, filepath.Join(clone, pr.saved), "\n"+pr.comment+" saved by the vaultgraph benchmark\n")
					b.StartTimer()
					saved, saveTime := index("after a saved file")
					b.StopTimer()
					b.ReportMetric(firstTime.Seconds()*1000/float64(files), "s/1000files")
					b.ReportMetric(commitTime.Seconds(), "s/commit")
					b.ReportMetric(saveTime.Seconds(), "s/save")
					if withGraph {
						b.ReportMetric(rebuilt["after a commit"].Seconds(), "s/commit-rebuilt")
						b.ReportMetric(rebuilt["after a saved file"].Seconds(), "s/save-rebuilt")
					}
					graphs := ""
					if withGraph {
						graphs = first.Manifest.Graph.Build + "/" + committed.Manifest.Graph.Build + "/" + saved.Manifest.Graph.Build
					}
					b.Logf("%s: %d files, %d symbols, %d code edges; first %v, commit %v (parsed %d, history %d), save %v (parsed %d); graph %s",
						pr.name, files, first.Manifest.Counts.Symbols, first.Manifest.Counts.CodeEdges, firstTime.Round(time.Millisecond),
						commitTime.Round(time.Millisecond), committed.CodeParsed, committed.HistoryRead, saveTime.Round(time.Millisecond), saved.CodeParsed, graphs)
					b.StartTimer()
				}
			})
		}
	}
}

func git(tb testing.TB, dir string, args ...string) {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func appendLine(tb testing.TB, path, line string) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.WriteString(line); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// benchGraphLimit is GraphStage.UpdateLimit for the benchmark:
// VAULTGRAPH_BENCH_GRAPH_LIMIT, else the default.
func benchGraphLimit() float64 {
	var f float64
	fmt.Sscan(os.Getenv("VAULTGRAPH_BENCH_GRAPH_LIMIT"), &f)
	return f
}
