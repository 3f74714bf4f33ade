package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// TestRetrieveContextOverMCP: an agent connected to a vault indexed with
// a repository gets retrieve_context, and its five buckets name the files,
// tests and notes of the hand-checked question.
func TestRetrieveContextOverMCP(t *testing.T) {
	repo := t.TempDir()
	gitrepotest.Podcast(t, repo)
	vault := t.TempDir()
	gitrepotest.WriteVault(t, vault, gitrepotest.PodcastVault)
	data := t.TempDir()
	_, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data, Repos: []indexer.Repo{{Name: "app", Path: repo}},
		Stages: []indexer.Stage{&indexer.EmbedStage{Embedder: embed.NewBuiltin()}, indexer.BM25Stage{}, indexer.GraphStage{BufferPoolSize: testGraphMemory}}})
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, openStore(t, data), Options{})
	c, _ := connect(t, s)
	tools, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tools.Tools, func(tl mcp.Tool) bool { return tl.Name == toolContext }) {
		t.Fatalf("tools of a snapshot with code lack %s", toolContext)
	}
	if got := instructionsOf(t, s); !strings.Contains(got, toolContext+" (files to read") {
		t.Errorf("instructions with code served do not name %s:\n%s", toolContext, got)
	}
	var out codecontext.Answer
	text := callOK(t, c, toolContext, map[string]any{"question": "the daily podcast is generating twice"}, &out)
	has := func(es []codecontext.Entry, id string) bool {
		return slices.ContainsFunc(es, func(e codecontext.Entry) bool { return e.ID == id })
	}
	for _, want := range []struct {
		bucket string
		es     []codecontext.Entry
		id     string
	}{
		{"must_read", out.MustRead, "code:app/api/app/cron.py"},
		{"may_change", out.MayChange, "code:app/api/app/main.py"},
		{"must_test", out.MustTest, "code:app/api/tests/test_cron.py"},
		{"knowledge", out.Knowledge, "Decisions/Cron interval.md"},
		{"danger", out.Danger, "code:app/api/app/cron.py#schedule_daily"},
	} {
		if !has(want.es, want.id) {
			t.Errorf("%s lacks %s: %+v", want.bucket, want.id, want.es)
		}
	}
	if !strings.Contains(text, `"must_read"`) || !strings.Contains(text, `"note":"Incidents/Double episode.md"`) ||
		len(text) > codecontext.DefaultMaxBytes {
		t.Errorf("text (%d bytes):\n%s", len(text), text)
	}
	callOK(t, c, toolContext, map[string]any{"question": "the daily podcast is generating twice", "repo": "app"}, &out)
	if !has(out.MustRead, "code:app/api/app/cron.py") {
		t.Errorf("with repo app: must_read %+v", out.MustRead)
	}
	// A code id is not a note: read_note says where code is read.
	if msg := callErr(t, c, toolReadNote, map[string]any{"path": "code:app/api/app/podcast.py"}); !strings.Contains(msg, "is code, not a note: read the file in its repository") {
		t.Errorf("read_note of a code id: %s", msg)
	}
	// read_note lists a note's links to code as links (review5 F6).
	var note struct {
		CodeLinks []struct {
			Type, Target string
			Missing      bool
		} `json:"code_links"`
	}
	callOK(t, c, toolReadNote, map[string]any{"path": "Incidents/Double episode.md"}, &note)
	var links []string
	for _, l := range note.CodeLinks {
		links = append(links, fmt.Sprintf("%s %s %v", l.Type, l.Target, l.Missing))
	}
	slices.Sort(links)
	if want := []string{"dangerous code:app/api/app/cron.py#schedule_daily false", "documents code:app/api/app/lock.py false"}; !slices.Equal(links, want) {
		t.Errorf("read_note code_links = %v, want %v", links, want)
	}
	callOK(t, c, toolContext, map[string]any{"anchor": "code:app/api/app/podcast.py#generate_daily_episode"}, &out)
	if out.Anchor == "" || !has(out.MayChange, "code:app/api/app/admin.py") {
		t.Errorf("impact of generate_daily_episode: %+v", out)
	}
	for _, args := range []map[string]any{{}, {"question": "x", "anchor": "code:app/api/app/cron.py"}, {"anchor": "code:app/nope.py"}, {"question": "x", "repo": "nope"}} {
		if msg := callErr(t, c, toolContext, args); msg == "" {
			t.Errorf("%v: no error message", args)
		}
	}
}

// TestRetrieveContextFitsTheBudget: on a repository whose answer at the
// default k is over 6 KB (larger than one copy of it fits the MCP
// budget, which holds the text and the structured content), the default
// call and the impact of the shared module answer, cut from the
// lowest-ranked entries of each bucket with a line saying what was left
// out, within MaxResultBytes; k's bound is codecontext's.
func TestRetrieveContextFitsTheBudget(t *testing.T) {
	repo := t.TempDir()
	gitrepotest.Wide(t, repo)
	vault := t.TempDir()
	gitrepotest.WriteVault(t, vault, gitrepotest.WideVault)
	data := t.TempDir()
	_, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data, Repos: []indexer.Repo{{Name: "app", Path: repo}},
		Stages: []indexer.Stage{&indexer.EmbedStage{Embedder: embed.NewBuiltin()}, indexer.BM25Stage{}}})
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, data)
	const question = "session cookie is not signed when the secret key rotates"
	snap, release := st.Acquire()
	full, err := snap.Code.Retrieve(context.Background(), codecontext.Request{Question: question, MaxBytes: 1 << 20})
	release()
	if err != nil {
		t.Fatal(err)
	}
	if full.Size() <= 6000 || full.Truncated {
		t.Fatalf("the full answer is %d bytes (truncated %v), want over 6000 untruncated", full.Size(), full.Truncated)
	}
	s := newServer(t, st, Options{})
	c, _ := connect(t, s)
	for _, args := range []map[string]any{
		{"question": question},
		{"question": question, "k": codecontext.MaxK},
		{"anchor": "code:app/shop/signing.py"},
	} {
		res := call(t, c, toolContext, args)
		text := resultText(res)
		if res.IsError {
			t.Fatalf("%v: tool error: %s", args, text)
		}
		var out codecontext.Answer
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, text)
		}
		b, _ := json.Marshal(res)
		if len(b) > s.opts.MaxResultBytes {
			t.Errorf("%v: the result is %d bytes, over the budget %d", args, len(b), s.opts.MaxResultBytes)
		}
		if !out.Truncated || out.Omitted == 0 || !strings.Contains(out.LeftOut, "left out") || !strings.Contains(out.LeftOut, "lower k") {
			t.Errorf("%v: truncated %v omitted %d left_out %q", args, out.Truncated, out.Omitted, out.LeftOut)
		}
		if len(out.MustRead) == 0 || len(out.MustTest) == 0 {
			t.Errorf("%v: must_read %d, must_test %d entries", args, len(out.MustRead), len(out.MustTest))
		}
	}
	// What was cut is the tail of each bucket: the default answer's
	// must_read is the full answer's, from the top.
	var out codecontext.Answer
	callOK(t, c, toolContext, map[string]any{"question": question}, &out)
	for i, e := range out.MustRead {
		if e.ID != full.MustRead[i].ID {
			t.Errorf("must_read[%d] is %s, the full answer's %s", i, e.ID, full.MustRead[i].ID)
		}
	}
	msg := callErr(t, c, toolContext, map[string]any{"question": question, "k": codecontext.MaxK + 1})
	if !strings.Contains(msg, "k") {
		t.Errorf("k over the bound: %s", msg)
	}
	if msg := callErr(t, c, toolContext, map[string]any{}); strings.Contains(msg, "not both") {
		t.Errorf("neither question nor anchor: %s", msg)
	}
}
