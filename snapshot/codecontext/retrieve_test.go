package codecontext_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
)

// podcast indexes the podcast vault and repository with the BM25 stage and
// loads the code context of the snapshot.
func podcast(t *testing.T) *codecontext.Index {
	t.Helper()
	repo := t.TempDir()
	gitrepotest.Podcast(t, repo)
	vault := t.TempDir()
	for p, content := range gitrepotest.PodcastVault {
		full := filepath.Join(vault, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: t.TempDir(),
		Repos: []indexer.Repo{{Name: "app", Path: repo}}, Stages: []indexer.Stage{indexer.BM25Stage{}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(res.Dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := codecontext.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

type expected struct {
	Question  string   `json:"question"`
	Anchor    string   `json:"anchor"`
	Checked   string   `json:"checked"`
	MustRead  []string `json:"must_read"`
	MayChange []string `json:"may_change"`
	MustTest  []string `json:"must_test"`
	Knowledge []string `json:"knowledge"`
	Danger    []string `json:"danger"`
}

type handChecked struct {
	Questions  []expected               `json:"questions"`
	Impact     []expected               `json:"impact"`
	Divergence []codecontext.Divergence `json:"divergence"`
}

func ids(es []codecontext.Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}

func check(t *testing.T, want expected, a *codecontext.Answer) {
	t.Helper()
	for _, b := range []struct {
		name      string
		want, got []string
	}{
		{"must_read", want.MustRead, ids(a.MustRead)},
		{"may_change", want.MayChange, ids(a.MayChange)},
		{"must_test", want.MustTest, ids(a.MustTest)},
		{"danger", want.Danger, ids(a.Danger)},
	} {
		if diff := cmp.Diff(sorted(b.want), b.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", b.name, diff)
		}
	}
	got := ids(a.Knowledge)
	for _, n := range want.Knowledge {
		if !slices.Contains(got, n) {
			t.Errorf("knowledge %v lacks %s", got, n)
		}
	}
	for _, b := range [][]codecontext.Entry{a.MustRead, a.MayChange, a.MustTest, a.Knowledge, a.Danger} {
		for _, e := range b {
			if len(e.Why) == 0 || e.Path == "" {
				t.Errorf("entry without a reason or path: %+v", e)
			}
		}
	}
	if body, _ := json.Marshal(a); len(body) > codecontext.DefaultMaxBytes {
		t.Errorf("answer is %d bytes, over the default budget", len(body))
	}
}

// TestHandCheckedAnswers runs the questions of testdata/codecontext, whose
// answers were checked by hand against the fixture's code and notes.
func TestHandCheckedAnswers(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/codecontext/podcast.json")
	if err != nil {
		t.Fatal(err)
	}
	var hc handChecked
	if err := json.Unmarshal(raw, &hc); err != nil {
		t.Fatal(err)
	}
	ix := podcast(t)
	for _, q := range hc.Questions {
		t.Run(q.Question, func(t *testing.T) {
			a, err := ix.Retrieve(context.Background(), codecontext.Request{Question: q.Question})
			if err != nil {
				t.Fatal(err)
			}
			check(t, q, a)
		})
	}
	for _, q := range hc.Impact {
		t.Run("impact of "+q.Anchor, func(t *testing.T) {
			a, err := ix.Impact(context.Background(), codecontext.ImpactRequest{ID: q.Anchor})
			if err != nil {
				t.Fatal(err)
			}
			check(t, q, a)
		})
	}
	var got []codecontext.Divergence
	for _, d := range ix.Divergence() {
		got = append(got, codecontext.Divergence{Note: d.Note, Type: d.Type, Target: d.Target})
	}
	if diff := cmp.Diff(hc.Divergence, got); diff != "" {
		t.Errorf("divergence (-want +got):\n%s", diff)
	}
}

func TestBudgetAndBadRequests(t *testing.T) {
	ix := podcast(t)
	a, err := ix.Retrieve(context.Background(), codecontext.Request{Question: "the daily podcast is generating twice", MaxBytes: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := json.Marshal(a); len(body) > 1500 || !a.Truncated || a.Omitted == 0 {
		t.Errorf("answer of %d bytes, truncated %v, omitted %d; want at most 1500 and truncated", len(body), a.Truncated, a.Omitted)
	}
	if _, err := ix.Retrieve(context.Background(), codecontext.Request{Question: "  "}); err == nil {
		t.Error("an empty question was answered")
	}
	_, err = ix.Impact(context.Background(), codecontext.ImpactRequest{ID: "code:app/cron.py"})
	if !errors.Is(err, codecontext.ErrUnknownCode) || !strings.Contains(err.Error(), "code:app/api/app/cron.py") {
		t.Errorf("Impact of an unknown id: %v; want ErrUnknownCode suggesting code:app/api/app/cron.py", err)
	}
}

func TestTerms(t *testing.T) {
	for in, want := range map[string][]string{
		"fetchEpisode":   {"fetchepisode", "fetch", "episode"},
		"generate_daily": {"generate", "daily"},
		"HTTPServer":     {"httpserver", "http", "server"},
	} {
		if diff := cmp.Diff(want, codecontext.Terms(in)); diff != "" {
			t.Errorf("Terms(%q) (-want +got):\n%s", in, diff)
		}
	}
}
