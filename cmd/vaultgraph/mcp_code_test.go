package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
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
	gitrepotest.WriteVault(t, vault, gitrepotest.PodcastVault)
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

// TestRetrieveContextOverMCPFitsTheBudget: with the official client, a
// question whose answer is over 6 KB (as retrieve-context prints it) is
// answered at the default k over MCP, cut from the bottom of its buckets
// with a line saying what was left out, rather than refused.
func TestRetrieveContextOverMCPFitsTheBudget(t *testing.T) {
	repo := t.TempDir()
	gitrepotest.Wide(t, repo)
	vault := t.TempDir()
	gitrepotest.WriteVault(t, vault, gitrepotest.WideVault)
	data := t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", data, "--repo", "app="+repo, "--graph=false", "--quiet")
	const question = "session cookie is not signed when the secret key rotates"
	full := vgOK(t, "retrieve-context", "--data", data, "--json", "--max-bytes", "1000000", question)
	if n := len(strings.TrimSpace(full.stdout)); n <= 6000 || strings.Contains(full.stdout, `"truncated":true`) {
		t.Fatalf("retrieve-context printed %d bytes, want over 6000 untruncated:\n%s", n, full.stdout)
	}
	out := mcpRun(t, stdioTransport(data),
		mcpStep{"op": "init"},
		call("retrieve_context", map[string]any{"question": question}),
		call("retrieve_context", map[string]any{"anchor": "code:app/shop/signing.py"}),
	)
	// The server's instructions route code questions to retrieve_context.
	var init struct {
		Instructions string `json:"instructions"`
	}
	out[0].decode(t, &init)
	if !strings.Contains(init.Instructions, "code") || !strings.Contains(init.Instructions, "retrieve_context") {
		t.Errorf("the instructions do not route code questions to retrieve_context:\n%s", init.Instructions)
	}
	for i, o := range out[1:3] {
		var a struct {
			contextAnswer
			Truncated bool   `json:"truncated"`
			LeftOut   string `json:"left_out"`
		}
		callOutcome(t, o, &a)
		if len(a.MustRead) == 0 || len(a.MustTest) == 0 || !a.Truncated || !strings.Contains(a.LeftOut, "left out") {
			t.Errorf("call %d: must_read %v, must_test %v, truncated %v, left_out %q", i, a.ids("must_read"), a.ids("must_test"), a.Truncated, a.LeftOut)
		}
	}
}
