package codecontext_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// podcast indexes the podcast vault and repository with the BM25 stage and
// the builtin embedder, and opens the code context of the snapshot with its
// vectors, as the server does.
func podcast(t *testing.T) *codecontext.Index {
	t.Helper()
	s := podcastSnapshot(t, nil)
	e, err := embed.NewStatic()
	if err != nil {
		t.Fatal(err)
	}
	notes, err := search.Open(s, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { notes.Close() })
	src := codecontext.Sources{Embedder: e, Notes: notes}
	ix, err := codecontext.Open(s, src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// podcastSnapshot indexes the podcast vault and repository, plus the
// files of extra (path -> content) committed over it.
func podcastSnapshot(t *testing.T, extra map[string]string) *snapshot.Snapshot {
	t.Helper()
	repo := t.TempDir()
	r := gitrepotest.Podcast(t, repo)
	if extra != nil {
		r.Commit("more", extra)
	}
	vault := t.TempDir()
	gitrepotest.WriteVault(t, vault, gitrepotest.PodcastVault)
	e, err := embed.NewStatic()
	if err != nil {
		t.Fatal(err)
	}
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: t.TempDir(),
		Repos:  []indexer.Repo{{Name: "app", Path: repo}},
		Stages: []indexer.Stage{indexer.BM25Stage{}, &indexer.EmbedStage{Embedder: e}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(res.Dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
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

// TestParaphraseFindsCodeByVectors asks for the uploader in words that
// neither its code nor any note has: only the code vectors can find it.
func TestParaphraseFindsCodeByVectors(t *testing.T) {
	const question = "sending a recording to the bucket"
	s := podcastSnapshot(t, nil)
	lexical, err := codecontext.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	a, err := lexical.Retrieve(context.Background(), codecontext.Request{Question: question})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.MustRead) != 0 {
		t.Fatalf("the question shares words with the code after all: BM25 alone found %v", ids(a.MustRead))
	}
	e, err := embed.NewStatic()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := codecontext.Open(s, codecontext.Sources{Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	a, err = ix.Retrieve(context.Background(), codecontext.Request{Question: question})
	if err != nil {
		t.Fatal(err)
	}
	got := ids(a.MustRead)
	for _, want := range []string{"code:app/uploader/storage/storage.go", "code:app/uploader/upload.go"} {
		if !slices.Contains(got, want) {
			t.Errorf("must_read %v lacks %s", got, want)
		}
	}
	for _, e := range a.MustRead {
		if !slices.ContainsFunc(e.Why, func(w string) bool { return strings.Contains(w, "near the question in meaning") }) {
			t.Errorf("%s is in must_read for another reason than its vectors: %v", e.ID, e.Why)
		}
	}
	if got := ids(a.MustTest); !slices.Contains(got, "code:app/uploader/upload_test.go") {
		t.Errorf("must_test %v lacks the uploader's test", got)
	}
}

// TestPublicRepositoryAnswers checks the hand-checked answers of
// testdata/codecontext/public.json on the public repositories they were
// written for, indexed in place (only read) beside the demo vault, as
// vaultgraph index does by default. It skips when a repository is absent
// (as in CI).
func TestPublicRepositoryAnswers(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/codecontext/public.json")
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		Repo     string   `json:"repo"`
		Question string   `json:"question"`
		MustRead []string `json:"must_read"`
		MustTest []string `json:"must_test"`
	}
	var file struct {
		Questions []answer `json:"questions"`
		Misses    []answer `json:"misses"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	holds := func(ix *codecontext.Index, q answer) (bool, string) {
		a, err := ix.Retrieve(context.Background(), codecontext.Request{Question: q.Question})
		if err != nil {
			t.Fatal(err)
		}
		read, tests := ids(a.MustRead), ids(a.MustTest)
		for _, id := range q.MustRead {
			if !slices.Contains(read, id) {
				return false, fmt.Sprintf("must_read %v lacks %s", read, id)
			}
		}
		for _, id := range q.MustTest {
			if !slices.Contains(tests, id) {
				return false, fmt.Sprintf("must_test %v lacks %s", tests, id)
			}
		}
		return true, ""
	}
	for _, repo := range []string{"flask", "hono"} {
		t.Run(repo, func(t *testing.T) {
			ix := publicIndex(t, repo)
			for _, q := range file.Questions {
				if ok, why := holds(ix, q); q.Repo == repo && !ok {
					t.Errorf("%q: %s", q.Question, why)
				}
			}
			for _, q := range file.Misses {
				if ok, _ := holds(ix, q); q.Repo == repo && ok {
					t.Errorf("%q now holds: move it from misses to questions in testdata/codecontext/public.json", q.Question)
				}
			}
		})
	}
}

// publicIndex indexes the demo vault and the public repository name
// (/tmp/pub/NAME, or under VAULTGRAPH_PUBLIC_REPOS) with the BM25 stage
// and the builtin embedder, checking that nothing under its .git changed.
func publicIndex(t *testing.T, name string) *codecontext.Index {
	t.Helper()
	root := os.Getenv("VAULTGRAPH_PUBLIC_REPOS")
	if root == "" {
		root = "/tmp/pub"
	}
	repo := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		t.Skipf("%s is absent: clone the public repository there (see indexer/public_bench_test.go) or set VAULTGRAPH_PUBLIC_REPOS", repo)
	}
	before := gitrepotest.Checksums(t, repo)
	e, err := embed.NewStatic()
	if err != nil {
		t.Fatal(err)
	}
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: "../../testdata/demo-vault", Data: t.TempDir(),
		Repos:  []indexer.Repo{{Name: name, Path: repo}},
		Stages: []indexer.Stage{indexer.BM25Stage{}, &indexer.EmbedStage{Embedder: e}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, gitrepotest.Checksums(t, repo)); diff != "" {
		t.Fatalf("indexing %s changed its .git (-before +after):\n%s", repo, diff)
	}
	s, err := snapshot.Open(res.Dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notes, err := search.Open(s, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { notes.Close() })
	ix, err := codecontext.Open(s, codecontext.Sources{Embedder: e, Notes: notes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// modelLike is the builtin embedder presented as a model's (a kind other
// than the builtin ones), with the same vectors and fingerprint.
type modelLike struct{ embed.Embedder }

func (m modelLike) Info() embed.Info {
	i := m.Embedder.Info()
	i.Kind = format.EmbedderSemantic
	return i
}

// TestNoteVectorsOnlyWithAModel: a question whose words no note has seeds
// notes by their vectors with a model embedder, and not with the builtin
// one, whose note similarities do not separate.
func TestNoteVectorsOnlyWithAModel(t *testing.T) {
	const question = "sending a recording to the bucket"
	s := podcastSnapshot(t, nil)
	e, err := embed.NewStatic()
	if err != nil {
		t.Fatal(err)
	}
	notes, err := search.Open(s, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer notes.Close()
	byMeaning := func(em embed.Embedder) []string {
		ix, err := codecontext.Open(s, codecontext.Sources{Embedder: em, Notes: notes})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		a, err := ix.Retrieve(context.Background(), codecontext.Request{Question: question})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, k := range a.Knowledge {
			if slices.Contains(k.Why, "near the question in meaning") {
				out = append(out, k.ID)
			}
		}
		return out
	}
	if got := byMeaning(e); len(got) != 0 {
		t.Errorf("the builtin embedder seeded notes by their vectors: %v", got)
	}
	if got := byMeaning(modelLike{e}); len(got) == 0 {
		t.Error("a model embedder seeded no note by its vectors for a question no note has the words of")
	}
}

// TestRepositoryNameIsNoNoteWord: the code links of a note (code:app/...)
// are not its words, so a question naming the repository does not match
// every note that links into it.
func TestRepositoryNameIsNoNoteWord(t *testing.T) {
	ix := podcast(t)
	a, err := ix.Retrieve(context.Background(), codecontext.Request{Question: "the app crashes at startup with a stack trace in code"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range a.Knowledge {
		if slices.Contains(e.Why, "matches the question") {
			t.Errorf("%s matches a question whose only shared words are the repository's name and code: %v", e.ID, e.Why)
		}
	}
}

// TestWeakMatchIsSaid: a question whose words are mostly in neither the
// code nor the notes gets an answer that says so; a hand-checked one does
// not.
func TestWeakMatchIsSaid(t *testing.T) {
	ix := podcast(t)
	weak, err := ix.Retrieve(context.Background(), codecontext.Request{Question: "kubernetes helm chart rollout"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(weak.SeedsNote, "weak match") || !strings.Contains(weak.Text(), "weak match") {
		t.Errorf("an off-topic question: seeds_note %q", weak.SeedsNote)
	}
	good, err := ix.Retrieve(context.Background(), codecontext.Request{Question: "the daily podcast is generating twice"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(good.SeedsNote, "weak") {
		t.Errorf("a hand-checked question: seeds_note %q", good.SeedsNote)
	}
}

// TestRepoKeepsTheCodeToOneRepository: with two repositories of the same
// code indexed, a question answers from both, and with Repo from that one
// only; an unknown Repo is refused naming the snapshot's repositories.
func TestRepoKeepsTheCodeToOneRepository(t *testing.T) {
	one, two := t.TempDir(), t.TempDir()
	gitrepotest.Podcast(t, one)
	gitrepotest.Podcast(t, two)
	vault := t.TempDir()
	gitrepotest.WriteVault(t, vault, gitrepotest.PodcastVault)
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: t.TempDir(),
		Repos:  []indexer.Repo{{Name: "app", Path: one}, {Name: "other", Path: two}},
		Stages: []indexer.Stage{indexer.BM25Stage{}}})
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
	const question = "the daily podcast is generating twice"
	repos := func(a *codecontext.Answer) map[string]bool {
		seen := map[string]bool{}
		for _, es := range [][]codecontext.Entry{a.MustRead, a.MayChange, a.MustTest, a.Danger} {
			for _, e := range es {
				seen[e.Repo] = true
			}
		}
		return seen
	}
	both, err := ix.Retrieve(context.Background(), codecontext.Request{Question: question, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := repos(both); !got["app"] || !got["other"] {
		t.Fatalf("without repo the code comes from %v, want both", got)
	}
	only, err := ix.Retrieve(context.Background(), codecontext.Request{Question: question, K: 10, Repo: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if got := repos(only); len(got) != 1 || !got["other"] || len(only.MustRead) == 0 || len(only.MustTest) == 0 {
		t.Errorf("repo other: code from %v, must_read %v, must_test %v", got, ids(only.MustRead), ids(only.MustTest))
	}
	if _, err := ix.Retrieve(context.Background(), codecontext.Request{Question: question, Repo: "nope"}); !errors.Is(err, codecontext.ErrUnknownRepo) ||
		!strings.Contains(err.Error(), "app, other") {
		t.Errorf("unknown repo: %v", err)
	}
}

// TestMustReadSaysWhatItUses: a must_read file's uses name what it calls
// in the files it imports, outside must_read, checked by hand on the
// fixture: podcast.py imports feed.py and calls fetch_articles; cron.py
// imports podcast.py and lock.py, both in must_read, so it uses nothing
// else.
func TestMustReadSaysWhatItUses(t *testing.T) {
	ix := podcast(t)
	a, err := ix.Retrieve(context.Background(), codecontext.Request{Question: "the daily podcast is generating twice"})
	if err != nil {
		t.Fatal(err)
	}
	uses := map[string][]string{}
	for _, e := range a.MustRead {
		uses[e.ID] = e.Uses
	}
	want := map[string][]string{
		"code:app/api/app/cron.py":    nil,
		"code:app/api/app/podcast.py": {"code:app/api/app/feed.py#fetch_articles"},
		"code:app/api/app/lock.py":    nil,
	}
	if diff := cmp.Diff(want, uses); diff != "" {
		t.Errorf("uses of must_read (-want +got):\n%s", diff)
	}
	for _, b := range [][]codecontext.Entry{a.MayChange, a.MustTest, a.Knowledge, a.Danger} {
		for _, e := range b {
			if len(e.Uses) > 0 {
				t.Errorf("%s outside must_read has uses %v", e.ID, e.Uses)
			}
		}
	}
}

// An anchor naming a method by its bare name, as an agent that read
// func (q *queue) push() writes it, is refused with the method's id
// (review5 F5).
func TestImpactSuggestsTheMethod(t *testing.T) {
	s := podcastSnapshot(t, map[string]string{"uploader/queue.go": "package uploader\n\ntype queue struct{}\n\nfunc (q *queue) push() {}\n"})
	ix, err := codecontext.Open(s, codecontext.Sources{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	_, err = ix.Impact(context.Background(), codecontext.ImpactRequest{ID: "code:app/uploader/queue.go#push"})
	if !errors.Is(err, codecontext.ErrUnknownCode) || !strings.Contains(err.Error(), "did you mean [code:app/uploader/queue.go#queue.push]") {
		t.Errorf("Impact of a method by its bare name: %v; want it to suggest code:app/uploader/queue.go#queue.push", err)
	}
}
