package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// twoVaults indexes the demo vault as "work" and a small garden vault as
// "home", and returns their data directories.
func twoVaults(t *testing.T) (work, home string) {
	t.Helper()
	work = mcpDemo(t)
	vault := t.TempDir()
	for name, text := range map[string]string{
		"Garden.md":   "---\ntype: Project\n---\n# Garden\n\ngrows:: [[Tomatoes]]\n\nThe vegetable garden behind the house.\n",
		"Tomatoes.md": "# Tomatoes\n\nSan Marzano, sown in March, planted out in May.\n",
	} {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home = t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", home, "--quiet", "--graph-buffer-mib", "64")
	return work, home
}

// restGet asks the server with the test token.
func restGet(t *testing.T, url string) (int, []byte) {
	t.Helper()
	return restDo(t, http.MethodGet, url, "")
}

func restDo(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+mcpToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// TestServeSeveralVaults serves two vaults from one process: REST under
// /v/NAME, MCP with a vault argument (the official client, over HTTP and
// stdio), one tool list, isolation between the vaults.
func TestServeSeveralVaults(t *testing.T) {
	work, home := twoVaults(t)
	// A third vault whose data directory does not exist yet is reported
	// and does not stop the others.
	later := filepath.Join(t.TempDir(), "not-yet")
	srv := startServer(t, "work="+work, []string{"VAULTGRAPH_TOKEN=" + mcpToken}, "--data", "home="+home, "--data", "later="+later, "--poll", "1s")
	base := "http://" + srv.addr

	// REST: the plain routes answer for the default vault, /v/NAME for NAME.
	var status struct {
		Vault  string `json:"vault"`
		Vaults []struct {
			Name     string  `json:"name"`
			Default  bool    `json:"default"`
			Snapshot *string `json:"snapshot"`
			Ready    bool    `json:"ready"`
		} `json:"vaults"`
	}
	code, body := restGet(t, base+"/v/home/status")
	if code != 200 || json.Unmarshal(body, &status) != nil || status.Vault != "home" || len(status.Vaults) != 3 ||
		status.Vaults[0].Name != "work" || !status.Vaults[0].Default || status.Vaults[1].Name != "home" || !status.Vaults[1].Ready ||
		status.Vaults[2].Name != "later" || status.Vaults[2].Ready || status.Vaults[2].Snapshot != nil {
		t.Fatalf("GET /v/home/status: %d %s", code, body)
	}
	if code, body := restGet(t, base+"/v/later/status"); code != 200 || !strings.Contains(string(body), `"state":"starting"`) ||
		!strings.Contains(string(body), later) {
		t.Errorf("GET /v/later/status: %d %s, want 200 state starting naming its data directory", code, body)
	}
	if code, body := restGet(t, base+"/status"); code != 200 || !strings.Contains(string(body), `"vault":"work"`) {
		t.Errorf("GET /status: %d, want the default vault work: %s", code, body)
	}
	if code, _ := restGet(t, base+"/v/home/notes/Garden.md"); code != 200 {
		t.Errorf("GET /v/home/notes/Garden.md: %d", code)
	}
	// Isolation: the default vault has no garden, home has no Alice.
	if code, _ := restGet(t, base+"/notes/Garden.md"); code != 404 {
		t.Errorf("GET /notes/Garden.md on the default vault: %d, want 404", code)
	}
	if code, _ := restGet(t, base+"/v/home/notes/People/Alice.md"); code != 404 {
		t.Errorf("GET /v/home/notes/People/Alice.md: %d, want 404", code)
	}
	code, body = restDo(t, http.MethodPost, base+"/v/home/query", `{"query": "MATCH (n) RETURN n.title AS t ORDER BY t"}`)
	if code != 200 || !strings.Contains(string(body), "Garden") || strings.Contains(string(body), "Alice") {
		t.Errorf("POST /v/home/query: %d %s", code, body)
	}
	if code, body := restGet(t, base+"/v/nope/status"); code != 404 || !strings.Contains(string(body), "work, home, later") {
		t.Errorf("GET /v/nope/status: %d %s, want 404 naming the vaults", code, body)
	}
	// No vault answered, so no snapshot is named (review4 F9).
	if code, body := restDo(t, http.MethodPost, base+"/v/nope/query", `{"query": "MATCH (n) RETURN 1"}`); code != 404 || !strings.Contains(string(body), `"snapshot":null`) {
		t.Errorf("POST /v/nope/query: %d %s, want 404 with snapshot null", code, body)
	}
	// The OpenAPI document's /v/{vault} server lists the vaults served,
	// the default vault its default.
	var doc struct {
		Servers []struct {
			Variables map[string]struct {
				Default string   `json:"default"`
				Enum    []string `json:"enum"`
			} `json:"variables"`
		} `json:"servers"`
	}
	if code, body := restGet(t, base+"/openapi.json"); code != 200 || json.Unmarshal(body, &doc) != nil || len(doc.Servers) != 2 ||
		doc.Servers[1].Variables["vault"].Default != "work" || strings.Join(doc.Servers[1].Variables["vault"].Enum, ",") != "work,home,later" {
		t.Errorf("GET /openapi.json servers: %d %+v", code, doc.Servers)
	}
	if code, body := restGet(t, base+"/metrics"); code != 200 || !strings.Contains(string(body), `vaultgraph_snapshot_info{snapshot="`+*status.Vaults[1].Snapshot+`",vault="home"} 1`) ||
		!strings.Contains(string(body), `route="/status",status="200",vault="home"`) {
		t.Errorf("metrics are not labelled by vault:\n%s", body)
	}

	plan := []mcpStep{
		{"op": "listTools"},
		call("read_note", map[string]any{"path": "Garden.md", "vault": "home"}),
		call("read_note", map[string]any{"path": "Garden.md"}),
		call("read_note", map[string]any{"path": "People/Alice.md"}),
		call("vault_status", map[string]any{"vault": "home"}),
		call("vault_status", map[string]any{"vault": "nope"}),
		call("cypher_query", map[string]any{"query": "MATCH (n:Project) RETURN n.title AS t", "vault": "home"}),
		{"op": "listResources"},
		{"op": "readResource", "uri": "vault://home/Garden.md"},
	}
	for _, tr := range []mcpTransport{httpTransport(base + "/mcp"), stdioTransport("work="+work, "--data", "home="+home, "--data", "later="+later)} {
		t.Run(tr.name, func(t *testing.T) {
			out := mcpRun(t, tr, plan...)
			var tools []struct {
				Name        string `json:"name"`
				InputSchema struct {
					Properties map[string]any `json:"properties"`
				} `json:"inputSchema"`
			}
			out[0].decode(t, &tools)
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
				if _, ok := tool.InputSchema.Properties["vault"]; !ok {
					t.Errorf("%s takes no vault argument", tool.Name)
				}
			}
			for _, want := range []string{"cypher_query", "vector_search", "graphrag_retrieve", "graph", "read_note", "vault_status"} {
				if !slices.Contains(names, want) {
					t.Errorf("tools/list lacks %s: %v", want, names)
				}
			}
			if len(names) != len(slices.Compact(slices.Sorted(slices.Values(names)))) {
				t.Errorf("a tool is listed twice: %v", names)
			}
			if text := callOutcome(t, out[1], nil); !strings.Contains(text, "vegetable garden") {
				t.Errorf("read_note in home: %s", text)
			}
			if text := toolErrorOutcome(t, out[2]); !strings.Contains(text, "Garden") {
				t.Errorf("read_note of home's note in work: %s", text)
			}
			callOutcome(t, out[3], nil)
			var st struct {
				Vault  string `json:"vault"`
				Vaults []struct {
					Name, Health string
				} `json:"vaults"`
			}
			callOutcome(t, out[4], &st)
			if st.Vault != "home" || len(st.Vaults) != 3 || st.Vaults[0].Health != "serving" || st.Vaults[1].Name != "home" ||
				st.Vaults[2].Health != "waiting for the first snapshot" {
				t.Errorf("vault_status: %+v", st)
			}
			if text := toolErrorOutcome(t, out[5]); !strings.Contains(text, "work, home, later") {
				t.Errorf("unknown vault: %s", text)
			}
			if text := callOutcome(t, out[6], nil); !strings.Contains(text, "Garden") || strings.Contains(text, "Search") {
				t.Errorf("cypher in home: %s", text)
			}
			var res struct {
				Resources []struct {
					URI string `json:"uri"`
				} `json:"resources"`
			}
			out[7].decode(t, &res)
			var homeNotes, workNotes int
			for _, r := range res.Resources {
				switch {
				case strings.HasPrefix(r.URI, "vault://home/"):
					homeNotes++
				case strings.HasPrefix(r.URI, "vault://work/"):
					workNotes++
				default:
					t.Errorf("resource %s names no vault", r.URI)
				}
			}
			if homeNotes != 2 || workNotes < 20 {
				t.Errorf("resources: %d of home, %d of work", homeNotes, workNotes)
			}
			var read struct {
				Contents []struct {
					Text string `json:"text"`
				} `json:"contents"`
			}
			out[8].decode(t, &read)
			if len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "vegetable garden") {
				t.Errorf("readResource vault://home/Garden.md: %+v", read)
			}
		})
	}
}

func TestServeVaultsUsage(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	for _, args := range [][]string{
		{"serve", "--data", "a=" + work, "--data", "a=" + home},
		{"serve", "--data", work, "--default-vault", "nope"},
		{"serve", "--data", work, "--vaults", "x.yaml"},
		{"serve"},
	} {
		if r := vg(t, args...); r.code != 2 {
			t.Errorf("vaultgraph %v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
}
