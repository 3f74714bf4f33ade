package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcpBudget is the context budget: tools/list, and each default answer, at
// most 12 KB as the official client hands them to an agent.
const mcpBudget = 12000

// TestMCPContextBudget measures, with the official client over stdio, what
// an agent is handed on a real vault (Obsidian's help vault, 6,280
// notes): tools/list and the default answer of every tool, on the note
// with the most backlinks and the largest note, each within the budget;
// answers that hold part of a list say how to get the rest, and following
// that gets the next part. Sizes are bytes of the results' JSON.
func TestMCPContextBudget(t *testing.T) {
	vault := sharedVault(t, "obsidian-help")
	data := t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", data, "--quiet", "--graph-buffer-mib", "256")
	const hub = "ko/Obsidian 확장/Obsidian URI.md"           // 135 backlinks
	const large = "bn/Obsidian সম্প্রসারণ/Obsidian CLI.md" // 67 KB
	graph := func(action string) mcpStep {
		return call("graph", map[string]any{"action": action, "sourcePath": hub})
	}
	plan := []mcpStep{
		{"op": "init"},
		{"op": "listTools"},
		call("vault_status", nil),
		call("read_note", map[string]any{"path": large}),
		graph("neighbors"), graph("backlinks"), graph("forwardlinks"), graph("traverse"), graph("statistics"),
		call("graph", map[string]any{"action": "statistics"}),
		call("graph", map[string]any{"action": "path", "sourcePath": hub, "targetPath": large}),
		call("cypher_query", map[string]any{"query": "MATCH (n) RETURN n"}),
		call("vector_search", map[string]any{"query": "sync notes between devices"}),
		call("vector_search", map[string]any{"query": "sync notes between devices", "target": "chunks"}),
		call("graphrag_retrieve", map[string]any{"question": "How do I sync my notes between devices?"}),
		// The largest arguments the Typed Graph sidecar allows page
		// (review4 F23); a part of a note after the first is its text
		// (F17).
		call("graphrag_retrieve", map[string]any{"question": "How do I sync my notes between devices?", "k": 50, "depth": 3, "neighbor_cap": 50, "chunk_cap": 100}),
		call("read_note", map[string]any{"path": large, "offset": 5000}),
	}
	o := mcpRun(t, stdioTransport(data), plan...)

	var init struct{ Instructions string }
	o[0].decode(t, &init)
	for _, tool := range []string{"graphrag_retrieve", "vector_search", "cypher_query", "graph", "read_note", "vault_status", "next.cursor"} {
		if !strings.Contains(init.Instructions, tool) {
			t.Errorf("instructions do not name %s:\n%s", tool, init.Instructions)
		}
	}
	var tools []struct{ Name string }
	o[1].decode(t, &tools)
	if n := len(o[1].Result); n > mcpBudget || len(tools) != 6 {
		t.Errorf("tools/list: %d bytes for %d tools, budget %d", n, len(tools), mcpBudget)
	}
	t.Logf("tools/list: %d bytes", len(o[1].Result))
	for i, step := range plan[2:] {
		out := o[i+2]
		name := step["name"].(string)
		if args, _ := step["arguments"].(map[string]any); args["action"] != nil {
			name += " " + args["action"].(string)
		}
		var r toolResult
		out.decode(t, &r)
		if r.IsError {
			t.Errorf("%s: %s", name, r.text())
			continue
		}
		t.Logf("%-28s %6d bytes", name, len(out.Result))
		if len(out.Result) > mcpBudget {
			t.Errorf("%s: %d bytes, budget %d", name, len(out.Result), mcpBudget)
		}
		// The text carries what the structured content does: its JSON.
		var text, structured map[string]any
		if err := json.Unmarshal([]byte(r.Content[0].Text), &text); err != nil || json.Unmarshal(r.StructuredContent, &structured) != nil || len(text) != len(structured) {
			t.Errorf("%s: the text is not the structured content's JSON: %v", name, err)
		}
		if next, ok := structured["next"].(map[string]any); ok {
			if hint, _ := next["hint"].(string); !strings.Contains(hint, next["cursor"].(string)) {
				t.Errorf("%s: next without a line saying how to get the rest: %v", name, next)
			}
		}
	}

	// read_note gives the text once, and says where the rest starts.
	var note struct {
		NextOffset int `json:"next_offset"`
		Hint       string
	}
	r := decodeResult(t, o[3])
	json.Unmarshal(r.StructuredContent, &note)
	if len(r.Content) != 2 || note.NextOffset == 0 || !strings.Contains(note.Hint, "offset") || strings.Contains(string(r.StructuredContent), r.Content[1].Text[:200]) {
		t.Errorf("read_note of a long note: %d blocks, next %d, hint %q", len(r.Content), note.NextOffset, note.Hint)
	}
	// The hub's backlinks page: the next page has other notes.
	var first struct {
		Nodes []struct{ Path string }
		Next  struct{ Cursor string }
	}
	json.Unmarshal(decodeResult(t, o[5]).StructuredContent, &first)
	if first.Next.Cursor == "" {
		t.Fatalf("backlinks of a hub fit one answer: %d nodes", len(first.Nodes))
	}
	o2 := mcpRun(t, stdioTransport(data),
		call("graph", map[string]any{"action": "backlinks", "sourcePath": hub, "cursor": first.Next.Cursor}))
	var second struct{ Nodes []struct{ Path string } }
	r2 := decodeResult(t, o2[0])
	json.Unmarshal(r2.StructuredContent, &second)
	if r2.IsError || len(second.Nodes) == 0 || second.Nodes[0].Path == first.Nodes[0].Path || len(o2[0].Result) > mcpBudget {
		t.Errorf("the second page of backlinks: %d nodes, %d bytes: %.300s", len(second.Nodes), len(o2[0].Result), r2.text())
	}
}

// sharedVault is a real vault of /work/shared/vaults: by that path, or at
// ../shared/vaults beside the repository (CI); the test is skipped when
// it is in neither place.
func sharedVault(t *testing.T, name string) string {
	t.Helper()
	for _, p := range []string{filepath.Join("/work/shared/vaults", name), repoPath("../shared/vaults/" + name)} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skipf("the %s vault is neither in /work/shared/vaults nor in ../shared/vaults beside the repository", name)
	return ""
}

func decodeResult(t *testing.T, o mcpOutcome) toolResult {
	t.Helper()
	var r toolResult
	o.decode(t, &r)
	return r
}
