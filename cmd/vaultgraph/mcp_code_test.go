package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
)

// contextEntry and contextAnswer are the part of a retrieve_context
// answer these tests read.
type (
	contextEntry struct {
		ID  string   `json:"id"`
		Why []string `json:"why"`
	}
	contextAnswer struct {
		MustRead  []contextEntry `json:"must_read"`
		MayChange []contextEntry `json:"may_change"`
		MustTest  []contextEntry `json:"must_test"`
		Knowledge []contextEntry `json:"knowledge"`
		Danger    []contextEntry `json:"danger"`
	}
)

// ids are the sorted ids of one bucket.
func (a contextAnswer) ids(bucket string) []string {
	es := map[string][]contextEntry{"must_read": a.MustRead, "may_change": a.MayChange, "must_test": a.MustTest,
		"knowledge": a.Knowledge, "danger": a.Danger}[bucket]
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	slices.Sort(out)
	return out
}

// TestRetrieveContextOverMCPWithOfficialClient: an agent using the
// official TypeScript SDK, connected over stdio to a server over a vault
// indexed with a repository, lists retrieve_context and gets the five
// buckets of a hand-checked question (testdata/codecontext/podcast.json),
// each answer checked against the tool's output schema by the SDK; a
// question in other words than the code's finds it through the vectors.
func TestRetrieveContextOverMCPWithOfficialClient(t *testing.T) {
	repo := t.TempDir()
	gitrepotest.Podcast(t, repo)
	vault := t.TempDir()
	for p, content := range gitrepotest.PodcastVault {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(vault, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(vault, p), []byte(content), 0o644))
	}
	data := t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", data, "--repo", "app="+repo, "--graph=false", "--quiet")

	raw, err := os.ReadFile(repoPath("testdata/codecontext/podcast.json"))
	must(t, err)
	var hc struct {
		Questions []struct {
			Question  string   `json:"question"`
			MustRead  []string `json:"must_read"`
			MayChange []string `json:"may_change"`
			MustTest  []string `json:"must_test"`
			Knowledge []string `json:"knowledge"`
			Danger    []string `json:"danger"`
		}
	}
	must(t, json.Unmarshal(raw, &hc))
	q := hc.Questions[0]
	const paraphrase = "sending a recording to the bucket"
	out := mcpRun(t, stdioTransport(data),
		mcpStep{"op": "listTools"},
		call("retrieve_context", map[string]any{"question": q.Question}),
		call("retrieve_context", map[string]any{"question": paraphrase}),
	)
	var tools []struct {
		Name string `json:"name"`
	}
	out[0].decode(t, &tools)
	if !slices.ContainsFunc(tools, func(tl struct {
		Name string `json:"name"`
	}) bool {
		return tl.Name == "retrieve_context"
	}) {
		t.Fatalf("tools/list lacks retrieve_context: %+v", tools)
	}
	var a contextAnswer
	callOutcome(t, out[1], &a)
	for _, b := range []struct {
		name string
		want []string
	}{{"must_read", q.MustRead}, {"may_change", q.MayChange}, {"must_test", q.MustTest}, {"danger", q.Danger}} {
		want := slices.Clone(b.want)
		slices.Sort(want)
		if diff := cmp.Diff(want, a.ids(b.name)); diff != "" {
			t.Errorf("%q: %s (-hand-checked +got):\n%s", q.Question, b.name, diff)
		}
	}
	for _, n := range q.Knowledge {
		if !slices.Contains(a.ids("knowledge"), n) {
			t.Errorf("%q: knowledge %v lacks %s", q.Question, a.ids("knowledge"), n)
		}
	}
	var p contextAnswer
	callOutcome(t, out[2], &p)
	if got := p.ids("must_read"); !slices.Contains(got, "code:app/uploader/upload.go") {
		t.Errorf("%q: must_read %v lacks the uploader", paraphrase, got)
	}
}
