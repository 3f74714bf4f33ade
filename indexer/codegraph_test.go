package indexer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	gogit "github.com/go-git/go-git/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/diff"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

func codeRun(t *testing.T, vault, data, repo string, stages ...Stage) *Result {
	t.Helper()
	return run(t, vault, data, func(o *Options) {
		o.Repos = []Repo{{Name: "app", Path: repo}}
		o.Stages = stages
	})
}

func edgeSet(t *testing.T, dir string, types ...string) []string {
	t.Helper()
	edges, err := snapshot.ReadTable[format.Edge](filepath.Join(dir, format.CodeEdgesFile))
	must(t, err)
	var out []string
	for _, e := range edges {
		if slices.Contains(types, e.Type) {
			s := e.Source + " -" + e.Type + "-> " + e.Target
			if e.Unresolved {
				s += " (unresolved)"
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func TestRepositoryBesideTheVault(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.Podcast(t, repoDir)
	r.Write(map[string]string{"notes.log": "untracked and ignored\n", "scratch.py": "def untracked(): pass\n"})
	before := gitrepotest.Checksums(t, repoDir)
	vault := writeVault(t, gitrepotest.PodcastVault)
	data := t.TempDir()

	res := codeRun(t, vault, data, repoDir, GraphStage{BufferPoolSize: 64 << 20})
	m := res.Manifest
	if len(m.Repos) != 1 || m.Repos[0].Name != "app" || m.Repos[0].Files != 17 || res.CodeParsed != 17 {
		t.Fatalf("repos %+v, parsed %d", m.Repos, res.CodeParsed)
	}
	files, err := snapshot.ReadTable[format.CodeFile](filepath.Join(res.Dir, format.CodeFilesFile))
	must(t, err)
	for _, f := range files {
		if f.Path == "scratch.py" || f.Path == "notes.log" {
			t.Errorf("untracked file %s was read", f.Path)
		}
	}
	symbols, err := snapshot.ReadTable[format.Symbol](filepath.Join(res.Dir, format.SymbolsFile))
	must(t, err)
	var ids []string
	for _, s := range symbols {
		if s.File == "code:app/api/app/cron.py" || s.File == "code:app/web/src/Player.tsx" || s.File == "code:app/uploader/upload.go" {
			ids = append(ids, s.ID+" "+s.Kind)
		}
	}
	slices.Sort(ids)
	want := []string{
		"code:app/api/app/cron.py#mark_done function", "code:app/api/app/cron.py#schedule_daily function",
		"code:app/uploader/upload.go#UploadEpisode function",
		"code:app/web/src/Player.tsx#Player function", "code:app/web/src/Player.tsx#usePlayerState function",
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("symbols (-want +got):\n%s", diff)
	}
	wantEdges := []string{
		"code:app/api/app/admin.py -imports-> code:app/api/app/podcast.py",
		"code:app/api/app/cron.py -imports-> code:app/api/app/lock.py",
		"code:app/api/app/cron.py -imports-> code:app/api/app/podcast.py",
		"code:app/api/app/main.py -imports-> code:app/api/app/cron.py",
		"code:app/api/app/podcast.py -imports-> code:app/api/app/feed.py",
		"code:app/api/tests/test_cron.py -imports-> code:app/api/app/cron.py",
		"code:app/api/tests/test_cron.py -tests-> code:app/api/app/cron.py",
		"code:app/api/tests/test_podcast.py -imports-> code:app/api/app/podcast.py",
		"code:app/api/tests/test_podcast.py -tests-> code:app/api/app/podcast.py",
		"code:app/uploader/upload.go -imports-> code:app/uploader/storage/storage.go",
		"code:app/uploader/upload_test.go -tests-> code:app/uploader/upload.go",
		"code:app/web/src/Player.test.tsx -imports-> code:app/web/src/Player.tsx",
		"code:app/web/src/Player.test.tsx -tests-> code:app/web/src/Player.tsx",
		"code:app/web/src/Player.tsx -imports-> code:app/web/src/api.ts",
	}
	if diff := cmp.Diff(wantEdges, edgeSet(t, res.Dir, format.TypeImports, format.TypeTests)); diff != "" {
		t.Errorf("imports and tests (-want +got):\n%s", diff)
	}
	calls := edgeSet(t, res.Dir, format.TypeCalls)
	for _, c := range []string{
		"code:app/api/app/cron.py#schedule_daily -calls-> code:app/api/app/podcast.py#generate_daily_episode",
		"code:app/api/app/cron.py#schedule_daily -calls-> code:app/api/app/lock.py#acquire_run_lock",
		"code:app/web/src/Player.tsx#usePlayerState -calls-> code:app/web/src/api.ts#fetchEpisode",
		"code:app/uploader/upload.go#UploadEpisode -calls-> code:app/uploader/storage/storage.go#Put",
	} {
		if !slices.Contains(calls, c) {
			t.Errorf("no edge %s in %v", c, calls)
		}
	}
	co := edgeSet(t, res.Dir, format.TypeCoEdits)
	if diff := cmp.Diff([]string{"code:app/api/app/cron.py -co_edits-> code:app/api/app/podcast.py"}, co); diff != "" {
		t.Errorf("co_edits (-want +got):\n%s", diff)
	}
	noteEdges := edgeSet(t, res.Dir, "documents", "dangerous", "implements", "stale")
	wantNote := []string{
		"Decisions/Cron interval.md -documents-> code:app/api/app/cron.py",
		"Gotchas/Uploads.md -dangerous-> code:app/uploader/storage/storage.go#Put",
		"Gotchas/Uploads.md -implements-> code:app/uploader/upload.go",
		"Gotchas/Uploads.md -stale-> code:app/api/app/old_scheduler.py (unresolved)",
		"Incidents/Double episode.md -dangerous-> code:app/api/app/cron.py#schedule_daily",
		"Incidents/Double episode.md -documents-> code:app/api/app/lock.py",
	}
	if diff := cmp.Diff(wantNote, noteEdges); diff != "" {
		t.Errorf("note edges to code (-want +got):\n%s", diff)
	}
	if m.Counts.UnresolvedCodeLinks != 1 || !slices.ContainsFunc(m.Warnings, func(w format.Warning) bool {
		return w.Kind == format.WarnUnresolvedCodeLink && w.File == "Gotchas/Uploads.md"
	}) {
		t.Errorf("unresolved code links %d, warnings %+v", m.Counts.UnresolvedCodeLinks, m.Warnings)
	}
	// The vault half never sees code ids.
	edges, err := snapshot.ReadTable[format.Edge](filepath.Join(res.Dir, format.EdgesFile))
	must(t, err)
	for _, e := range edges {
		if format.IsCodeID(e.Target) {
			t.Errorf("edges.parquet holds %+v", e)
		}
	}

	// One Cypher query across both halves.
	db, err := graphdb.Open(res.Dir, graphdb.Options{BufferPoolSize: 64 << 20})
	must(t, err)
	defer db.Close()
	out, err := db.Query(context.Background(), "MATCH (n)-[:documents]->(f:CodeFile)<-[:imports]-(g:CodeFile) RETURN n.title, g.path ORDER BY g.path", nil)
	must(t, err)
	var rows []string
	for _, row := range out.Rows {
		rows = append(rows, row[0].(string)+" | "+row[1].(string))
	}
	if diff := cmp.Diff([]string{"Double episode | api/app/cron.py", "Cron interval | api/app/main.py", "Cron interval | api/tests/test_cron.py"}, rows); diff != "" {
		t.Errorf("cross-half query (-want +got):\n%s", diff)
	}

	if diff := cmp.Diff(before, gitrepotest.Checksums(t, repoDir)); diff != "" {
		t.Errorf("indexing changed the repository's .git (-before +after):\n%s", diff)
	}
}

func TestRepositoryIsIncremental(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.Podcast(t, repoDir)
	vault := writeVault(t, gitrepotest.PodcastVault)
	data := t.TempDir()
	first := codeRun(t, vault, data, repoDir)
	if first.HistoryRead != 1 {
		t.Fatalf("first run read history of %d repositories", first.HistoryRead)
	}
	if again := codeRun(t, vault, data, repoDir); !again.Unchanged {
		t.Fatalf("unchanged repository published %s", again.ID)
	}
	// A saved file: one parse, no history.
	r.Write(map[string]string{"api/app/feed.py": "def fetch_articles():\n    return [1]\n"})
	saved := codeRun(t, vault, data, repoDir)
	if saved.Unchanged || saved.CodeParsed != 1 || saved.CodeReused != 16 || saved.HistoryRead != 0 {
		t.Fatalf("after saving one file: unchanged %v, parsed %d, reused %d, history %d", saved.Unchanged, saved.CodeParsed, saved.CodeReused, saved.HistoryRead)
	}
	if co := edgeSet(t, saved.Dir, format.TypeCoEdits); len(co) != 1 {
		t.Errorf("co_edits after reuse: %v", co)
	}
	// A commit of that file: HEAD moved, the history is read again, the
	// file's blob is the one already parsed.
	r.Commit("feed", map[string]string{"api/app/feed.py": "def fetch_articles():\n    return [1]\n"})
	committed := codeRun(t, vault, data, repoDir)
	if committed.Unchanged || committed.CodeParsed != 0 || committed.HistoryRead != 1 {
		t.Fatalf("after a commit: unchanged %v, parsed %d, history %d", committed.Unchanged, committed.CodeParsed, committed.HistoryRead)
	}
	if committed.Manifest.Repos[0].Head == first.Manifest.Repos[0].Head {
		t.Error("HEAD not recorded")
	}
}

func TestRepositoryOptions(t *testing.T) {
	repoDir := t.TempDir()
	gitrepotest.Podcast(t, repoDir)
	vault := writeVault(t, gitrepotest.PodcastVault)
	res := run(t, vault, t.TempDir(), func(o *Options) {
		o.Repos = []Repo{{Name: "app", Path: repoDir, Include: []string{"api/**"}, Exclude: []string{"tests/"}}}
	})
	files, err := snapshot.ReadTable[format.CodeFile](filepath.Join(res.Dir, format.CodeFilesFile))
	must(t, err)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	want := []string{"api/app/__init__.py", "api/app/admin.py", "api/app/cron.py", "api/app/feed.py", "api/app/lock.py", "api/app/main.py", "api/app/podcast.py"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("files with include/exclude (-want +got):\n%s", diff)
	}
	for _, bad := range []struct {
		repos []Repo
	}{
		{[]Repo{{Name: "app", Path: t.TempDir()}}},
		{[]Repo{{Name: "app", Path: repoDir}, {Name: "app", Path: repoDir}}},
	} {
		if _, err := Run(context.Background(), Options{Vault: vault, Data: t.TempDir(), Repos: bad.repos}); err == nil {
			t.Errorf("Run with %+v succeeded", bad.repos)
		}
	}
	if _, err := Run(context.Background(), Options{Vault: vault, Data: filepath.Join(repoDir, "data"), Repos: []Repo{{Name: "app", Path: repoDir}}}); err == nil || !strings.Contains(err.Error(), "never writes to a repository") {
		t.Errorf("a data directory inside the repository: %v", err)
	}
	for _, s := range []string{"app", "=x", "a b=x", "app="} {
		if _, err := ParseRepo(s); err == nil {
			t.Errorf("ParseRepo(%q) succeeded", s)
		}
	}
}

func TestDiffFailsOnNewDivergence(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.Podcast(t, repoDir)
	vault := writeVault(t, gitrepotest.PodcastVault)
	data := t.TempDir()
	first := codeRun(t, vault, data, repoDir)
	// The lock the incident note documents is removed: the note diverges.
	r.Commit("drop the lock", map[string]string{"api/app/lock.py": ""})
	second := codeRun(t, vault, data, repoDir)
	a, err := snapshot.Open(first.Dir, snapshot.OpenOptions{})
	must(t, err)
	b, err := snapshot.Open(second.Dir, snapshot.OpenOptions{})
	must(t, err)
	rep, err := diff.Compare(a, b)
	must(t, err)
	if !rep.Holds(diff.NewDivergence) {
		t.Errorf("removing a documented file: new-divergence does not hold; warnings gained %+v", rep.Warnings.Gained)
	}
	back, err := diff.Compare(b, b)
	must(t, err)
	if back.Holds(diff.NewDivergence) {
		t.Error("a snapshot diverges from itself")
	}
	if got := second.Manifest.Counts.UnresolvedCodeLinks; got != 2 {
		t.Errorf("unresolved code links %d, want 2 (old_scheduler.py and lock.py)", got)
	}
}

// TestCodeVectorsAreIncremental: code chunks get vectors from the
// snapshot's embedder, and a run after saving one file embeds only that
// file's chunks again; every other file reuses its vectors.
func TestCodeVectorsAreIncremental(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.Podcast(t, repoDir)
	vault := writeVault(t, gitrepotest.PodcastVault)
	data := t.TempDir()
	e, err := embed.NewStatic()
	must(t, err)
	stage := func() Stage { return &EmbedStage{Embedder: e} }
	first := codeRun(t, vault, data, repoDir, stage())
	code := first.Manifest.Vectors.Code
	chunks, err := snapshot.ReadTable[format.CodeChunk](filepath.Join(first.Dir, format.CodeChunksFile))
	must(t, err)
	if code == nil || code.Items != len(chunks) || code.Embedded != code.Vectors || code.Pending != 0 || code.Vectors == 0 {
		t.Fatalf("first run's code vectors: %+v for %d chunks", code, len(chunks))
	}
	for _, f := range []string{format.CodeVectorsFile, format.CodeHNSWFile} {
		if _, ok := first.Manifest.Files[f]; !ok {
			t.Errorf("manifest does not list %s", f)
		}
	}
	r.Write(map[string]string{"api/app/feed.py": "def fetch_articles():\n    return [1]\n"})
	saved := codeRun(t, vault, data, repoDir, stage())
	code = saved.Manifest.Vectors.Code
	// feed.py has two chunks: its head (path, symbol names), whose text is
	// the same and keeps its vector, and fetch_articles, which changed.
	if saved.CodeParsed != 1 || code.Embedded != 1 || code.Reused != code.Vectors-1 || code.Pending != 0 || code.HNSWBuild != format.HNSWUpdated {
		t.Fatalf("after saving feed.py: parsed %d, code vectors %+v", saved.CodeParsed, code)
	}
	if again := codeRun(t, vault, data, repoDir, stage()); !again.Unchanged {
		t.Errorf("an unchanged vault and repository published %s", again.ID)
	}
}

// TestCodeGraphIsUpdatedInPlace: with code, the graph database of a run
// after a saved file or a commit is the parent's, updated, and answers as
// a fresh build of the same rows does.
func TestCodeGraphIsUpdatedInPlace(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.Podcast(t, repoDir)
	vault := writeVault(t, gitrepotest.PodcastVault)
	data := t.TempDir()
	stage := GraphStage{BufferPoolSize: 64 << 20, UpdateLimit: 1}
	first := codeRun(t, vault, data, repoDir, stage)
	if first.Manifest.Graph.Build != format.GraphBuilt {
		t.Fatalf("first run's graph: %s", first.Manifest.Graph.Build)
	}
	const query = "MATCH (s:Symbol)-[c:calls]->(t:Symbol) RETURN s.name, t.name ORDER BY s.name, t.name"
	const files = "MATCH (f:CodeFile) RETURN f.path, f.blob, f.lines ORDER BY f.path"
	answers := func(dir string) string {
		t.Helper()
		db, err := graphdb.Open(dir, graphdb.Options{BufferPoolSize: 64 << 20})
		must(t, err)
		defer db.Close()
		var out []string
		for _, q := range []string{query, files, "MATCH (a:CodeFile)-[e:co_edits]->(b:CodeFile) RETURN a.path, b.path, e.count ORDER BY a.path, b.path"} {
			res, err := db.Query(context.Background(), q, nil)
			must(t, err)
			for _, row := range res.Rows {
				out = append(out, fmt.Sprintf("%v", row))
			}
		}
		return strings.Join(out, "\n")
	}
	feed := "def fetch_articles():\n    return []\n\n\ndef fetch_more():\n    return fetch_articles()\n"
	r.Write(map[string]string{"api/app/feed.py": feed})
	saved := codeRun(t, vault, data, repoDir, stage)
	head := r.Commit("feed: fetch more", map[string]string{"api/app/feed.py": feed, "api/app/podcast.py": "from .feed import fetch_more\n\n\ndef generate_daily_episode():\n    return fetch_more()\n"})
	committed := codeRun(t, vault, data, repoDir, stage)
	for _, res := range []*Result{saved, committed} {
		if res.Manifest.Graph.Build != format.GraphUpdated {
			t.Errorf("snapshot %s: graph %s, want updated", res.ID, res.Manifest.Graph.Build)
		}
	}
	got := answers(committed.Dir)
	if !strings.Contains(got, "fetch_more fetch_articles") || !strings.Contains(got, "generate_daily_episode fetch_more") {
		t.Errorf("the updated graph lacks the new calls:\n%s", got)
	}
	// The same rows built from scratch answer the same.
	fresh := codeRun(t, vault, t.TempDir(), repoDir, GraphStage{BufferPoolSize: 64 << 20})
	if fresh.Manifest.Repos[0].Head != head {
		t.Fatal("the fresh run read another HEAD")
	}
	if diff := cmp.Diff(answers(fresh.Dir), got); diff != "" {
		t.Errorf("updated graph (+) against a fresh build (-):\n%s", diff)
	}
}

// TestRefusedRepositoryWritesNothing: a repository Run refuses (the data
// directory inside it, a bare repository, a path that does not exist or
// is no git working tree, a name given twice) fails with what to fix
// before anything is written: no data directory, no lock, nothing in the
// repository.
func TestRefusedRepositoryWritesNothing(t *testing.T) {
	repoDir := t.TempDir()
	gitrepotest.Podcast(t, repoDir)
	vault := writeVault(t, gitrepotest.PodcastVault)
	bare := filepath.Join(t.TempDir(), "bare.git")
	if _, err := gogit.PlainClone(bare, true, &gogit.CloneOptions{URL: repoDir}); err != nil {
		t.Fatal(err)
	}
	before := gitrepotest.Checksums(t, repoDir)
	for _, c := range []struct {
		name  string
		data  string
		repos []Repo
		want  string
	}{
		{"data inside the repository", filepath.Join(repoDir, "data"), []Repo{{Name: "app", Path: repoDir}}, "never writes to a repository"},
		{"bare", filepath.Join(t.TempDir(), "data"), []Repo{{Name: "app", Path: bare}}, "bare repository has no working tree"},
		{"missing", filepath.Join(t.TempDir(), "data"), []Repo{{Name: "app", Path: filepath.Join(repoDir, "nope")}}, "does not exist"},
		{"not a repository", filepath.Join(t.TempDir(), "data"), []Repo{{Name: "app", Path: t.TempDir()}}, "not the top folder of a git working tree"},
		{"twice", filepath.Join(t.TempDir(), "data"), []Repo{{Name: "app", Path: repoDir}, {Name: "app", Path: repoDir}}, "given twice"},
	} {
		_, err := Run(context.Background(), Options{Vault: vault, Data: c.data, Repos: c.repos})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
		if _, err := os.Lstat(c.data); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the refused run left %s behind (%v)", c.name, c.data, err)
		}
	}
	if diff := cmp.Diff(before, gitrepotest.Checksums(t, repoDir)); diff != "" {
		t.Errorf("the repository changed (-before +after):\n%s", diff)
	}
}

// TestGeneratedFileLinksResolve: a note's link to a symbol of a generated
// file resolves (no unresolved-code-link, no divergence), while the file
// keeps only its head chunk and its symbols no call edges.
func TestGeneratedFileLinksResolve(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.New(t, repoDir)
	r.Commit("init", map[string]string{
		"go.mod":        "module example.com/r\n\ngo 1.22\n",
		"pkg/gen.pb.go": "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage pkg\n\nfunc GeneratedHelper() { RealFunc() }\n\nfunc Other() {}\n",
		"pkg/real.go":   "package pkg\n\nfunc RealFunc() {}\n",
		"pkg/caller.go": "package pkg\n\nfunc Caller() { GeneratedHelper() }\n",
	})
	vault := writeVault(t, map[string]string{"Design.md": "# Design\n\nThe helper [[code:app/pkg/gen.pb.go#GeneratedHelper]] is generated.\n"})
	res := codeRun(t, vault, t.TempDir(), repoDir)
	for _, w := range res.Manifest.Warnings {
		if w.Kind == format.WarnUnresolvedCodeLink {
			t.Errorf("a link to a generated file's symbol is unresolved: %+v", w)
		}
	}
	chunks, err := snapshot.ReadTable[format.CodeChunk](filepath.Join(res.Dir, format.CodeChunksFile))
	must(t, err)
	gen := format.CodeFileID("app", "pkg/gen.pb.go")
	n := 0
	for _, c := range chunks {
		if c.File == gen {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the generated file has %d chunks, want its head alone", n)
	}
	edges, err := snapshot.ReadTable[format.Edge](filepath.Join(res.Dir, format.CodeEdgesFile))
	must(t, err)
	calledFromGenerated, callsIntoGenerated := false, false
	for _, e := range edges {
		if e.Type == format.TypeCalls && strings.HasPrefix(e.Source, gen+"#") {
			calledFromGenerated = true
		}
		if e.Type == format.TypeCalls && strings.HasPrefix(e.Target, gen+"#") {
			callsIntoGenerated = true
		}
	}
	if calledFromGenerated || !callsIntoGenerated {
		t.Errorf("calls from the generated file: %v (want none); calls into it: %v (want Caller's)", calledFromGenerated, callsIntoGenerated)
	}
}

// TestGoCallsResolveAsGoDoes: a bare call names a function of the caller's
// package or a builtin, never a method (review5 F1: every len(x) of a
// repository became a calls edge to the one method named len); a lower
// case name never crosses a package; pkg.F() names the other package's
// function and x.M() a method.
func TestGoCallsResolveAsGoDoes(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.New(t, repoDir)
	r.Commit("init", map[string]string{
		"go.mod":           "module example.com/r\n\ngo 1.22\n",
		"watch/watches.go": "package watch\n\ntype watches struct{ m map[string]int }\n\nfunc (w *watches) len() int { return len(w.m) }\n\nfunc (w *watches) Add(p string) { w.m[p] = w.len() }\n\nfunc helper() {}\n",
		"watch/backend.go": "package watch\n\nfunc handle(w *watches) { helper(); _ = w.len(); w.Add(\"x\") }\n",
		"main.go":          "package main\n\nimport \"example.com/r/watch\"\n\nfunc helper() {}\n\nfunc main() { s := []int{1}; _ = len(s); helper(); watch.Start() }\n",
		"watch/start.go":   "package watch\n\nfunc Start() { _ = make([]int, 3) }\n",
	})
	vault := writeVault(t, map[string]string{"Design.md": "# Design\n\nSee [[code:app/main.go]].\n"})
	res := codeRun(t, vault, t.TempDir(), repoDir)
	got := edgeSet(t, res.Dir, format.TypeCalls)
	want := []string{
		"code:app/main.go#main -calls-> code:app/main.go#helper",
		"code:app/main.go#main -calls-> code:app/watch/start.go#Start",
		"code:app/watch/backend.go#handle -calls-> code:app/watch/watches.go#helper",
		"code:app/watch/backend.go#handle -calls-> code:app/watch/watches.go#watches.Add",
		"code:app/watch/backend.go#handle -calls-> code:app/watch/watches.go#watches.len",
		"code:app/watch/watches.go#watches.Add -calls-> code:app/watch/watches.go#watches.len",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls edges (-want +got):\n%s", diff)
	}
}

// TestARunWithoutTheParentsRepository: a run without the --repo the
// parent had says so in one warning naming the repository, and its code
// links' warnings say no repository of that name is indexed, not that the
// file does not exist (review5 F4). A link to a method by its bare name
// suggests the method (review5 F5).
func TestARunWithoutTheParentsRepository(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.New(t, repoDir)
	r.Commit("init", map[string]string{
		"go.mod":       "module example.com/r\n\ngo 1.22\n",
		"w/inotify.go": "package w\n\ntype inotify struct{}\n\nfunc (i *inotify) handleEvent() {}\n\nfunc readEvents() {}\n",
	})
	vault := writeVault(t, map[string]string{"Bug.md": "# Bug\n\naffects:: [[code:app/w/inotify.go#handleEvent]]\nalso:: [[code:app/w/inotify.go#readEvent]]\nsee:: [[code:app/w/inotify.go]]\n"})
	data := t.TempDir()
	first := codeRun(t, vault, data, repoDir)
	var msgs []string
	for _, w := range first.Manifest.Warnings {
		if w.Kind == format.WarnUnresolvedCodeLink {
			msgs = append(msgs, w.Message)
		}
	}
	wantMsgs := []string{
		"affects:: code:app/w/inotify.go#handleEvent: the file has no symbol handleEvent; did you mean inotify.handleEvent?",
		"also:: code:app/w/inotify.go#readEvent: the file has no symbol readEvent; did you mean readEvents?",
	}
	if diff := cmp.Diff(wantMsgs, msgs); diff != "" {
		t.Errorf("warnings with the repository (-want +got):\n%s", diff)
	}

	var logged bytes.Buffer
	second := run(t, vault, data, func(o *Options) { o.Log = slog.New(slog.NewTextHandler(&logged, nil)) })
	if !strings.Contains(logged.String(), "the parent snapshot indexed a repository this run does not") || !strings.Contains(logged.String(), "repo=app") {
		t.Errorf("no warning that repository app was left out:\n%s", logged.String())
	}
	n := 0
	for _, w := range second.Manifest.Warnings {
		if w.Kind == format.WarnUnresolvedCodeLink {
			n++
			if !strings.Contains(w.Message, "no repository named app is indexed (index it with --repo app=PATH)") {
				t.Errorf("warning %q; want it to say no repository app is indexed", w.Message)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d unresolved code links without the repository, want 3", n)
	}
}

// TestAVaultInsideItsRepository: a vault kept in the repository it
// documents (docs/) is read once, as notes: none of its files is also a
// code file (review5 F23: a bug note came back in must_read as code).
func TestAVaultInsideItsRepository(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.New(t, repoDir)
	r.Commit("init", map[string]string{
		"go.mod":            "module example.com/r\n\ngo 1.22\n",
		"w/inotify.go":      "package w\n\nfunc readEvents() {}\n",
		"README.md":         "# r\n",
		"docs/Bugs/Lost.md": "# Lost\n\naffects:: [[code:app/w/inotify.go#readEvents]]\n",
		"docs/Design.md":    "# Design\n",
	})
	res := codeRun(t, filepath.Join(repoDir, "docs"), t.TempDir(), repoDir)
	files, err := snapshot.ReadTable[format.CodeFile](filepath.Join(res.Dir, format.CodeFilesFile))
	must(t, err)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if diff := cmp.Diff([]string{"README.md", "go.mod", "w/inotify.go"}, paths); diff != "" {
		t.Errorf("code files of a repository holding the vault in docs/ (-want +got):\n%s", diff)
	}
	if res.Manifest.Counts.Notes != 2 {
		t.Errorf("%d notes, want the vault's 2", res.Manifest.Counts.Notes)
	}
}

// TestMemberCallsOfUnimportedMethods: x.push() on a receiver of unknown
// type is no call of the only push method of the repository when the
// caller neither imports its file nor shares its folder (review5 F1).
func TestMemberCallsOfUnimportedMethods(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.New(t, repoDir)
	r.Commit("init", map[string]string{
		"app/main.ts":    "export function run(out: number[]) {\n  out.push(1);\n}\n",
		"lib/ui.ts":      "export class Panel {\n  push() {}\n  show() { this.push(); }\n}\n",
		"app/report.py":  "def summarize(s):\n    s.close()\n",
		"app/store.py":   "class Store:\n    def close(self):\n        pass\n",
		"app/service.ts": "import { Panel } from '../lib/ui';\n\nexport function open(p: Panel) {\n  p.push();\n}\n",
	})
	vault := writeVault(t, map[string]string{"Design.md": "# Design\n\nSee [[code:app/app/main.ts]].\n"})
	res := codeRun(t, vault, t.TempDir(), repoDir)
	got := edgeSet(t, res.Dir, format.TypeCalls)
	want := []string{
		"code:app/app/report.py#summarize -calls-> code:app/app/store.py#Store.close",
		"code:app/app/service.ts#open -calls-> code:app/lib/ui.ts#Panel.push",
		"code:app/lib/ui.ts#Panel.show -calls-> code:app/lib/ui.ts#Panel.push",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls edges (-want +got):\n%s", diff)
	}
}

// TestCodeLinksAsPeopleWriteThem: a line anchor pasted from a forge
// (#L5, #L5-L7) resolves to the symbol spanning that line, or to the file;
// a path with ./ is cleaned; and a link that still names nothing says what
// it most likely meant, or which of the run's globs left the file out
// (review5 F13, F26).
func TestCodeLinksAsPeopleWriteThem(t *testing.T) {
	repoDir := t.TempDir()
	r := gitrepotest.New(t, repoDir)
	r.Commit("init", map[string]string{
		"go.mod": "module example.com/r\n\ngo 1.22\n",
		// Lines: 1 package, 3 type, 5-7 handleEvent, 9 readEvents.
		"w/inotify.go":       "package w\n\ntype inotify struct{}\n\nfunc (i *inotify) handleEvent() {\n\treadEvents()\n}\n\nfunc readEvents() {}\n",
		"w/backend_linux.go": "package w\n\nfunc linux() {}\n",
	})
	vault := writeVault(t, map[string]string{"Links.md": "# Links\n\n" +
		"a:: [[code:app/w/inotify.go#L6]]\n" +
		"b:: [[code:app/w/inotify.go#L5-L7]]\n" +
		"c:: [[code:app/w/inotify.go#L2]]\n" +
		"d:: [[code:app/./w/inotify.go]]\n" +
		"e:: [[code:APP/w/inotify.go]]\n" +
		"f:: [[code:app/w/Inotify.go]]\n" +
		"g:: [[code:app/w/inotify.go#Inotify.HandleEvent]]\n" +
		"h:: [[code:app/w/inotify.go#L40]]\n" +
		"i:: [[code:app/w/backend_linux.go]]\n" +
		"j:: [[code:app/x/inotify.go]]\n"})
	res := run(t, vault, t.TempDir(), func(o *Options) {
		o.Repos = []Repo{{Name: "app", Path: repoDir, Exclude: []string{"backend_*.go"}}}
	})
	wantEdges := []string{
		"Links.md -a-> code:app/w/inotify.go#inotify.handleEvent",
		"Links.md -b-> code:app/w/inotify.go#inotify.handleEvent",
		"Links.md -c-> code:app/w/inotify.go",
		"Links.md -d-> code:app/w/inotify.go",
	}
	if diff := cmp.Diff(wantEdges, edgeSet(t, res.Dir, "a", "b", "c", "d")); diff != "" {
		t.Errorf("resolved links (-want +got):\n%s", diff)
	}
	var msgs []string
	for _, w := range res.Manifest.Warnings {
		if w.Kind == format.WarnUnresolvedCodeLink {
			msgs = append(msgs, w.Message)
		}
	}
	sort.Strings(msgs)
	want := []string{
		"e:: code:APP/w/inotify.go: no repository named APP is indexed; did you mean app?",
		"f:: code:app/w/Inotify.go: no tracked file has this path; did you mean code:app/w/inotify.go?",
		"g:: code:app/w/inotify.go#Inotify.HandleEvent: the file has no symbol Inotify.HandleEvent; did you mean inotify.handleEvent?",
		"h:: code:app/w/inotify.go#L40: the file has 9 lines, not 40",
		"i:: code:app/w/backend_linux.go: the run left it out: --repo-exclude backend_*.go",
		"j:: code:app/x/inotify.go: no tracked file has this path; did you mean code:app/w/inotify.go?",
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
