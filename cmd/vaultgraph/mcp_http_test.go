package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPEventStreamWithTheOfficialClient: the official client, connected
// over HTTP, subscribes to a note and is told over its event stream
// (GET /mcp) that the tools changed and that the note changed when a new
// snapshot is published; ending the session (DELETE) makes the next call
// fail.
func TestMCPEventStreamWithTheOfficialClient(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", data, "--quiet", "--graph=false")
	srv := startServer(t, data, []string{"VAULTGRAPH_TOKEN=" + mcpToken}, "--poll", "1s")
	url := "http://" + srv.addr + "/mcp"
	ready := filepath.Join(t.TempDir(), "ready")
	bob := "vault://People%2FBob.md"
	plan, _ := json.Marshal([]mcpStep{
		{"op": "listTools"},
		{"op": "subscribe", "uri": bob},
		{"op": "waitNotification", "method": "notifications/tools/list_changed", "readyFile": ready},
		{"op": "waitNotification", "method": "notifications/resources/updated"},
		{"op": "listTools"},
		{"op": "terminate"},
		call("vault_status", nil),
	})
	if err := installNode(); err != nil {
		t.Fatal(err)
	}
	client := exec.Command("node", filepath.Join(ciDir, "mcp-client.mjs"), string(plan), "http", url, mcpToken)
	var out bytes.Buffer
	client.Stdout, client.Stderr = &out, os.Stderr
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	defer client.Process.Kill()
	waitForFile(t, ready)
	// The client's event stream is open once the server counts it.
	waitForMetric(t, srv.addr, "vaultgraph_mcp_event_streams 1")
	appendNote(t, filepath.Join(vault, "People/Bob.md"), "\nBob listens to the event stream.\n")
	vgOK(t, "index", "--vault", vault, "--data", data, "--quiet", "--graph-buffer-mib", "64")
	if err := client.Wait(); err != nil {
		t.Fatalf("client: %v\n%s", err, out.String())
	}
	var o []mcpOutcome
	if err := json.Unmarshal(out.Bytes(), &o); err != nil || len(o) != 8 {
		t.Fatalf("client output: %v\n%s", err, out.String())
	}
	var before, after []struct{ Name string }
	o[0].decode(t, &before)
	o[4].decode(t, &after)
	if len(after) != len(before)+1 {
		t.Errorf("tools before the graph %v, after %v", before, after)
	}
	var updated []struct{ URI string }
	o[3].decode(t, &updated)
	if len(updated) == 0 || updated[0].URI != bob {
		t.Errorf("resources/updated: %+v", updated)
	}
	if o[2].Error != "" || o[1].Error != "" {
		t.Errorf("subscribe or the wait failed: %+v %+v", o[1], o[2])
	}
	// After terminate the SDK sends no session id: the call is served
	// without a session, as the Typed Graph sidecar serves every call.
	if !o[6].OK || !strings.Contains(string(o[6].Result), `serving`) {
		t.Errorf("a call after the session ended, without a session id: %+v", o[6])
	}
}

// waitForMetric waits until the server's /metrics has a line.
func waitForMetric(t *testing.T, addr, line string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+mcpToken)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(b), "\n"+line+"\n") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics never showed %q", line)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMCPWithTheInspectorCLI drives `vaultgraph serve` over HTTP with the
// MCP inspector's CLI mode (npx @modelcontextprotocol/inspector --cli),
// which sends no token: the server runs on loopback without one.
func TestMCPWithTheInspectorCLI(t *testing.T) {
	srv := startServer(t, mcpDemo(t), nil)
	url := "http://" + srv.addr + "/mcp"
	if err := installNode(); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(ciDir)
	if err != nil {
		t.Fatal(err)
	}
	inspect := func(args ...string) []byte {
		t.Helper()
		// What npx @modelcontextprotocol/inspector runs, without a lookup.
		cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "mcp-inspector"), append([]string{"--cli", url}, args...)...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr.String())
		}
		return out
	}
	var tools struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(inspect("--method", "tools/list"), &tools); err != nil || len(tools.Tools) < 5 {
		t.Errorf("tools/list: %v %+v", err, tools)
	}
	var status struct {
		StructuredContent struct {
			Snapshot string
			Counts   struct{ Notes int }
		}
		IsError bool
	}
	if err := json.Unmarshal(inspect("--method", "tools/call", "--tool-name", "vault_status"), &status); err != nil ||
		status.IsError || status.StructuredContent.Counts.Notes != 31 || status.StructuredContent.Snapshot != srv.current(t) {
		t.Errorf("vault_status: %v %+v", err, status)
	}
	var note struct {
		Contents []struct{ URI, Text string }
	}
	if err := json.Unmarshal(inspect("--method", "resources/read", "--uri", "vault://People%2FAlice.md"), &note); err != nil ||
		len(note.Contents) != 1 || !strings.Contains(note.Contents[0].Text, "Alice") {
		t.Errorf("resources/read: %v %+v", err, note)
	}
}
