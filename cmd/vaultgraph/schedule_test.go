package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckIndexArgs runs schedule's check of the index options after --
// on what a unit can run and what it cannot: each refusal is a usage error
// saying why, before any unit is written.
func TestCheckIndexArgs(t *testing.T) {
	// The shell's environment is not the unit's: neither a bad embedder
	// nor a key here counts.
	t.Setenv("VAULTGRAPH_EMBEDDER", "bogus")
	t.Setenv("OPENAI_API_KEY", "sk-shell")
	t.Setenv("VAULTGRAPH_OPENAI_KEY", "")
	run := unitRun{vault: t.TempDir(), data: filepath.Join(t.TempDir(), "data"), envSources: "--env and --env-file"}
	withEnv := func(r unitRun, env ...string) unitRun { r.env = env; return r }
	withFile := run
	withFile.envFile = true
	for _, tc := range []struct {
		args  []string
		run   unitRun
		want  string // "" accepted
		level string
		rest  []string
	}{
		{args: nil, run: run, level: "warn"},
		{args: []string{"--ignore", "Templates/", "--graph=false"}, run: run, level: "warn", rest: []string{"--ignore", "Templates/", "--graph=false"}},
		{args: []string{"--log-level", "debug", "--ignore", "--log-level"}, run: run, level: "debug", rest: []string{"--ignore", "--log-level"}},
		{args: []string{"--ignore", "--vault"}, run: run, level: "warn", rest: []string{"--ignore", "--vault"}},
		{args: []string{"--full", "--log-level=error"}, run: run, level: "error", rest: []string{"--full"}},
		{args: []string{"--chunk-chars", "800", "--embedder", "ollama:nomic-embed-text"}, run: run, level: "warn", rest: []string{"--chunk-chars", "800", "--embedder", "ollama:nomic-embed-text"}},
		{args: []string{"--embedder", "openai"}, run: withFile, level: "warn", rest: []string{"--embedder", "openai"}},
		{args: []string{"--embedder", "openai"}, run: withEnv(run, "OPENAI_API_KEY=sk-unit"), level: "warn", rest: []string{"--embedder", "openai"}},

		// Runs that never end, or options the unit sets itself.
		{args: []string{"--watch"}, run: run, want: "--watch: a watch never ends"},
		{args: []string{"--poll", "30s"}, run: run, want: "--poll: a watch never ends"},
		{args: []string{"--ignore", "x", "--vault", "/tmp"}, run: run, want: "--vault: the unit already indexes the vault of schedule's --vault"},
		{args: []string{"-v", "/tmp"}, run: run, want: "-v: the unit already"},
		{args: []string{"--data=X"}, run: run, want: "--data: the unit already uses the data directory"},
		{args: []string{"-d", "X"}, run: run, want: "-d: the unit already uses"},
		{args: []string{"--wait", "10m"}, run: run, want: "--wait: the unit runs index with --wait 0s"},
		{args: []string{"-q"}, run: run, want: "-q: the unit already runs index with --quiet"},
		{args: []string{"--help"}, run: run, want: "--help would make every run print index's help"},
		// What index refuses on every run.
		{args: []string{"--chunk-chars", "0"}, run: run, want: "index options after --: --chunk-chars must be at least 1, not 0"},
		{args: []string{"--debounce", "-1s"}, run: run, want: "--debounce must be positive"},
		{args: []string{"--log-level", "loud"}, run: run, want: `--log-level "loud": use debug, info, warn, error`},
		{args: []string{"--embedder", "nonsense"}, run: run, want: `index options after --: unknown embedder "nonsense"`},
		{args: []string{"--embedder", "ollama", "--ollama-host", "http://"}, run: run, want: "ollama host"},
		{args: []string{"--embedder", "openai"}, run: run, want: "openai embedder needs an API key"},
		{args: nil, run: withEnv(run, "VAULTGRAPH_EMBEDDER=nonsense"), want: `unknown embedder "nonsense"`},
		{args: []string{"--embedder", "builtin"}, run: withEnv(run, "VAULTGRAPH_EMBEDDER=nonsense"), level: "warn", rest: []string{"--embedder", "builtin"}},
		{args: []string{"--bogus"}, run: run, want: "index options after --: unknown option --bogus"},
		{args: []string{"Templates/"}, run: run, want: `unexpected argument "Templates/"`},
		{args: []string{"--graph", "false"}, run: run, want: "write --graph=false"},
	} {
		name := strings.Join(tc.args, " ")
		level, rest, err := checkIndexArgs(context.Background(), tc.args, tc.run)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s (env %v): %v", name, tc.run.env, err)
		case tc.want == "" && (level != tc.level || !slices.Equal(rest, tc.rest)):
			t.Errorf("%s: level %q, options %q; want %q, %q", name, level, rest, tc.level, tc.rest)
		case tc.want != "" && (!isUsageError(err) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s (env %v): err %v, want a usage error containing %q", name, tc.run.env, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(run.data)); len(entries) != 0 {
		t.Errorf("checking wrote into the data directory's parent: %v", entries)
	}
}

func TestVaultFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("Vault", 0o755)
	os.WriteFile("note.md", nil, 0o644)
	if got, err := vaultFolder("Vault"); err != nil || got != filepath.Join(dir, "Vault") {
		t.Errorf("vaultFolder(Vault) = %q, %v", got, err)
	}
	for arg, want := range map[string]string{
		"~/Vault": `no such folder (~ is not expanded when quoted or after =: write --vault "$HOME/Vault")`,
		"missing": "no such folder",
		"note.md": "is not a folder",
	} {
		_, err := vaultFolder(arg)
		if !isUsageError(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("vaultFolder(%q) = %v, want %q", arg, err, want)
		}
		if arg != "~/Vault" && strings.Contains(err.Error(), "~") {
			t.Errorf("vaultFolder(%q): a ~ hint without a ~: %v", arg, err)
		}
	}
	if _, err := dataFolder("~/data"); !isUsageError(err) || !strings.Contains(err.Error(), `"$HOME/data"`) {
		t.Errorf("dataFolder(~/data) = %v", err)
	}
	if got, err := dataFolder("data"); err != nil || got != filepath.Join(dir, "data") {
		t.Errorf("dataFolder(data) = %q, %v: a data directory need not exist yet", got, err)
	}
}
