package main

import (
	"strings"
	"testing"
)

// vaultgraph query keeps its rows for a label or type the snapshot lacks
// and says on stderr what it did not find.
func TestQueryNoticesUnknownNames(t *testing.T) {
	data := t.TempDir()
	vgOK(t, "index", "-q", "--embedder", "lexical", "--vault", repoPath("testdata/demo-vault"), "--data", data)
	r := vgOK(t, "query", "-d", data, "MATCH (n:Persn)-[:link]->() RETURN count(n) AS n")
	if !strings.Contains(r.stdout, "0") || strings.Contains(r.stdout, "notice") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	for _, want := range []string{
		"notice: no label Persn in this snapshot; did you mean Person?\n",
		"notice: link is links_to in Cypher (the graph tool and POST /graph call plain links link); this snapshot has no relationship type link\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r := vgOK(t, "query", "-d", data, "MATCH (n:Person) RETURN count(n)"); r.stderr != "" {
		t.Errorf("known names: stderr %q", r.stderr)
	}
}
