package serve_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// TestRetrieveContextOverREST asks POST /retrieve_context of a vault
// indexed with two repositories: a question's buckets name the files,
// tests and notes it is about; repo keeps the code to one repository;
// max_bytes bounds the answer and says how to get the rest; an anchor
// answers its impact; and every bad request is a 4xx saying what to fix.
func TestRetrieveContextOverREST(t *testing.T) {
	app, shop := t.TempDir(), t.TempDir()
	gitrepotest.Podcast(t, app)
	gitrepotest.Wide(t, shop)
	vault := t.TempDir()
	notes := maps.Clone(gitrepotest.PodcastVault)
	maps.Copy(notes, gitrepotest.WideVault)
	gitrepotest.WriteVault(t, vault, notes)
	data := t.TempDir()
	_, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data,
		Repos:  []indexer.Repo{{Name: "app", Path: app}, {Name: "shop", Path: shop}},
		Stages: []indexer.Stage{&indexer.EmbedStage{Embedder: embed.NewBuiltin()}, indexer.BM25Stage{}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, data, serverConfig{})
	ask := func(body string) codecontext.Answer {
		t.Helper()
		r := ts.post("/retrieve_context", body)
		if r.status != 200 {
			t.Fatalf("POST /retrieve_context %s = %d %s", body, r.status, r.body)
		}
		var a codecontext.Answer
		if err := json.Unmarshal(r.body, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	has := func(es []codecontext.Entry, id string) bool {
		return slices.ContainsFunc(es, func(e codecontext.Entry) bool { return e.ID == id })
	}
	repos := func(a codecontext.Answer) map[string]bool {
		out := map[string]bool{}
		for _, es := range [][]codecontext.Entry{a.MustRead, a.MayChange, a.MustTest, a.Danger} {
			for _, e := range es {
				if rest, ok := strings.CutPrefix(e.ID, "code:"); ok {
					out[rest[:strings.IndexByte(rest, '/')]] = true
				}
			}
		}
		return out
	}

	const podcast = "the daily podcast is generating twice"
	a := ask(`{"question": "` + podcast + `"}`)
	if !has(a.MustRead, "code:app/api/app/cron.py") || !has(a.MustTest, "code:app/api/tests/test_cron.py") || !has(a.Knowledge, "Decisions/Cron interval.md") {
		t.Errorf("%s: %+v", podcast, a)
	}
	const cookie = "session cookie is not signed when the secret key rotates"
	for _, c := range []struct{ question, repo string }{{podcast, "app"}, {cookie, "shop"}, {cookie, "app"}} {
		a := ask(`{"question": "` + c.question + `", "repo": "` + c.repo + `"}`)
		if got := repos(a); len(got) > 1 || (len(got) == 1 && !got[c.repo]) {
			t.Errorf("%q with repo %s: code of %v", c.question, c.repo, got)
		}
	}
	if got := repos(ask(`{"question": "` + cookie + `", "repo": "shop"}`)); !got["shop"] {
		t.Errorf("%q with repo shop names no file of shop", cookie)
	}

	full := ask(`{"question": "` + cookie + `", "repo": "shop", "k": 20, "max_bytes": 262144}`)
	small := ask(`{"question": "` + cookie + `", "repo": "shop", "k": 20, "max_bytes": 2048}`)
	if full.Truncated || !small.Truncated || small.Size() > 2048 || !strings.Contains(small.LeftOut, "a larger max_bytes (up to") {
		t.Errorf("max_bytes 2048: full %d bytes (truncated %v); small %d bytes (truncated %v, left out %q)", full.Size(), full.Truncated, small.Size(), small.Truncated, small.LeftOut)
	}

	impact := ask(`{"anchor": "code:app/api/app/podcast.py#generate_daily_episode"}`)
	if impact.Anchor == "" || !has(impact.MayChange, "code:app/api/app/admin.py") {
		t.Errorf("impact of generate_daily_episode: %+v", impact)
	}

	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{}`, 400, "give a question, or an anchor"},
		{`{"question": "x", "anchor": "code:app/api/app/cron.py"}`, 400, "not both"},
		{`{"question": "x", "k": 0}`, 400, "k must be between 1 and"},
		{`{"question": "x", "max_bytes": 10}`, 400, "max_bytes must be between"},
		{`{"question": "x", "weights": {"imports": -1}}`, 400, "weights[\"imports\"] must be between 0 and 100"},
		{`{"question": "x", "repo": "nope"}`, 404, "nope"},
		{`{"anchor": "code:app/nope.py"}`, 404, "nope.py"},
		{`{"question": 3}`, 400, "question"},
	} {
		r := ts.post("/retrieve_context", c.body)
		if r.status != c.status || !strings.Contains(r.errorMessage(), c.says) {
			t.Errorf("POST /retrieve_context %s = %d %s, want %d saying %q", c.body, r.status, r.body, c.status, c.says)
		}
	}
	if r := ts.get("/divergence"); r.status != 200 || !strings.Contains(string(r.body), `"divergence":[`) {
		t.Errorf("GET /divergence = %d %s", r.status, r.body)
	}
}

// TestDivergenceSaysWhy: GET /divergence gives each diverging code link
// the reason the indexer warned with: a file the run's --repo-exclude left
// out, a path that differs only in case (review5 F13, F26).
func TestDivergenceSaysWhy(t *testing.T) {
	repoDir := t.TempDir()
	gitrepotest.New(t, repoDir).Commit("init", map[string]string{
		"go.mod":             "module example.com/r\n\ngo 1.22\n",
		"w/inotify.go":       "package w\n\nfunc readEvents() {}\n",
		"w/backend_linux.go": "package w\n\nfunc linux() {}\n",
	})
	vault := t.TempDir()
	gitrepotest.WriteVault(t, vault, map[string]string{"Links.md": "# Links\n\n" +
		"a:: [[code:app/w/backend_linux.go]]\nb:: [[code:app/w/Inotify.go]]\n"})
	data := t.TempDir()
	if _, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data,
		Repos: []indexer.Repo{{Name: "app", Path: repoDir, Exclude: []string{"backend_*.go"}}}}); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, data, serverConfig{})
	r := ts.get("/divergence")
	var got struct{ Divergence []codecontext.Divergence }
	if err := json.Unmarshal(r.body, &got); r.status != 200 || err != nil {
		t.Fatalf("GET /divergence = %d %s (%v)", r.status, r.body, err)
	}
	want := map[string]string{
		"code:app/w/backend_linux.go": "the run left it out: --repo-exclude backend_*.go",
		"code:app/w/Inotify.go":       "no tracked file has this path; did you mean code:app/w/inotify.go?",
	}
	reasons := map[string]string{}
	for _, d := range got.Divergence {
		reasons[d.Target] = d.Reason
	}
	if !maps.Equal(want, reasons) {
		t.Errorf("divergence reasons %v, want %v", reasons, want)
	}
}
