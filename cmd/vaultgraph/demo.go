package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// demoVaultPath is where the bundled demo vault lives in the repository.
const demoVaultPath = "testdata/demo-vault"

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "index the bundled demo vault and show what was built and how to query it",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "vault", Usage: "vault to use instead of the bundled " + demoVaultPath},
			&cli.StringFlag{Name: "data", Usage: "data directory (default: data/demo in the repository)"},
		}, append(stageFlags(), formatFlags()...)...),
		Before: takesArgs(0, 0, ""),
		Action: runDemo,
	}
}

func runDemo(c *cli.Context) error {
	vault, data := c.String("vault"), c.String("data")
	if vault == "" {
		root, err := repoRoot()
		if err != nil {
			return err
		}
		vault = filepath.Join(root, demoVaultPath)
		if data == "" {
			data = filepath.Join(root, "data", "demo")
		}
	}
	if data == "" {
		return errors.New("pass --data with --vault")
	}
	st, _, err := stages(c)
	if err != nil {
		return err
	}
	res, err := indexer.Run(c.Context, indexer.Options{Vault: vault, Data: data, Stages: st, ToolVersion: toolVersion(), Log: logger(c)})
	if err != nil {
		return err
	}
	s, err := snapshot.Open(res.Dir, snapshot.OpenOptions{})
	if err != nil {
		return err
	}
	absData, err := filepath.Abs(data)
	if err != nil {
		return err
	}
	cmds := demoCommands(absData)
	w := c.App.Writer
	if jsonOutput(c) {
		return writeJSON(w, struct {
			Snapshot  string        `json:"snapshot"`
			Dir       string        `json:"dir"`
			Vault     string        `json:"vault"`
			Data      string        `json:"data"`
			Unchanged bool          `json:"unchanged"`
			Counts    format.Counts `json:"counts"`
			Binary    string        `json:"binary"`
			Commands  []string      `json:"commands"`
		}{s.ID, s.Dir, vault, absData, res.Unchanged, s.Manifest.Counts, cmds.binary, cmds.all()})
	}
	if res.Unchanged {
		fmt.Fprintf(w, "The vault is unchanged since snapshot %s; showing it.\n\n", res.ID)
	} else {
		fmt.Fprintf(w, "Indexed %s in %s.\n\n", vault, res.Elapsed.Round(1e6))
	}
	printManifest(w, s.Manifest, s.Dir)
	if err := printGraphSummary(w, s); err != nil {
		return err
	}
	printParaphrase(c, w, s)
	fmt.Fprintf(w, "\nQuery it:\n")
	for _, q := range cmds.query {
		fmt.Fprintf(w, "  %s\n", q)
	}
	fmt.Fprintf(w, "Serve it to programs (REST on 127.0.0.1:7337) and agents (MCP):\n")
	for _, q := range cmds.serve {
		fmt.Fprintf(w, "  %s\n", q)
	}
	fmt.Fprintf(w, "The tables are plain Parquet: %s\n", filepath.Join(s.Dir, "*.parquet"))
	return nil
}

// demoLines are the commands the demo suggests, spelled with the binary it
// runs, so that they work when pasted: its absolute path, or for go run
// (whose binary is temporary) "go run ./cmd/vaultgraph", and for the MCP
// client, which starts the server itself from anywhere, a binary built
// first at an absolute path.
type demoLines struct {
	binary       string
	query, serve []string
}

func (d demoLines) all() []string { return append(append([]string{}, d.query...), d.serve...) }

func demoCommands(data string) demoLines {
	self, _ := os.Executable()
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	run, mcpBin := shellQuote(self), shellQuote(self)
	var build []string
	if strings.Contains(self, "go-build") {
		run = "go run ./cmd/vaultgraph"
		mcpBin = "./vaultgraph"
		if root, err := repoRoot(); err == nil {
			mcpBin = shellQuote(filepath.Join(root, "vaultgraph"))
		}
		build = []string{"go build -o " + mcpBin + " ./cmd/vaultgraph    # the binary the MCP client starts (README: Install)"}
	}
	d := shellQuote(data)
	lines := demoLines{binary: self}
	lines.query = []string{
		run + " query --data " + d + " 'MATCH (p:Person)-[c:contributes]->(x:Project) WHERE c.hours >= 100 RETURN p.title, c.hours, x.title'",
		run + " search --data " + d + ` --target edges "who funds Search"`,
		run + " retrieve --data " + d + ` "What does the Search project depend on, and who works on it?"`,
		run + " graph backlinks --data " + d + " --source Projects/Search.md",
		run + " snapshot verify --data " + d,
	}
	lines.serve = append([]string{run + " serve --data " + d}, build...)
	lines.serve = append(lines.serve, "claude mcp add vaultgraph -- "+mcpBin+" serve --stdio --data "+d)
	return lines
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == ',' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// demoParaphrase is a question asked in other words than the vault's: no
// note says autumn, gathering or conclude. The default embedder's word
// vectors find the September review; the lexical one does not (README,
// "Search quality").
const demoParaphrase = "What did the autumn gathering conclude?"

// printParaphrase searches the new snapshot for demoParaphrase and shows
// the best notes, when the snapshot has vectors.
func printParaphrase(c *cli.Context, w io.Writer, s *snapshot.Snapshot) {
	if s.Manifest.Embedder == nil {
		return
	}
	ix, err := search.Open(s, search.Options{})
	if err != nil {
		fmt.Fprintf(w, "\n(cannot search the snapshot: %v)\n", err)
		return
	}
	defer ix.Close()
	e, err := embed.ForSnapshot(s.Manifest.Embedder, embedConfig(c))
	if err == nil {
		var res *search.Result
		if res, err = ix.Search(c.Context, search.Query{Text: demoParaphrase, Target: search.Notes, K: 3}, e); err == nil {
			fmt.Fprintf(w, "\nAsked in other words (no note says autumn, gathering or conclude), with %s vectors and BM25:\n  search %q\n",
				s.Manifest.Embedder.Kind, demoParaphrase)
			for i, h := range res.Notes {
				fmt.Fprintf(w, "  %d. %s  (%s)\n", i+1, h.Title, citation(h.Best))
			}
			return
		}
	}
	fmt.Fprintf(w, "\n(cannot search the snapshot: %v)\n", err)
}

// printGraphSummary shows the labels, edge types and typed edges a reader of
// the vault would recognise.
func printGraphSummary(w io.Writer, s *snapshot.Snapshot) error {
	notes, err := s.Notes()
	if err != nil {
		return err
	}
	edges, err := s.Edges()
	if err != nil {
		return err
	}
	labels := map[string]int{}
	var stubs []string
	for _, n := range notes {
		for _, l := range n.Labels {
			labels[l]++
		}
		if n.Stub {
			stubs = append(stubs, n.ID)
		}
	}
	types := map[string]int{}
	var typed []string
	for _, e := range edges {
		types[e.Type]++
		// Inline fields are where the vault says how notes relate.
		if e.Origin == format.OriginField && len(typed) < 12 {
			typed = append(typed, e.Sentence)
		}
	}
	fmt.Fprintf(w, "labels     %s\n", countList(labels))
	fmt.Fprintf(w, "edge types %s\n", countList(types))
	if len(stubs) > 0 {
		fmt.Fprintf(w, "stubs      %s (links to notes that do not exist)\n", strings.Join(stubs, ", "))
	}
	fmt.Fprintf(w, "typed edges, as sentences:\n")
	for _, t := range typed {
		fmt.Fprintf(w, "  %s\n", t)
	}
	return nil
}

func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// repoRoot finds the repository holding the demo vault by walking up from
// the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, demoVaultPath)); err == nil && fi.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("cannot find %s above the working directory; run from the vaultgraph repository or pass --vault and --data", demoVaultPath)
		}
		dir = parent
	}
}
