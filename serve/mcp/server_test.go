package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/serve"
)

func TestNoteURIs(t *testing.T) {
	for path, want := range map[string]string{
		"People/Alice.md":        "vault://People%2FAlice.md",
		"Topics/Über Ranking.md": "vault://Topics%2F%C3%9Cber%20Ranking.md",
		"a-b_c~d.md":             "vault://a-b_c~d.md",
		"Meetings/2024/x#y?.md":  "vault://Meetings%2F2024%2Fx%23y%3F.md",
	} {
		got := noteURI("", path)
		if got != want {
			t.Errorf("noteURI(%q) = %q, want %q", path, got, want)
		}
		vault, back, err := notePath(got)
		if err != nil || back != path || vault != "" {
			t.Errorf("notePath(%q) = %q, %q, %v", got, vault, back, err)
		}
		if m := noteTemplate(false).URITemplate.Match(got); m.Get("path").String() != path {
			t.Errorf("template match of %q: %v", got, m)
		}
		// With several vaults the vault's name comes first.
		inVault := noteURI("work", path)
		if want := strings.Replace(want, "vault://", "vault://work/", 1); inVault != want {
			t.Errorf("noteURI(work, %q) = %q, want %q", path, inVault, want)
		}
		vault, back, err = notePath(inVault)
		if err != nil || back != path || vault != "work" {
			t.Errorf("notePath(%q) = %q, %q, %v", inVault, vault, back, err)
		}
		if m := noteTemplate(true).URITemplate.Match(inVault); m.Get("path").String() != path || m.Get("vault").String() != "work" {
			t.Errorf("template match of %q: %v", inVault, m)
		}
	}
	for _, bad := range []string{"file:///etc/passwd", "vault://", "vault://%zz", "vault://work/"} {
		if _, _, err := notePath(bad); err == nil {
			t.Errorf("notePath(%q) accepted", bad)
		}
	}
}

func TestNotesAsResources(t *testing.T) {
	s := newServer(t, openStore(t, demoData(t)), Options{PageSize: 10})
	c, _ := connect(t, s)
	ctx := t.Context()
	var uris []string
	pages := 0
	var cursor mcp.Cursor
	for {
		req := mcp.ListResourcesRequest{}
		req.Params.Cursor = cursor
		res, err := c.ListResourcesByPage(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
			if r.MIMEType != "text/markdown" || r.Title == "" || r.Size == nil {
				t.Errorf("resource %+v", r)
			}
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if len(uris) != 31 || pages != 4 || !slices.Contains(uris, "vault://People%2FZo%C3%AB.md") || slices.Contains(uris, "vault://Query%20Understanding") {
		t.Errorf("%d resources in %d pages: %v", len(uris), pages, uris)
	}
	templates, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate.Raw() != "vault://{path}" {
		t.Fatalf("templates %+v, %v", templates, err)
	}

	read := func(uri string) (*mcp.ReadResourceResult, error) {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		return c.ReadResource(ctx, req)
	}
	// A listed URI, and the same note through the template (lower-case
	// escapes are not the listed URI).
	for _, uri := range []string{"vault://People%2FAlice.md", "vault://People%2falice.md"} {
		res, err := read(uri)
		if uri == "vault://People%2falice.md" {
			// Paths are case-sensitive: the template matches, the note
			// does not exist.
			if err == nil || !strings.Contains(err.Error(), "no note") {
				t.Errorf("%s: %v", uri, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		tc, ok := res.Contents[0].(mcp.TextResourceContents)
		if !ok || !strings.Contains(tc.Text, "[leads:: [[Search]]]") || tc.Meta[metaNotice] != serve.VaultTextNotice || tc.Meta[metaSnapshot] != s.vaults.Default().Store.Current() {
			t.Errorf("%s: %+v", uri, res.Contents)
		}
	}
	if res, err := read("vault://Topics%2F%c3%9cber%20Ranking.md"); err != nil || !strings.Contains(res.Contents[0].(mcp.TextResourceContents).Text, "Ranking") {
		t.Errorf("template read with lower-case escapes: %v", err)
	}
	if _, err := read("vault://Nowhere.md"); !isNotFound(err) || !strings.Contains(err.Error(), "vault://Nowhere.md (no note \"Nowhere.md\" in snapshot "+s.vaults.Default().Store.Current()) {
		t.Errorf("unknown note: %v", err)
	}
}

// TestMissingNotesAreNotFound checks that resources/read of a URI that
// names no note is the protocol's resource-not-found error, whose code
// depends on the protocol version, with a message naming the URI and
// what to do, not an internal error.
func TestMissingNotesAreNotFound(t *testing.T) {
	s := newServer(t, openStore(t, demoData(t)), Options{})
	for _, tc := range []struct{ uri, want string }{
		{"vault://Nowhere.md", `no note "Nowhere.md"`},
		{"vault://Query%20Understanding", `no note "Query Understanding"`}, // a stub
		{"vault://People/Alice.md", "the path must be percent-encoded: vault://People%2FAlice.md"},
		{"vault://", "the path is empty"},
		{"vault://%zz", "not validly percent-encoded"},
		{"file:///etc/passwd", "note URIs are vault://<path>"},
	} {
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			code, msg := readRaw(t, s, tc.uri, version)
			want := mcp.RESOURCE_NOT_FOUND
			if version >= "2026-07-28" {
				want = mcp.INVALID_PARAMS
			}
			if code != want || !strings.Contains(msg, "'"+tc.uri+" (") || !strings.Contains(msg, tc.want) {
				t.Errorf("%s (protocol %s): code %d, %q; want %d containing %q", tc.uri, version, code, msg, want, tc.want)
			}
		}
	}
	if code, msg := readRaw(t, s, "vault://People%2FAlice.md", "2025-11-25"); code != 0 {
		t.Errorf("a note that exists: %d %s", code, msg)
	}
}

// readRaw sends resources/read for uri as a client of the given protocol
// version and returns the JSON-RPC error code (0 for a result) and
// message.
func readRaw(t *testing.T, s *Server, uri, version string) (int, string) {
	t.Helper()
	params := map[string]any{"uri": uri}
	if version >= "2026-07-28" {
		// The protocol without the initialize handshake: every request
		// carries its version.
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": version,
			"io.modelcontextprotocol/clientInfo": map[string]any{"name": "t", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": params})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s.MCP().HandleMessage(t.Context(), msg))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Error *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Error == nil {
		return 0, string(b)
	}
	return resp.Error.Code, resp.Error.Message
}

// isNotFound reports whether err is the resource-not-found error of either
// protocol generation as the mcp-go client reports it.
func isNotFound(err error) bool {
	return errors.Is(err, mcp.ErrResourceNotFound) ||
		errors.Is(err, mcp.ErrInvalidParams) && strings.Contains(err.Error(), "resource not found")
}

// TestToolsFollowTheSnapshot serves a snapshot without vectors and graph
// database, then one with them: the tools that need them are listed only
// once they are served, and the client is told the list changed.
func TestToolsFollowTheSnapshot(t *testing.T) {
	data := t.TempDir()
	st := openStore(t, data)
	s := newServer(t, st, Options{})
	c, notes := connect(t, s)

	// Before the first snapshot the tools of a default index are listed
	// and say what to run (code is not expected).
	waiting := []string{toolCypher, toolSearch, toolRetrieve, toolGraph, toolReadNote, toolStatus}
	slices.Sort(waiting)
	if names := toolNamesOf(t, c); !slices.Equal(names, waiting) {
		t.Errorf("tools without a snapshot: %v, want %v", names, waiting)
	}
	if msg := callErr(t, c, toolCypher, map[string]any{"query": "MATCH (n) RETURN count(n)"}); !strings.Contains(msg, "no snapshot yet: run vaultgraph index --vault VAULT --data "+data) {
		t.Errorf("cypher_query without a snapshot: %q", msg)
	}
	// vault_status answers while the server waits for the first
	// snapshot: what it waits for, where, and what to run.
	var status statusOutput
	text := callOK(t, c, toolStatus, nil, &status)
	if status.Serving || status.Status != statusWaiting || status.DataDir != data || !strings.Contains(status.Message, "vaultgraph index --vault VAULT --data "+data) {
		t.Errorf("status without a snapshot: %+v", status)
	}
	if !strings.Contains(text, `"status":"waiting for the first snapshot"`) || !strings.Contains(text, `"data_dir":"`+data+`"`) ||
		!strings.Contains(text, "run vaultgraph index") || strings.Contains(text, "no snapshot") {
		t.Errorf("status text without a snapshot:\n%s", text)
	}
	// A tool that needs a snapshot (listed in a race with a swap) says so
	// once, and points at vault_status.
	msg := resultText(callHandler(t, s, toolReadNote, map[string]any{"path": "Alice"}))
	if want := "no snapshot yet: run vaultgraph index --vault VAULT --data " + data + "; vault_status shows progress"; msg != want {
		t.Errorf("tool without a snapshot: %q, want %q", msg, want)
	}
	// Reading a note is the protocol's resource-not-found error.
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "vault://People%2FAlice.md"
	if _, err := c.ReadResource(t.Context(), req); !isNotFound(err) || strings.Count(err.Error(), "snapshot yet") != 1 {
		t.Errorf("resource without a snapshot: %v", err)
	}
	res, err := c.ListResources(t.Context(), mcp.ListResourcesRequest{})
	if err != nil || len(res.Resources) != 0 {
		t.Errorf("resources without a snapshot: %v, %v", res, err)
	}

	if err := index(demoVault, data, false); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	bare := []string{toolGraph, toolReadNote, toolStatus}
	slices.Sort(bare)
	if names := toolNamesOf(t, c); !slices.Equal(names, bare) {
		t.Errorf("tools of a snapshot without vectors and graph: %v", names)
	}
	callOK(t, c, toolStatus, nil, &status)
	for _, cp := range status.Capabilities {
		if cp.Name == toolCypher && (cp.Available || !strings.Contains(cp.Reason, "graph stage")) {
			t.Errorf("cypher capability %+v", cp)
		}
	}
	waitFor(t, "resources and tools list_changed", func() bool {
		return notes.has(string(mcp.MethodNotificationToolsListChanged)) && notes.has(string(mcp.MethodNotificationResourcesListChanged))
	})

	notes.reset()
	if err := index(demoVault, data, true); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Watch brings the lists in step without a request.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go s.Watch(ctx)
	waitFor(t, "tools list_changed after the swap", func() bool { return notes.has(string(mcp.MethodNotificationToolsListChanged)) })
	if names := toolNamesOf(t, c); len(names) != 6 {
		t.Errorf("tools after the swap: %v", names)
	}
	var out cypherOutput
	callOK(t, c, toolCypher, map[string]any{"query": "MATCH (n:Person) RETURN count(n)"}, &out)
	if out.Rows[0][0] != 8.0 || out.Snapshot != st.Current() {
		t.Errorf("after the swap: %+v", out)
	}
}

// TestCallsDuringSwaps calls tools continuously while new snapshots are
// published and swapped in: every call succeeds, on one snapshot.
func TestCallsDuringSwaps(t *testing.T) {
	vault := t.TempDir()
	if err := copyDir(demoVault, vault); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if err := index(vault, data, true); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, data)
	s := newServer(t, st, Options{})
	c, _ := connect(t, s)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]bool{}
	var failures []string
	for w := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var res *mcp.CallToolResult
				var snapshot string
				switch (w + i) % 3 {
				case 0:
					res = call(t, c, toolCypher, map[string]any{"query": "MATCH (n:Person) RETURN count(n) AS people"})
				case 1:
					res = call(t, c, toolSearch, map[string]any{"query": "Acme funds", "k": 3})
				default:
					res = call(t, c, toolReadNote, map[string]any{"path": "People/Bob.md"})
				}
				var out struct {
					Snapshot string `json:"snapshot"`
				}
				b, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(b, &out)
				snapshot = out.Snapshot
				mu.Lock()
				if res.IsError || snapshot == "" {
					failures = append(failures, resultText(res))
				}
				seen[snapshot] = true
				mu.Unlock()
			}
		})
	}
	for i := range 2 {
		p := vault + "/People/Bob.md"
		if err := appendFile(p, "\nBob reviewed swap number "+string(rune('A'+i))+".\n"); err != nil {
			t.Fatal(err)
		}
		if err := index(vault, data, true); err != nil {
			t.Fatal(err)
		}
		res, err := st.Refresh(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		// Wait for a call answered from the new snapshot, not for time.
		waitFor(t, "a call answered from "+res.Current, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return seen[res.Current]
		})
	}
	close(stop)
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d calls failed, e.g. %s", len(failures), failures[0])
	}
	if len(seen) < 2 {
		t.Errorf("calls saw snapshots %v; want several", seen)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStatusBeforeTheDataDirectoryExists: a client may be configured before
// the first vaultgraph index, which creates the data directory.
func TestStatusBeforeTheDataDirectoryExists(t *testing.T) {
	data := t.TempDir() + "/data"
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, data)
	if err := os.Remove(data); err != nil {
		t.Fatal(err)
	}
	c, _ := connect(t, newServer(t, st, Options{}))
	var status statusOutput
	text := callOK(t, c, toolStatus, nil, &status)
	if status.Status != statusWaiting || !strings.Contains(status.Message, "the data directory does not exist yet; run vaultgraph index --vault VAULT --data "+data) ||
		!strings.Contains(text, "vaultgraph index creates the directory") {
		t.Errorf("%+v\n%s", status, text)
	}
}

// TestStatusAfterEverySnapshotIsDeleted: when the served snapshot is
// deleted by hand and no other opens, vault_status says so, not that the
// first snapshot has yet to be published.
func TestStatusAfterEverySnapshotIsDeleted(t *testing.T) {
	data := t.TempDir()
	if err := index(demoVault, data, false); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, data)
	served := st.Current()
	c, _ := connect(t, newServer(t, st, Options{}))
	if err := os.RemoveAll(filepath.Join(data, "snapshots", served)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	var status statusOutput
	callOK(t, c, toolStatus, nil, &status)
	if status.Serving || status.Status != statusWaiting || !strings.Contains(status.Message, "snapshot "+served+" was deleted from disk") {
		t.Errorf("%+v", status)
	}
}
