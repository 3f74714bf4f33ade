package serve_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestStubsAreNotRetrieveHits: a question naming a missing note (a stub,
// the target of a link with no file) does not make the stub a hit of
// POST /retrieve while k notes with text were found; the stub can still be
// reached as a neighbour. POST /search never lists it: a stub has no text.
func TestStubsAreNotRetrieveHits(t *testing.T) {
	vault := t.TempDir()
	for name, text := range map[string]string{
		"Import.md":   "# Import\nImport your tables from Airtable with the importer; see [[Airtable]].\n",
		"Gardens.md":  "# Gardens\nRoses and tulips grow in the spring garden.\n",
		"Kitchen.md":  "# Kitchen\nBread rises overnight in a warm kitchen.\n",
		"Boats.md":    "# Boats\nSailing boats need wind and a calm harbour.\n",
		"Mountain.md": "# Mountain\nThe trail climbs past the lake to the summit.\n",
	} {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	if _, err := index(vault, data); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, data, serverConfig{})
	r := ts.post("/retrieve", `{"question": "Airtable", "k": 3, "depth": 0}`)
	if r.status != 200 {
		t.Fatalf("POST /retrieve = %d %s", r.status, r.body)
	}
	var res struct {
		Notes []struct {
			Path string `json:"path"`
			Role string `json:"role"`
			Stub bool   `json:"stub"`
		} `json:"notes"`
	}
	if err := json.Unmarshal(r.body, &res); err != nil {
		t.Fatal(err)
	}
	hits := 0
	for _, n := range res.Notes {
		if n.Role == "hit" {
			hits++
			if n.Stub {
				t.Errorf("the stub %s is a hit: %s", n.Path, r.body)
			}
		}
	}
	if hits != 3 || len(res.Notes) == 0 || res.Notes[0].Path != "Import.md" {
		t.Errorf("%d hits, want 3 with Import.md first: %s", hits, r.body)
	}
	r = ts.post("/search", `{"query": "Airtable", "k": 10}`)
	if obj := r.object(t); r.status != 200 || len(obj["hit_ids"].([]any)) == 0 {
		t.Fatalf("POST /search = %d %s", r.status, r.body)
	} else {
		for _, id := range obj["hit_ids"].([]any) {
			if id == "Airtable" {
				t.Errorf("search lists the stub Airtable: %s", r.body)
			}
		}
	}
}
