package mcp

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/serve/store"
)

// TestSeveralVaultsFollowEachSwap serves two vaults, one without a
// snapshot yet: the tools are listed once, calls for the empty vault say
// so, and its first snapshot brings its notes into the resource list with
// list_changed.
func TestSeveralVaultsFollowEachSwap(t *testing.T) {
	work, home := demoData(t), t.TempDir()
	a, b := openStore(t, work), openStore(t, home)
	vs, err := store.NewVaults([]store.Vault{{Name: "work", Store: a}, {Name: "home", Store: b}}, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewVaults(vs, Options{validateOutput: true})
	if err != nil {
		t.Fatal(err)
	}
	c, notes := connect(t, s)
	if names := toolNamesOf(t, c); len(names) != 6 {
		t.Errorf("tools: %v", names)
	}
	uris := func() []string {
		res, err := c.ListResources(t.Context(), mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Resources {
			out = append(out, r.URI)
		}
		return out
	}
	inVault := func(list []string, name string) int {
		n := 0
		for _, u := range list {
			if strings.HasPrefix(u, "vault://"+name+"/") {
				n++
			}
		}
		return n
	}
	before := uris()
	if inVault(before, "work") == 0 || inVault(before, "home") != 0 {
		t.Fatalf("resources before home's first snapshot: %v", before)
	}
	if msg := callErr(t, c, toolReadNote, map[string]any{"path": "Alice", "vault": "home"}); !strings.Contains(msg, "vault home has no snapshot yet") || !strings.Contains(msg, home) {
		t.Errorf("call for the empty vault: %q", msg)
	}
	var out noteOutput
	callOK(t, c, toolReadNote, map[string]any{"path": "Alice"}, &out)
	if out.Resource != "vault://work/People%2FAlice.md" {
		t.Errorf("resource of a note of work: %q", out.Resource)
	}

	notes.reset()
	if err := index(demoVault, home, true); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	waitFor(t, "resources list_changed after home's first snapshot", func() bool {
		return notes.has(string(mcp.MethodNotificationResourcesListChanged))
	})
	after := uris()
	if inVault(after, "home") != inVault(after, "work") {
		t.Errorf("resources after home's first snapshot: %d of home, %d of work", inVault(after, "home"), inVault(after, "work"))
	}
	callOK(t, c, toolReadNote, map[string]any{"path": "Alice", "vault": "home"}, &out)
	if out.Snapshot != b.Current() || out.Resource != "vault://home/People%2FAlice.md" {
		t.Errorf("read_note in home: %s, %s", out.Snapshot, out.Resource)
	}
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "vault://People%2FAlice.md"
	if _, err := c.ReadResource(t.Context(), req); !isNotFound(err) || !strings.Contains(err.Error(), "name the vault") {
		t.Errorf("a URI without a vault: %v", err)
	}
}
