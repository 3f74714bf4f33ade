package codecontext_test

import (
	"context"
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
)

// goRepo indexes a Go repository (module example.com/kv, indexed as kv)
// of files, one commit, beside a vault of notes, and opens its code
// context without vectors.
func goRepo(t *testing.T, files, notes map[string]string) *codecontext.Index {
	t.Helper()
	repo := t.TempDir()
	r := gitrepotest.New(t, repo)
	all := map[string]string{"go.mod": "module example.com/kv\n\ngo 1.26\n"}
	for p, c := range files {
		all[p] = c
	}
	r.Commit("initial", all)
	vault := t.TempDir()
	if notes == nil {
		notes = map[string]string{"Readme.md": "# Readme\n\nThe key-value store.\n"}
	}
	gitrepotest.WriteVault(t, vault, notes)
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: t.TempDir(),
		Repos: []indexer.Repo{{Name: "kv", Path: repo}}, Stages: []indexer.Stage{indexer.BM25Stage{}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(res.Dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := codecontext.Open(s, codecontext.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// entryIDs are the ids of a bucket, in its order.
func entryIDs(es []codecontext.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// storeRepo: package store (gc.go with GC and retained, open.go, layout.go)
// with its by-name test, a test of retained, a benchmark file, and broad
// tests in other packages that import store and call much of it.
var storeRepo = map[string]string{
	"store/gc.go":         "package store\n\nfunc GC() int { return retained() }\n\nfunc retained() int { return 1 }\n",
	"store/open.go":       "package store\n\nfunc Open() {}\n\nfunc Latest() {}\n",
	"store/layout.go":     "package store\n\nfunc Dir() string { return \"\" }\n",
	"store/gc_test.go":    "package store\n\nimport \"testing\"\n\nfunc TestGC(t *testing.T) { GC() }\n",
	"store/keep_test.go":  "package store\n\nimport \"testing\"\n\nfunc TestRetainedKeepsNewest(t *testing.T) { retained() }\n",
	"store/bench_test.go": "package store\n\nimport \"testing\"\n\nfunc BenchmarkOpen(b *testing.B) { Open(); Latest(); GC(); Dir() }\n\nfunc BenchmarkGC(b *testing.B) { GC() }\n",
	"serve/serve.go":      "package serve\n\nimport \"example.com/kv/store\"\n\nfunc Serve() { store.Open(); store.Latest() }\n",
	"serve/swap_test.go": "package serve\n\nimport (\n\t\"testing\"\n\n\t\"example.com/kv/store\"\n)\n\n" +
		"func TestSwap(t *testing.T) { store.Open(); store.Latest(); store.Dir(); store.GC(); Serve() }\n",
	"cmd/kv/main.go": "package main\n\nimport \"example.com/kv/store\"\n\nfunc main() { store.GC() }\n",
	"cmd/kv/main_test.go": "package main\n\nimport (\n\t\"testing\"\n\n\t\"example.com/kv/serve\"\n\t\"example.com/kv/store\"\n)\n\n" +
		"func TestMain(t *testing.T) { store.Open(); store.Latest(); store.Dir(); serve.Serve(); main() }\n",
	"tools/dump.go": "package tools\n\nimport \"example.com/kv/store\"\n\nfunc Dump() { _ = store.Dir() }\n",
}

func TestMustTestPutsTheFilesOwnTestFirst(t *testing.T) {
	ix := goRepo(t, storeRepo, nil)
	a, err := ix.Impact(context.Background(), codecontext.ImpactRequest{ID: "code:kv/store/gc.go#retained"})
	if err != nil {
		t.Fatal(err)
	}
	tests := entryIDs(a.MustTest)
	// The test named for gc.go, then the test calling retained; the
	// benchmarks, which call GC, last.
	if len(tests) < 3 || !slices.Equal(tests[:2], []string{"code:kv/store/gc_test.go", "code:kv/store/keep_test.go"}) {
		t.Errorf("must_test = %v; want gc_test.go, then keep_test.go", tests)
	}
	if i := slices.Index(tests, "code:kv/store/bench_test.go"); i >= 0 && i != len(tests)-1 {
		t.Errorf("must_test = %v; want the benchmarks-only bench_test.go last", tests)
	}
	// cmd/kv/main.go calls GC; tools/dump.go and serve/serve.go only
	// import package store.
	changes := entryIDs(a.MayChange)
	if len(changes) == 0 || changes[0] != "code:kv/cmd/kv/main.go" {
		t.Errorf("may_change = %v; want cmd/kv/main.go (calls GC) first", changes)
	}
}

func TestMustReadKeepsTheFileABugNotePointsAt(t *testing.T) {
	ix := goRepo(t, map[string]string{
		"watch/fsnotify.go": "package watch\n\n// Event is a rename, create or remove event.\ntype Event struct{ Op int }\n\n" +
			"// String names the event: rename, create, remove.\nfunc (e Event) String() string { return \"rename create remove event\" }\n\n" +
			"// Rename is the op of a rename event.\nconst Rename = 1\n\nfunc getOptions() int { return 0 }\n",
		"watch/inotify.go": "package watch\n\nfunc handleEvent(mask uint32) { _ = getOptions() }\n",
	}, map[string]string{
		"Bugs/Rename events lost.md": "# Rename events lost\n\nRename events are lost: only a create arrives.\n\naffects:: [[code:kv/watch/inotify.go#handleEvent]]\n",
	})
	a, err := ix.Retrieve(context.Background(), codecontext.Request{Question: "rename events are lost, only a create arrives"})
	if err != nil {
		t.Fatal(err)
	}
	read := entryIDs(a.MustRead)
	if len(read) == 0 || read[0] != "code:kv/watch/inotify.go" {
		t.Errorf("must_read = %v; want first watch/inotify.go, which the matching bug note says is affected", read)
	}
}

func TestEntriesSayWhereTheSymbolsAre(t *testing.T) {
	files := map[string]string{}
	for p, c := range storeRepo {
		files[p] = c
	}
	files["store/gc.go"] = "package store\n\nfunc GC() int {\n\treturn retained()\n}\n\nfunc retained() int { return 1 }\n"
	ix := goRepo(t, files, map[string]string{"Retention.md": "# Retention\n\ndangerous:: [[code:kv/store/gc.go#retained]]\n"})
	a, err := ix.Impact(context.Background(), codecontext.ImpactRequest{ID: "code:kv/store/gc.go#retained"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.MustRead) != 1 || !slices.Equal(a.MustRead[0].Symbols, []string{"retained:7", "GC:3-5"}) {
		t.Errorf("must_read = %+v; want gc.go with symbols [retained:7 GC:3-5]", a.MustRead)
	}
	if len(a.Danger) != 1 || a.Danger[0].Lines != "7" {
		t.Errorf("danger = %+v; want retained with lines 7", a.Danger)
	}
}
