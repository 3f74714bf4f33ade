package serve_test

import (
	"encoding/json"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
}
