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
		}, stageFlags()...),
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
	st, err := stages(c)
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
	w := c.App.Writer
	if res.Unchanged {
		fmt.Fprintf(w, "The vault is unchanged since snapshot %s; showing it.\n\n", res.ID)
	} else {
		fmt.Fprintf(w, "Indexed %s in %s.\n\n", vault, res.Elapsed.Round(1e6))
	}
	printManifest(w, s.Manifest, s.Dir)
	if err := printGraphSummary(w, s); err != nil {
		return err
	}
	self, _ := os.Executable()
	if strings.Contains(self, "go-build") {
		self = "go run ./cmd/vaultgraph"
	}
	q := func(format string, args ...any) { fmt.Fprintf(w, "  "+self+" "+format+"\n", args...) }
	fmt.Fprintf(w, "\nQuery it:\n")
	q("query --data %s 'MATCH (p:Person)-[c:contributes]->(x:Project) WHERE c.hours >= 100 RETURN p.title, c.hours, x.title'", data)
	q("search --data %s --target edges \"who funds Search\"", data)
	q("retrieve --data %s \"What does the Search project depend on, and who works on it?\"", data)
	q("graph backlinks --data %s --source Projects/Search.md", data)
	q("snapshot verify --data %s", data)
	fmt.Fprintf(w, "Serve it to programs (REST on 127.0.0.1:7337) and agents (MCP):\n")
	q("serve --data %s", data)
	fmt.Fprintf(w, "  claude mcp add vaultgraph -- vaultgraph serve --stdio --data %s\n", data)
	fmt.Fprintf(w, "The tables are plain Parquet: %s\n", filepath.Join(s.Dir, "*.parquet"))
	return nil
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
