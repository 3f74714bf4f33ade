package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Typed Graph plugin's public Cypher conformance corpus, run against
// vaultgraph as the plugin's own runner runs it against its second engine:
// every query is POSTed to /query as its runner sends it, and compared
// with the peer's rules (packages/sidecar/conformance/compare.mts):
// the same error kind; the same column names and kinds and the same number
// of rows; rows as a multiset unless ORDER BY follows the last RETURN;
// values compared as JSON text (3.0 equals 3; object keys in one order).
// A case citing a documented difference passes with either outcome the
// peer's registry records for it.
const peerCorpus = "peers/typed-graph-conformance"

// sharedPath finds p in the shared folder beside the repository
// (../shared, as in CI), in $VAULTGRAPH_SHARED, or in /work/shared (where
// worktrees of this machine find it); "" when it is nowhere.
func sharedPath(p string) string {
	for _, dir := range []string{repoPath("../shared"), os.Getenv("VAULTGRAPH_SHARED"), "/work/shared"} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			return filepath.Join(dir, p)
		}
	}
	return ""
}

type corpusCase struct {
	ID         string         `json:"id"`
	Query      string         `json:"query"`
	Difference string         `json:"difference"`
	Expected   corpusOutcome  `json:"expected"`
	Params     map[string]any `json:"params"`
}

type corpusOutcome struct {
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
	Result struct {
		Columns []struct{ Name, Kind string } `json:"columns"`
		Rows    [][]any                       `json:"rows"`
	} `json:"result"`
}

type corpusDifference struct {
	ID       string            `json:"id"`
	Outcomes map[string]string `json:"outcomes"`
}

// minCorpusPasses is what TestTypedGraphCorpus requires. The cases
// vaultgraph answers differently are listed, with the reason, in the
// README's compatibility table.
const minCorpusPasses = 57

func TestTypedGraphCorpus(t *testing.T) {
	dir := sharedPath(peerCorpus)
	if dir == "" {
		t.Skipf("the peer's corpus (shared/%s) is not beside the repository, in $VAULTGRAPH_SHARED or in /work/shared", peerCorpus)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "corpus.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&cases); err != nil {
		t.Fatal(err)
	}
	var diffs []corpusDifference
	if b, err := os.ReadFile(filepath.Join(dir, "differences.json")); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &diffs); err != nil {
		t.Fatal(err)
	}
	differences := map[string]map[string]string{}
	for _, d := range diffs {
		differences[d.ID] = d.Outcomes
	}
	if len(cases) != 59 {
		t.Fatalf("%d cases in the corpus, want the 59 of cbbf9b0f60d9", len(cases))
	}

	data := t.TempDir()
	vgOK(t, "index", "--vault", filepath.Join(dir, "fixture"), "--data", data, "--quiet", "--graph-buffer-mib", "64")
	srv := startServer(t, data, nil)

	passed := 0
	var failures []string
	for _, c := range cases {
		got := postCorpusQuery(t, srv.addr, c)
		reason := compareCorpus(c.Query, c.Expected, got)
		if reason != "" && c.Difference != "" {
			// The registry's other engine's outcome passes too.
			for engine, outcome := range differences[c.Difference] {
				if engine != "builtin" && outcomeIs(got, outcome) {
					reason = ""
				}
			}
		}
		if reason == "" {
			passed++
			continue
		}
		failures = append(failures, fmt.Sprintf("%s: %s\n    %s\n    got %s", c.ID, reason, c.Query, got.summary()))
	}
	t.Logf("typed-graph corpus: %d of %d pass", passed, len(cases))
	for _, f := range failures {
		t.Log(f)
	}
	if passed < minCorpusPasses {
		t.Errorf("%d of %d corpus cases pass, want at least %d", passed, len(cases), minCorpusPasses)
	}
}

// corpusGot is what /query answered.
type corpusGot struct {
	status  int
	kind    string
	message string
	columns []struct{ Name, Kind string }
	rows    [][]any
}

func (g corpusGot) summary() string {
	if g.kind != "" {
		return fmt.Sprintf("%d %s: %s", g.status, g.kind, g.message)
	}
	b, _ := json.Marshal(map[string]any{"columns": g.columns, "rows": g.rows})
	return string(b)
}

func postCorpusQuery(t *testing.T, addr string, c corpusCase) corpusGot {
	t.Helper()
	// As the peer's runner sends it: no Content-Type but fetch's default.
	body, _ := json.Marshal(map[string]any{"query": c.Query, "backend": "builtin"})
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/query", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Error *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
		Columns []struct{ Name, Kind string } `json:"columns"`
		Rows    [][]any                       `json:"rows"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: /query answered %d %q", c.ID, resp.StatusCode, b)
	}
	g := corpusGot{status: resp.StatusCode, columns: out.Columns, rows: out.Rows}
	if resp.StatusCode != http.StatusOK {
		g.kind = fmt.Sprintf("http %d", resp.StatusCode)
		if out.Error != nil {
			g.kind, g.message = out.Error.Kind, out.Error.Message
		}
	}
	return g
}

// compareCorpus is the peer's compare(): "" when got matches want, else
// the reason.
func compareCorpus(query string, want corpusOutcome, got corpusGot) string {
	switch {
	case !want.OK && got.kind != "":
		if want.Error != got.kind {
			return fmt.Sprintf("error kinds differ: %s vs %s", want.Error, got.kind)
		}
		return ""
	case !want.OK:
		return "only vaultgraph succeeded, want error " + want.Error
	case got.kind != "":
		return "only vaultgraph failed: " + got.kind
	}
	var wn, gn, wk, gk []string
	for _, c := range want.Result.Columns {
		wn, wk = append(wn, c.Name), append(wk, c.Kind)
	}
	for _, c := range got.columns {
		gn, gk = append(gn, c.Name), append(gk, c.Kind)
	}
	if !slices.Equal(wn, gn) {
		return fmt.Sprintf("column names differ: %v vs %v", wn, gn)
	}
	if !slices.Equal(wk, gk) {
		return fmt.Sprintf("column kinds differ: %v vs %v", wk, gk)
	}
	wr, gr := jsonRows(want.Result.Rows), jsonRows(got.rows)
	if len(wr) != len(gr) {
		return fmt.Sprintf("row counts differ: %d vs %d", len(wr), len(gr))
	}
	if corpusOrdered(query) {
		if !slices.Equal(wr, gr) {
			return "row order differs under ORDER BY"
		}
		return ""
	}
	slices.Sort(wr)
	slices.Sort(gr)
	if !slices.Equal(wr, gr) {
		return "rows differ"
	}
	return ""
}

// outcomeIs reports whether got is a registry outcome: "ok" or an error
// kind.
func outcomeIs(got corpusGot, outcome string) bool {
	if outcome == "ok" {
		return got.kind == ""
	}
	return got.kind == outcome
}

// jsonRows encodes each row as JSON text: numbers in their shortest form
// (3.0 is 3), object members sorted by name.
func jsonRows(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		b, _ := json.Marshal(canonicalJSON(r))
		out[i] = string(b)
	}
	return out
}

func canonicalJSON(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, _ := v.Float64()
		return f
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = canonicalJSON(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = canonicalJSON(x)
		}
		return out
	}
	return v
}

var orderBy = regexp.MustCompile(`\bORDER\s+BY\b`)

// corpusOrdered is the peer's isOrdered: ORDER BY after the last RETURN.
func corpusOrdered(query string) bool {
	q := strings.ToUpper(query)
	ret := strings.LastIndex(q, "RETURN")
	return ret >= 0 && orderBy.MatchString(q[ret:])
}
