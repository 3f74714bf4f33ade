package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/vaultgraph/vaultgraph/snapshot/diff"
)

// runCIScript runs ci/snapshot-diff.sh with the test binary.
func runCIScript(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{repoPath("ci/snapshot-diff.sh")}, args...)...)
	cmd.Env = append(append(os.Environ(), "VAULTGRAPH="+binary, "INDEX_ARGS=--graph=false"), env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestCISnapshotDiffScript runs the example CI job's script as CI would:
// a first run with nothing published, a change that trips the gate, and a
// run on an unchanged vault.
func TestCISnapshotDiffScript(t *testing.T) {
	vault := copyDemoVault(t)
	work := t.TempDir()
	out1, out2, out3 := filepath.Join(work, "1"), filepath.Join(work, "2"), filepath.Join(work, "3")

	if log, code := runCIScript(t, nil, vault, out1, filepath.Join(work, "missing.tar.zst")); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, log)
	}
	md, _ := os.ReadFile(filepath.Join(out1, "diff.md"))
	if !strings.Contains(string(md), "First snapshot") {
		t.Errorf("first diff.md:\n%s", md)
	}

	editNote(t, vault, "Projects/Search.md", "- depends_on:: [[Ranking]]", "")
	log, code := runCIScript(t, []string{"FAIL_ON=removed-edges,new-warnings"}, vault, out2, filepath.Join(out1, "snapshot.tar.zst"))
	if code != 3 {
		t.Fatalf("gated run: exit %d, want 3\n%s", code, log)
	}
	md, _ = os.ReadFile(filepath.Join(out2, "diff.md"))
	if !strings.Contains(string(md), "| edges | 0 | 1 |") || !strings.Contains(string(md), "`depends_on`") {
		t.Errorf("diff.md:\n%s", md)
	}
	var rep diff.Report
	b, _ := os.ReadFile(filepath.Join(out2, "diff.json"))
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Edges.Removed) != 1 {
		t.Errorf("diff.json: %v %+v", err, rep.Edges)
	}
	id1, _ := os.ReadFile(filepath.Join(out1, "snapshot-id"))
	if rep.From.ID != strings.TrimSpace(string(id1)) {
		t.Errorf("diffed against %s, not the published %s", rep.From.ID, id1)
	}

	if log, code := runCIScript(t, []string{"FAIL_ON=removed-edges"}, vault, out3, filepath.Join(out2, "snapshot.tar.zst")); code != 0 {
		t.Fatalf("unchanged run: exit %d\n%s", code, log)
	}
	md, _ = os.ReadFile(filepath.Join(out3, "diff.md"))
	if !strings.Contains(string(md), "No changes.") {
		t.Errorf("unchanged diff.md:\n%s", md)
	}
}

// TestCIWorkflowParses checks the example GitHub Actions workflow is valid
// YAML with the steps the README describes, and that every shell step
// parses.
func TestCIWorkflowParses(t *testing.T) {
	b, err := os.ReadFile(repoPath("ci/github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("ci/github-actions.yml: %v", err)
	}
	if wf.On["pull_request"] == nil || wf.On["push"] == nil {
		t.Errorf("workflow triggers: %v", wf.On)
	}
	job, ok := wf.Jobs["snapshot"]
	if !ok || len(job.Steps) < 5 {
		t.Fatalf("workflow jobs: %+v", wf.Jobs)
	}
	var all strings.Builder
	for _, s := range job.Steps {
		if s.Run == "" {
			continue
		}
		all.WriteString(s.Run)
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(s.Run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("step %q does not parse: %v\n%s", s.Name, err, out)
		}
	}
	for _, want := range []string{"ci/snapshot-diff.sh", "gh pr comment", "gh release upload", "--body-file out/diff.md"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("workflow lacks %q", want)
		}
	}
}
