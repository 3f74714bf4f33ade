package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
)

// graphActions describes the actions of vaultgraph graph, one subcommand
// each, in the order help shows them.
var graphActions = []struct{ name, usage string }{
	{linkgraph.ActionTraverse, "breadth-first from --source, up to --max-depth hops and --max-nodes notes"},
	{linkgraph.ActionNeighbors, "direct links of --source in both directions, with their types"},
	{linkgraph.ActionPath, "shortest path from --source to --target; --all for every simple path up to --max-depth hops"},
	{linkgraph.ActionStatistics, "link counts of --source; without --source, of the whole vault (most linked, orphans, missing notes)"},
	{linkgraph.ActionBacklinks, "notes linking to --source"},
	{linkgraph.ActionForwardlinks, "notes --source links to"},
}

func graphCommand() *cli.Command {
	cmd := &cli.Command{
		Name:      "graph",
		Usage:     "navigate a snapshot's link graph: traverse, neighbors, path, statistics, backlinks, forwardlinks",
		UsageText: "vaultgraph graph ACTION --data DIR --source NOTE [--target NOTE] [flags] [--format json]",
		Description: `Answers from the snapshot's notes and edges (plain links, embeds and typed edges),
in memory. Notes are named by path, title or alias; an ambiguous name lists the
candidates. The JSON output has the shape of the obsidian-mcp-plugin's graph tool
(nodes, edges, paths, statistics, graphStats) with typed-edge fields added.`,
	}
	needsSubcommand(cmd, "action")
	for _, a := range graphActions {
		action := a.name
		cmd.Subcommands = append(cmd.Subcommands, &cli.Command{
			Name:      action,
			Usage:     a.usage,
			UsageText: "vaultgraph graph " + action + " --data DIR --source NOTE [flags]",
			Flags:     graphQueryFlags(),
			Before:    takesArgs(0, 0, "name notes with --source and --target"),
			Action:    func(c *cli.Context) error { return runGraph(c, action) },
		})
	}
	return cmd
}

func graphQueryFlags() []cli.Flag {
	return append(formatFlags(),
		dataFlag(),
		&cli.StringFlag{Name: "snapshot", Usage: "snapshot id or unique prefix (default: the newest that passes its checks)"},
		&cli.StringFlag{Name: "source", Usage: "the note to start from: path, title or alias"},
		&cli.StringFlag{Name: "target", Usage: "the note a path ends at"},
		&cli.IntFlag{Name: "max-depth", Usage: fmt.Sprintf("hops to go (default %d; a shortest path is unbounded unless set)", linkgraph.DefaultMaxDepth), Action: atLeast("max-depth", 1)},
		&cli.IntFlag{Name: "max-nodes", Usage: fmt.Sprintf("notes a traversal keeps (default %d) or a list shows (default %d)", linkgraph.DefaultMaxNodes, linkgraph.DefaultListLimit), Action: atLeast("max-nodes", 1)},
		&cli.IntFlag{Name: "max-edges", Usage: fmt.Sprintf("edges a traversal returns (default %d)", linkgraph.DefaultMaxEdges), Action: atLeast("max-edges", 1)},
		&cli.BoolFlag{Name: "follow-backlinks", Value: true, Usage: "follow links into a note (--follow-backlinks=false to not)"},
		&cli.BoolFlag{Name: "follow-forward-links", Value: true, Usage: "follow links out of a note"},
		&cli.BoolFlag{Name: "follow-tags", Usage: "also connect notes that share a tag"},
		&cli.BoolFlag{Name: "include-unresolved", Usage: "let walks visit links to missing notes"},
		&cli.StringSliceFlag{Name: "edge-types", Usage: "follow only these edge types: depends_on,leads (link and embed are the plain ones)"},
		&cli.StringSliceFlag{Name: "tag-filter", Usage: "keep only notes with one of these tags: project,#review"},
		&cli.StringFlag{Name: "file-filter", Usage: "regular expression a note's path must match"},
		&cli.StringFlag{Name: "folder-filter", Usage: "folder a note must be in"},
		&cli.BoolFlag{Name: "all", Usage: "path: every simple path up to --max-depth hops, not only the shortest"},
		&cli.IntFlag{Name: "max-paths", Usage: fmt.Sprintf("path --all: stop after this many paths (default %d)", linkgraph.DefaultMaxPaths), Action: atLeast("max-paths", 1)},
		// Sent in whole milliseconds, where 0 would mean the default.
		&cli.DurationFlag{Name: "timeout", Usage: fmt.Sprintf("path --all: stop after this long (default %s)", linkgraph.DefaultTimeout), Action: atLeastDuration("timeout", time.Millisecond)},
	)
}

func runGraph(c *cli.Context, action string) error {
	outFormat, err := outputFormat(c)
	if err != nil {
		return err
	}
	back, fwd := c.Bool("follow-backlinks"), c.Bool("follow-forward-links")
	req := linkgraph.Request{
		Action: action, SourcePath: c.String("source"), TargetPath: c.String("target"),
		MaxDepth: c.Int("max-depth"), MaxNodes: c.Int("max-nodes"), MaxEdges: c.Int("max-edges"),
		FollowBacklinks: &back, FollowForwardLinks: &fwd, FollowTags: c.Bool("follow-tags"),
		EdgeTypes:  c.StringSlice("edge-types"),
		FileFilter: c.String("file-filter"), FolderFilter: c.String("folder-filter"), TagFilter: c.StringSlice("tag-filter"),
		All: c.Bool("all"), MaxPaths: c.Int("max-paths"), TimeoutMS: int(c.Duration("timeout").Milliseconds()),
	}
	if c.IsSet("include-unresolved") {
		u := c.Bool("include-unresolved")
		req.IncludeUnresolved = &u
	}
	entry, err := readRef(logger(c), c.String("data"), c.String("snapshot"))
	if err != nil {
		return err
	}
	s, err := snapshot.Open(entry.Dir, snapshot.OpenOptions{})
	if err != nil {
		return err
	}
	g, err := linkgraph.Load(s)
	if err != nil {
		return err
	}
	resp, err := g.Do(c.Context, req)
	switch {
	case errors.Is(err, linkgraph.ErrInvalidRequest):
		return usageError(&reworded{msg: graphOptionNames.Replace(err.Error()), err: err})
	case errors.Is(err, linkgraph.ErrAmbiguous), errors.Is(err, linkgraph.ErrNotFound):
		// A note name that names no note, or several, is the user's to fix.
		return usageError(err)
	case err != nil:
		return err
	}
	if outFormat == "json" {
		return writeJSON(c.App.Writer, resp)
	}
	printGraph(c.App.Writer, resp)
	return nil
}

// graphOptionNames spell linkgraph's request fields, which its errors name,
// as this command's options.
var graphOptionNames = strings.NewReplacer(
	"sourcePath", "--source", "targetPath", "--target",
	"maxDepth", "--max-depth", "maxNodes", "--max-nodes", "maxEdges", "--max-edges",
	"maxPaths", "--max-paths", "timeoutMs", "--timeout",
	"fileFilter", "--file-filter", "folderFilter", "--folder-filter",
)

func printGraph(w io.Writer, r *linkgraph.Response) {
	fmt.Fprintln(w, r.Message)
	switch {
	case r.Statistics != nil:
		printNoteStatistics(w, r.Statistics)
	case r.VaultStatistics != nil:
		printVaultStatistics(w, r.VaultStatistics)
	case r.Operation == linkgraph.ActionPath:
		for i, p := range r.Paths {
			fmt.Fprintf(w, "\n%d. %s: %s\n", i+1, plural(len(p)-1, "hop"), strings.Join(p, " → "))
			for _, e := range r.PathEdges[i] {
				fmt.Fprintf(w, "     %s\n", edgeLine(e))
			}
		}
	default:
		if len(r.Nodes) > 0 {
			fmt.Fprintln(w, "\nnotes:")
		}
		for _, n := range r.Nodes {
			kind := ""
			if n.Type == "stub" {
				kind = "  (missing note)"
			}
			fmt.Fprintf(w, "  %d  %s%s%s  links %d out, %d in%s\n", n.Depth, n.Path, labelList(n.Labels), tagList(n.Tags), n.Links.Forward, n.Links.Backward, kind)
		}
		if len(r.Edges) > 0 {
			fmt.Fprintln(w, "\nedges:")
		}
		for _, e := range r.Edges {
			fmt.Fprintf(w, "  %s\n", edgeLine(e))
		}
	}
	fmt.Fprintf(w, "\n%d notes, %d edges, %.2f ms\n", r.GraphStats.TotalNodes, r.GraphStats.TotalEdges, r.GraphStats.TraversalTime)
}

func tagList(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return "  #" + strings.Join(tags, " #")
}

// edgeLine is "source -[type]-> target" with the count of plain links, or
// a typed edge's sign and properties.
func edgeLine(e linkgraph.Edge) string {
	typ := e.Type
	if e.Sign < 0 {
		typ = "-" + typ
	}
	s := fmt.Sprintf("%s -[%s]-> %s", e.Source, typ, e.Target)
	if e.Count > 1 {
		s += fmt.Sprintf(" ×%d", e.Count)
	}
	if len(e.Properties) > 0 {
		b, _ := json.Marshal(e.Properties)
		s += " " + string(b)
	}
	if len(e.Tags) > 0 {
		s += " (shared tags: " + strings.Join(e.Tags, ", ") + ")"
	}
	return s
}

func printNoteStatistics(w io.Writer, st *linkgraph.NoteStatistics) {
	fmt.Fprintf(w, "  linked from %d notes, links to %d notes (%d edges in, %d out)\n", st.InDegree, st.OutDegree, st.InEdges, st.OutEdges)
	if st.UnresolvedCount > 0 {
		fmt.Fprintf(w, "  links to %d missing notes: %s\n", st.UnresolvedCount, strings.Join(st.Unresolved, ", "))
	}
	if len(st.Tags) > 0 {
		fmt.Fprintf(w, "  tags: %s\n", strings.Join(st.Tags, ", "))
	}
	types := make([]string, 0, len(st.ByType))
	for t, n := range st.ByType {
		types = append(types, fmt.Sprintf("%s %d in / %d out", t, n.In, n.Out))
	}
	sort.Strings(types)
	for _, t := range types {
		fmt.Fprintf(w, "  %s\n", t)
	}
	if st.IsOrphan {
		fmt.Fprintln(w, "  an orphan: no links in or out")
	}
}

func printVaultStatistics(w io.Writer, vs *linkgraph.VaultStatistics) {
	fmt.Fprintf(w, "\nmost linked:\n")
	for _, n := range vs.MostLinked {
		fmt.Fprintf(w, "  %4d  %s\n", n.Links.Backward, n.Path)
	}
	fmt.Fprintf(w, "\nedge types: %s\n", countList(vs.EdgeTypes))
	fmt.Fprintf(w, "\norphans (%d): %s\n", vs.OrphanCount, strings.Join(vs.Orphans, ", "))
	fmt.Fprintf(w, "\nmissing notes (%d):\n", vs.UnresolvedCount)
	for _, u := range vs.Unresolved {
		fmt.Fprintf(w, "  %s  (%d links from %d notes)\n", u.Target, u.Links, u.Sources)
	}
}
