package main

import (
	"context"
	"os"
	osexec "os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gogit "github.com/go-git/go-git/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
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
		{args: []string{"--repo", "app=."}, run: run, want: "--repo: give --repo, --repo-include and --repo-exclude to schedule itself"},
		{args: []string{"--repo-exclude", "vendor/"}, run: run, want: "--repo-exclude: give --repo"},
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
	// After NAME= the hint is one shell word (review5 F27: it wrote
	// --repo fsn= "$HOME/…", two arguments).
	if got, want := tildeHint("--repo fsn=", "~/src/fsn"), `write --repo fsn="$HOME/src/fsn")`; !strings.HasSuffix(got, want) {
		t.Errorf("tildeHint for --repo = %q, want it to end %q", got, want)
	}
	if got, err := dataFolder("data"); err != nil || got != filepath.Join(dir, "data") {
		t.Errorf("dataFolder(data) = %q, %v: a data directory need not exist yet", got, err)
	}
}

// TestScheduleCarriesRepos: schedule's --repo (a relative path here) goes
// into the unit made absolute, with its globs, and the unit's command run
// from another folder indexes the repository beside the vault without
// writing to it.
func TestScheduleCarriesRepos(t *testing.T) {
	repoDir := t.TempDir()
	gitrepotest.Podcast(t, repoDir)
	vault := t.TempDir()
	gitrepotest.WriteVault(t, vault, gitrepotest.PodcastVault)
	data, out := t.TempDir(), t.TempDir()
	cwd, err := os.Getwd()
	must(t, err)
	rel, err := filepath.Rel(cwd, repoDir)
	must(t, err)
	vgOK(t, "schedule", "systemd", "--vault", vault, "--data", data, "--out", out,
		"--repo", "app="+rel, "--repo-include", "api/**", "--repo-exclude", "api/tests/", "--", "--graph=false")
	service, err := os.ReadFile(filepath.Join(out, "vaultgraph-index.service"))
	must(t, err)
	var exec []string
	for _, line := range strings.Split(string(service), "\n") {
		if cmd, ok := strings.CutPrefix(line, "ExecStart="); ok {
			exec = strings.Fields(cmd)
		}
	}
	want := "--repo app=" + repoDir + " --repo-include api/** --repo-exclude api/tests/ --graph=false"
	if !strings.Contains(strings.Join(exec, " "), want) {
		t.Fatalf("ExecStart %q lacks %q", exec, want)
	}
	before := gitrepotest.Checksums(t, repoDir)
	cmd := osexec.Command(exec[0], exec[1:]...)
	cmd.Dir = "/"
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the unit's command: %v\n%s", err, b)
	}
	r := vgOK(t, "retrieve-context", "--data", data, "--json", "the daily podcast is generating twice")
	if !strings.Contains(r.stdout, `"code:app/api/app/cron.py"`) || strings.Contains(r.stdout, "api/tests/") || strings.Contains(r.stdout, "web/") ||
		!strings.Contains(r.stdout, "near the question in meaning") {
		t.Errorf("retrieve-context over the unit's snapshot (api/** without api/tests/, with vectors):\n%s", r.stdout)
	}
	if diff := cmp.Diff(before, gitrepotest.Checksums(t, repoDir)); diff != "" {
		t.Errorf("the unit's run wrote to the repository (-before +after):\n%s", diff)
	}
	for _, bad := range [][]string{
		{"--repo", "app=" + t.TempDir()},
		{"--repo-include", "api/**"},
		{"--", "--repo", "app=" + repoDir},
	} {
		args := append([]string{"schedule", "systemd", "--vault", vault, "--data", data}, bad...)
		if r := vg(t, args...); r.code != 2 || !strings.Contains(r.stderr, "repo") {
			t.Errorf("schedule %v: exit %d, %s; want a usage error about the repository", bad, r.code, r.stderr)
		}
	}
	// A bare repository has no working tree to index.
	bare := filepath.Join(t.TempDir(), "bare.git")
	if _, err := gogit.PlainClone(bare, true, &gogit.CloneOptions{URL: repoDir}); err != nil {
		t.Fatal(err)
	}
	if r := vg(t, "schedule", "systemd", "--vault", vault, "--data", data, "--repo", "app="+bare); r.code != 2 || !strings.Contains(r.stderr, "bare repository") {
		t.Errorf("schedule with a bare repository: exit %d, %s", r.code, r.stderr)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestIndexRepoTildeHint: a --repo path with an unexpanded ~ (quoted, or
// after = in sh) that does not exist is a usage error saying to write
// $HOME, and nothing is written.
func TestIndexRepoTildeHint(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	vault := t.TempDir()
	data := filepath.Join(t.TempDir(), "data")
	r := vg(t, "index", "--vault", vault, "--data", data, "--repo", "app=~/src/api")
	if r.code != 2 || !strings.Contains(r.stderr, `"$HOME/src/api"`) || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("--repo app=~/src/api: exit %d, %s", r.code, r.stderr)
	}
	if _, err := os.Lstat(data); err == nil {
		t.Errorf("the refused run created %s", data)
	}
}

// TestScheduleRunAsWarns: a system unit whose --run-as account cannot
// write the data directory (or read the vault) is written with a warning
// naming the folder and the fix, not left to fail at every run (review5
// F19).
func TestScheduleRunAsWarns(t *testing.T) {
	if _, err := user.Lookup("nobody"); err != nil {
		t.Skip("no user nobody on this machine to run as")
	}
	vault, data := copyDemoVault(t), t.TempDir() // t.TempDir is 0700, its owner's alone
	r := vgOK(t, "schedule", "systemd", "--vault", vault, "--data", data, "--run-as", "nobody")
	if !strings.Contains(r.stderr, "--run-as nobody: "+data) || !strings.Contains(r.stderr, "not writable by nobody") || !strings.Contains(r.stdout, "User=nobody") {
		t.Errorf("schedule --run-as nobody over a data directory it cannot write:\nstdout %s\nstderr %s", r.stdout, r.stderr)
	}
	if r := vgOK(t, "schedule", "systemd", "--vault", vault, "--data", data); strings.Contains(r.stderr, "--run-as") {
		t.Errorf("a user unit warns about --run-as: %s", r.stderr)
	}
}
