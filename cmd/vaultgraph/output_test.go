package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestEveryCommandTakesFormatJSON: every command that prints takes
// --format (text the default, json among the values) and --json.
func TestEveryCommandTakesFormatJSON(t *testing.T) {
	noOutput := map[string]bool{"completion": true, "help": true} // they print a script, or help
	leaves(newApp().Commands, "", func(path string, c *cli.Command) {
		if noOutput[path] {
			return
		}
		f, ok := lookupFlag(c.Flags, "format").(*cli.StringFlag)
		if !ok || lookupFlag(c.Flags, "json") == nil {
			t.Errorf("%s: no --format and --json", path)
			return
		}
		if f.Value != formatText || !slices.Contains(formatValues(f.Usage), formatJSON) || !slices.Contains(f.Aliases, "f") {
			t.Errorf("%s: --format %q (-f %v) takes %v, want text by default and json", path, f.Value, f.Aliases, formatValues(f.Usage))
		}
	})
}

// TestShortFlagsHaveOneMeaning: a one-letter option means the same long
// option in every command (-v was --version and --vault).
func TestShortFlagsHaveOneMeaning(t *testing.T) {
	app := newApp()
	meaning := map[string]string{}
	check := func(path string, flags []cli.Flag) {
		for _, f := range flags {
			names := f.Names()
			for _, n := range names[1:] {
				if len(n) != 1 {
					continue
				}
				if m, ok := meaning[n]; ok && m != names[0] {
					t.Errorf("-%s is --%s in %s but --%s elsewhere", n, names[0], path, m)
				}
				meaning[n] = names[0]
			}
		}
	}
	check("vaultgraph", append(app.Flags, cli.VersionFlag))
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := strings.TrimSpace(prefix + " " + c.Name)
			check(path, c.Flags)
			walk(path, c.Subcommands)
		}
	}
	walk("", app.Commands)
	if meaning["v"] != "vault" {
		t.Errorf("-v means --%s, want --vault", meaning["v"])
	}
	if r := vg(t, "--version"); r.code != 0 || !strings.Contains(r.stdout, "vaultgraph version") {
		t.Errorf("--version: %+v", r)
	}
}

func TestHelpCommand(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "snapshot"}, {"help", "snapshot", "gc"}, {"help", "index"}} {
		r := vg(t, args...)
		want := "vaultgraph " + strings.Join(args[1:], " ")
		if r.code != 0 || !strings.Contains(r.stdout, "NAME:") || !strings.Contains(r.stdout, strings.TrimSpace(want)) {
			t.Errorf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{{"help", "nope"}, {"help", "snapshot", "nope"}} {
		if r := vg(t, args...); r.code != 2 || !strings.Contains(r.stderr, `"nope"`) {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if r := vg(t, "--help"); r.code != 0 || !strings.Contains(r.stdout, "completion") {
		t.Errorf("--help: exit %d", r.code)
	}
}

// TestJSONConvention: --json is --format json, the two must agree, and
// the commands that printed no JSON before (index, also unchanged, snapshot
// verify, gc, import) print one JSON document on stdout.
func TestJSONConvention(t *testing.T) {
	data := t.TempDir()
	vault := repoPath("testdata/demo-vault")
	var first struct {
		Snapshot  string         `json:"snapshot"`
		Dir       string         `json:"dir"`
		Unchanged bool           `json:"unchanged"`
		Parsed    int            `json:"parsed"`
		Counts    map[string]int `json:"counts"`
	}
	r := vgOK(t, "index", "--vault", vault, "--data", data, "--json", "--graph=false")
	decodeJSON(t, r.stdout, &first)
	if first.Unchanged || first.Parsed == 0 || first.Counts["notes"] == 0 || first.Dir == "" {
		t.Errorf("index --json: %s", r.stdout)
	}
	var again struct {
		Snapshot  string `json:"snapshot"`
		Unchanged bool   `json:"unchanged"`
	}
	r = vgOK(t, "index", "--vault", vault, "--data", data, "--format", "json", "--graph=false")
	decodeJSON(t, r.stdout, &again)
	if !again.Unchanged || again.Snapshot != first.Snapshot || r.stderr != "" {
		t.Errorf("unchanged index --format json: %s (stderr %q)", r.stdout, r.stderr)
	}

	var verified struct {
		OK        bool `json:"ok"`
		Snapshots []struct {
			Snapshot string `json:"snapshot"`
			OK       bool   `json:"ok"`
			Files    int    `json:"files"`
		} `json:"snapshots"`
	}
	decodeJSON(t, vgOK(t, "snapshot", "verify", "--data", data, "--json").stdout, &verified)
	if !verified.OK || len(verified.Snapshots) != 1 || verified.Snapshots[0].Snapshot != first.Snapshot || verified.Snapshots[0].Files == 0 {
		t.Errorf("verify --json: %+v", verified)
	}
	// A damaged snapshot: exit 1, and the JSON names the file.
	if err := os.WriteFile(filepath.Join(first.Dir, "edges.parquet"), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = vg(t, "snapshot", "verify", "--data", data, "--json")
	decodeJSON(t, r.stdout, &verified)
	if r.code != 1 || verified.OK || !strings.Contains(r.stdout, `"file":"edges.parquet"`) {
		t.Errorf("verify --json of a damaged snapshot: exit %d\n%s", r.code, r.stdout)
	}

	// export and import of a good snapshot, then gc.
	data2 := t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", data2, "--quiet", "--graph=false")
	archive := filepath.Join(t.TempDir(), "snap.tar")
	var exported, imported struct {
		Snapshot     string `json:"snapshot"`
		Files        int    `json:"files"`
		ArchiveBytes int64  `json:"archive_bytes"`
		Present      bool   `json:"already_imported"`
	}
	decodeJSON(t, vgOK(t, "snapshot", "export", "--data", data2, "-o", archive, "--json").stdout, &exported)
	dest := t.TempDir()
	decodeJSON(t, vgOK(t, "snapshot", "import", "--data", dest, archive, "--json").stdout, &imported)
	if exported.Snapshot == "" || imported.Snapshot != exported.Snapshot || imported.Files != exported.Files || imported.ArchiveBytes != exported.ArchiveBytes || imported.Present {
		t.Errorf("export %+v, import %+v", exported, imported)
	}
	decodeJSON(t, vgOK(t, "snapshot", "import", "--data", dest, archive, "--json").stdout, &imported)
	if !imported.Present {
		t.Errorf("second import: %+v", imported)
	}
	var gc struct {
		DryRun  bool     `json:"dry_run"`
		Removed []string `json:"removed"`
		Kept    []string `json:"kept"`
	}
	decodeJSON(t, vgOK(t, "snapshot", "gc", "--data", dest, "--keep", "1", "--dry-run", "--json").stdout, &gc)
	if !gc.DryRun || gc.Removed == nil || len(gc.Kept) != 1 {
		t.Errorf("gc --json: %+v", gc)
	}

	// --json and another --format disagree: bad usage, nothing done.
	for _, args := range [][]string{
		{"snapshot", "list", "--data", dest, "--json", "--format", "text"},
		{"snapshot", "diff", "--data", dest, "--json", "-f", "markdown"},
		{"snapshot", "list", "--data", dest, "--format", "yaml"},
	} {
		if r := vg(t, args...); r.code != 2 || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	// query's old name for text still works.
	if r := vg(t, "snapshot", "list", "--data", dest, "--format", "table"); r.code != 0 {
		t.Errorf("--format table: exit %d: %s", r.code, r.stderr)
	}
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, s)
	}
}

// TestCLIJSONHasTheRESTKeys runs the same search, query, graph and
// retrieve through the CLI with --json and through the REST API, and
// compares the keys of the answers, down through objects and the first
// item of lists.
func TestCLIJSONHasTheRESTKeys(t *testing.T) {
	data := mcpDemo(t)
	s := startServer(t, data, nil)
	cases := []struct {
		name, path, body string
		cli              []string
	}{
		{"search", "/search", `{"query": "who funds Search", "target": "edges"}`, []string{"search", "--target", "edges", "who funds Search"}},
		{"search notes", "/search", `{"query": "ranking"}`, []string{"search", "ranking"}},
		{"query", "/query", `{"query": "MATCH (p:Person) RETURN p.title ORDER BY p.title LIMIT 2"}`, []string{"query", "MATCH (p:Person) RETURN p.title ORDER BY p.title LIMIT 2"}},
		{"graph", "/graph", `{"action": "backlinks", "sourcePath": "Search"}`, []string{"graph", "backlinks", "--source", "Search"}},
		{"retrieve", "/retrieve", `{"question": "What does the Search project depend on?"}`, []string{"retrieve", "What does the Search project depend on?"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post("http://"+s.addr+tc.path, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			var rest any
			if err := json.NewDecoder(resp.Body).Decode(&rest); err != nil || resp.StatusCode != 200 {
				t.Fatalf("POST %s: %d %v", tc.path, resp.StatusCode, err)
			}
			resp.Body.Close()
			var cliOut any
			decodeJSON(t, vgOK(t, append(tc.cli, "--data", data, "--json")...).stdout, &cliOut)
			if got, want := keyPaths(cliOut, ""), keyPaths(rest, ""); !slices.Equal(got, want) {
				t.Errorf("CLI keys %v\nREST keys %v", got, want)
			}
		})
	}
}

// keyPaths lists the object keys of v as paths (hits[].score).
func keyPaths(v any, prefix string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out = append(out, prefix+k)
			out = append(out, keyPaths(x, prefix+k+".")...)
		}
	case []any:
		if len(v) > 0 {
			out = append(out, keyPaths(v[0], strings.TrimSuffix(prefix, ".")+"[].")...)
		}
	}
	sort.Strings(out)
	return out
}

// TestBashCompletion sources the bash script and completes command lines
// as bash would.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed for this test and is on every machine CI runs on")
	}
	script := vgOK(t, "completion", "bash").stdout
	complete := func(words ...string) []string {
		var sh bytes.Buffer
		sh.WriteString(script)
		sh.WriteString("COMP_WORDS=(")
		for _, w := range words {
			sh.WriteString(shellQuote(w) + " ")
		}
		sh.WriteString(")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_vaultgraph\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
		cmd := exec.Command(bash, "--norc", "--noprofile")
		cmd.Stdin = &sh
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		return strings.Fields(string(out))
	}
	cases := []struct {
		words []string
		want  []string
	}{
		{[]string{"vaultgraph", "sn"}, []string{"snapshot"}},
		{[]string{"vaultgraph", "snapshot", ""}, []string{"list", "show", "verify"}},
		{[]string{"vaultgraph", "snapshot", "gc", "--k"}, []string{"--keep"}},
		{[]string{"vaultgraph", "--log-level", "debug", "search", "--format", ""}, []string{"text", "json"}},
		{[]string{"vaultgraph", "snapshot", "diff", "-f", "m"}, []string{"markdown"}},
		{[]string{"vaultgraph", "completion", "f"}, []string{"fish"}},
		{[]string{"vaultgraph", "help", "re"}, []string{"retrieve"}},
	}
	for _, tc := range cases {
		got := complete(tc.words...)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: completions %v lack %s", tc.words, got, w)
			}
		}
	}
	if got := complete("vaultgraph", "snapshot", "gc", "--k"); len(got) != 1 {
		t.Errorf("snapshot gc --k completes to %v, want only --keep", got)
	}
	for _, shell := range []string{"zsh", "fish"} {
		out := vgOK(t, "completion", shell).stdout
		keep := "--keep"
		if shell == "fish" {
			keep = "-l keep"
		}
		if !strings.Contains(out, "snapshot") || !strings.Contains(out, keep) {
			t.Errorf("%s completion lacks commands or options:\n%.300s", shell, out)
		}
		if path, err := exec.LookPath(shell); err == nil {
			// The shell parses the script without running it.
			cmd := exec.Command(path, "-n")
			if shell == "fish" {
				cmd = exec.Command(path, "--no-execute")
			}
			cmd.Stdin = strings.NewReader(out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s rejects its completion script: %v\n%s", shell, err, b)
			}
		}
	}
	if r := vg(t, "completion", "tcsh"); r.code != 2 {
		t.Errorf("completion tcsh: exit %d", r.code)
	}
}
