package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctor runs vaultgraph doctor against a real server over a demo
// data directory, healthy and then with its newest snapshot damaged.
func TestDoctor(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	first := indexID(t, "--vault", vault, "--data", data)
	srv := startServer(t, data, nil)
	srv.waitServing(t, first)

	r := vgOK(t, "doctor", "--data", data, "--server", "http://"+srv.addr, "--json")
	var out struct {
		OK      bool `json:"ok"`
		Reports []struct {
			Data   string `json:"data"`
			Vault  string `json:"vault"`
			Checks []struct {
				Name, Status, Summary, Fix string
				Details                    []string
			} `json:"checks"`
		} `json:"reports"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
	}
	if !out.OK || len(out.Reports) != 1 || out.Reports[0].Vault != vault {
		t.Fatalf("doctor --json: %s", r.stdout)
	}
	status := map[string]string{}
	for _, c := range out.Reports[0].Checks {
		status[c.Name] = c.Status + ": " + c.Summary + " " + strings.Join(c.Details, " ")
	}
	for name, want := range map[string]string{
		"server":   "ok: the server at http://" + srv.addr + " serves " + first + ", the newest",
		"snapshot": "ok: newest " + first + " verifies",
		"mcp":      "info: connect Claude Code",
	} {
		if !strings.HasPrefix(status[name], want) {
			t.Errorf("%s: %q, want it to start with %q", name, status[name], want)
		}
	}
	if !strings.Contains(status["mcp"], binary+" serve --stdio --data "+data) {
		t.Errorf("mcp line %q does not name this binary and data directory", status["mcp"])
	}

	// A newer snapshot with a flipped byte: the doctor says which is
	// damaged and what to do. (The server may have swapped to it before
	// the byte flipped; the doctor then says so too, a second problem.)
	editNote(t, vault, "Projects/Search.md", "Search", "Search engine")
	second := indexID(t, "--vault", vault, "--data", data)
	flipByte(t, filepath.Join(data, "snapshots", second, "edges.parquet"))
	r = vg(t, "doctor", "--data", data, "--server", "http://"+srv.addr)
	if r.code != 1 {
		t.Fatalf("doctor on a damaged snapshot: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"fail  snapshot  newest snapshot " + second + " is damaged", "edges.parquet: sha256 mismatch", "fixing\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, r.stdout)
		}
	}

	for _, args := range [][]string{{"doctor"}, {"doctor", "--data", data, "--format", "xml"}, {"doctor", "--data", data, "extra"}} {
		if r := vg(t, args...); r.code != 2 {
			t.Errorf("vaultgraph %v: exit %d, want 2 (usage)\n%s", args, r.code, r.stderr)
		}
	}
}
