package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/indexer"
)

// TestNoteMatchesCypherNode: GET /notes/{path} gives every note of the
// demo vault the property names a Cypher node of the same note has (type
// as type, no tags or aliases when it has none), so that a client reads
// one vocabulary whichever way it asked.
func TestNoteMatchesCypherNode(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{})
	r := ts.post("/query", `{"query": "MATCH (n) RETURN n ORDER BY n.path"}`)
	if r.status != 200 {
		t.Fatalf("query = %d %s", r.status, r.body)
	}
	type node struct {
		ID         string         `json:"id"`
		Properties map[string]any `json:"properties"`
	}
	var res struct{ Rows [][]node }
	if err := json.Unmarshal(r.body, &res); err != nil {
		t.Fatal(err)
	}
	var typed, untagged int
	for _, row := range res.Rows {
		want := row[0]
		r := ts.get("/notes/" + url.PathEscape(want.ID))
		if r.status != 200 {
			t.Fatalf("GET /notes/%s = %d %s", want.ID, r.status, r.body)
		}
		var got struct{ Note node }
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		gk, wk := slices.Sorted(maps.Keys(got.Note.Properties)), slices.Sorted(maps.Keys(want.Properties))
		if !slices.Equal(gk, wk) {
			t.Errorf("%s: GET /notes has properties %v, Cypher %v", want.ID, gk, wk)
		}
		if _, ok := want.Properties["type"]; ok {
			typed++
		}
		if _, ok := want.Properties["tags"]; !ok {
			untagged++
		}
	}
	if typed == 0 || untagged == 0 || len(res.Rows) < 10 {
		t.Fatalf("%d notes, %d with a type, %d without tags: the demo vault no longer covers the cases", len(res.Rows), typed, untagged)
	}
}

// TestNotesOfOddFiles: a note whose file name holds a tab is indexed, so
// GET /notes serves it (the path is a lookup key, never opened),
// percent-encoded as any other; a file the indexer skipped is a 404 that
// says why.
func TestNotesOfOddFiles(t *testing.T) {
	vault := copyDemoVault(t)
	if err := os.WriteFile(filepath.Join(vault, "tab\there.md"), []byte("# Tab\n\nA note with a tab in its name.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "Binary.md"), []byte("# Binary\n\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if _, err := index(vault, data); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, data, serverConfig{})
	if r := ts.get("/notes/tab%09here.md"); r.status != 200 || !strings.Contains(string(r.body), `"id":"tab\there.md"`) {
		t.Errorf("GET /notes/tab%%09here.md = %d %.300s", r.status, r.body)
	}
	if r := ts.get("/notes/tab%0Athere.md"); r.status != 404 {
		t.Errorf("GET a missing note with a newline = %d %.300s", r.status, r.body)
	}
	if r := ts.get("/notes/Binary.md"); r.status != 404 || !strings.Contains(r.errorMessage(), "the file was skipped (binary: holds NUL bytes") {
		t.Errorf("GET a skipped file = %d %.300s", r.status, r.body)
	}
	// A code id, as retrieve_context lists them (review5 F22).
	if r := ts.get("/notes/code:app%2Fapi%2Fcron.py"); r.status != 404 || !strings.Contains(r.errorMessage(), "is code, not a note") {
		t.Errorf("GET a code id = %d %.300s", r.status, r.body)
	}
}

// TestNoteLinksAreCapped: a note with more links than max_links (default
// 500) lists that many of each of outgoing and incoming, with the totals,
// truncated and a notice naming the next links_from; links_from pages on,
// max_links raises the cap up to its bound, and bad values are a 400.
func TestNoteLinksAreCapped(t *testing.T) {
	vault := t.TempDir()
	var hub strings.Builder
	hub.WriteString("# Hub\n")
	for i := range 1200 {
		fmt.Fprintf(&hub, "- [[T%d]]\n", i)
	}
	files := map[string]string{"Hub.md": hub.String(), "Other.md": "# Other\nSee [[Hub]].\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	if _, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data}); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, data, serverConfig{})
	type answer struct {
		Outgoing      []struct{ Target string } `json:"outgoing"`
		Incoming      []struct{ Source string } `json:"incoming"`
		OutgoingTotal int                       `json:"outgoing_total"`
		IncomingTotal int                       `json:"incoming_total"`
		Truncated     bool                      `json:"truncated"`
		Notices       []string                  `json:"notices"`
	}
	get := func(query string) answer {
		t.Helper()
		r := ts.get("/notes/Hub.md" + query)
		if r.status != 200 {
			t.Fatalf("GET /notes/Hub.md%s = %d %.300s", query, r.status, r.body)
		}
		var a answer
		if err := json.Unmarshal(r.body, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := get("")
	if len(a.Outgoing) != 500 || a.OutgoingTotal != 1200 || len(a.Incoming) != 1 || a.IncomingTotal != 1 || !a.Truncated ||
		len(a.Notices) != 1 || !strings.Contains(a.Notices[0], "links_from=500") {
		t.Errorf("default: %d of %d out, %d of %d in, truncated %v, notices %q; want 500 of 1200, 1 of 1, truncated, links_from=500",
			len(a.Outgoing), a.OutgoingTotal, len(a.Incoming), a.IncomingTotal, a.Truncated, a.Notices)
	}
	if a := get("?links_from=1000"); len(a.Outgoing) != 200 || a.Outgoing[0].Target != "T1000" || len(a.Incoming) != 0 || !a.Truncated {
		t.Errorf("links_from=1000: %d out (first %+v), %d in, truncated %v; want T1000..T1199 and none in", len(a.Outgoing), a.Outgoing[:min(1, len(a.Outgoing))], len(a.Incoming), a.Truncated)
	}
	if a := get("?max_links=2000"); len(a.Outgoing) != 1200 || a.Truncated || a.Notices != nil {
		t.Errorf("max_links=2000: %d out, truncated %v, notices %q; want all 1200, not truncated", len(a.Outgoing), a.Truncated, a.Notices)
	}
	if a := ts.get("/notes/Other.md"); !strings.Contains(string(a.body), `"outgoing_total":1,"incoming_total":0,"truncated":false`) {
		t.Errorf("a note with few links: %.400s", a.body)
	}
	for _, q := range []string{"?max_links=0", "?max_links=10001", "?links_from=-1", "?max_links=ten"} {
		if r := ts.get("/notes/Hub.md" + q); r.status != 400 || !strings.Contains(r.errorMessage(), strings.Split(q[1:], "=")[0]) {
			t.Errorf("GET /notes/Hub.md%s = %d %.300s, want a 400 naming the parameter", q, r.status, r.body)
		}
	}
}
