package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

func snapshotCommand() *cli.Command {
	return &cli.Command{
		Name:  "snapshot",
		Usage: "list, show, verify, export, import, push, pull, diff and garbage-collect snapshots",
		Subcommands: []*cli.Command{
			{
				Name:   "list",
				Usage:  "list the snapshots of a data directory, oldest first, with each one's status (its files' sizes and xxh64 checked)",
				Flags:  append([]cli.Flag{dataFlag()}, formatFlags()...),
				Before: takesArgs(0, 0, ""),
				Action: runSnapshotList,
			},
			{
				Name:      "show",
				Usage:     "show a snapshot's manifest (the newest that passes its checks by default)",
				ArgsUsage: "[ID]",
				Flags:     append([]cli.Flag{dataFlag()}, formatFlags()...),
				Before:    takesArgs(0, 1, ""),
				Action:    runSnapshotShow,
			},
			{
				Name:      "verify",
				Usage:     "recompute every checksum of a snapshot; exits 1 on any mismatch",
				ArgsUsage: "[ID | PATH]  (a PATH with a slash checks a copied snapshot directory before it is renamed into place)",
				Flags:     append([]cli.Flag{optionalDataFlag(), &cli.BoolFlag{Name: "all", Usage: "verify every snapshot"}}, formatFlags()...),
				Before:    takesArgs(0, 1, ""),
				Action:    runSnapshotVerify,
			},
			exportCommand(),
			importCommand(),
			pushCommand(),
			pullCommand(),
			diffCommand(),
			gcCommand(),
		},
	}
}

func runSnapshotList(c *cli.Context) error {
	entries, err := snapshot.List(c.String("data"))
	if err != nil {
		return err
	}
	type row struct {
		ID      string        `json:"id"`
		Parent  string        `json:"parent,omitempty"`
		Created time.Time     `json:"created"`
		Counts  format.Counts `json:"counts"`
		Error   string        `json:"error,omitempty"`
	}
	rows := make([]row, 0, len(entries))
	for _, e := range entries {
		// The xxh64 of every file, as the server checks before it swaps
		// (a second or so on a large vault): a status of ok means the
		// server would serve it. snapshot verify checks the sha256.
		s, err := snapshot.Open(e.Dir, snapshot.OpenOptions{VerifyFast: true})
		if err != nil {
			rows = append(rows, row{ID: e.ID, Error: err.Error()})
			continue
		}
		m := s.Manifest
		rows = append(rows, row{ID: m.ID, Parent: m.Parent, Created: m.Created, Counts: m.Counts})
	}
	if jsonOutput(c) {
		return writeJSON(c.App.Writer, rows)
	}
	table := [][]string{{"ID", "CREATED", "NOTES", "EDGES", "CHUNKS", "WARNINGS", "STATUS"}}
	for _, r := range rows {
		if r.Error != "" {
			// A snapshot that does not open has no counts to show.
			table = append(table, []string{r.ID, "-", "-", "-", "-", "-", r.Error})
			continue
		}
		table = append(table, []string{r.ID, r.Created.Local().Format(time.DateTime), strconv.Itoa(r.Counts.Notes),
			strconv.Itoa(r.Counts.Edges), strconv.Itoa(r.Counts.Chunks), strconv.Itoa(r.Counts.Warnings), "ok"})
	}
	return writeTable(c.App.Writer, table)
}

func runSnapshotShow(c *cli.Context) error {
	e, err := readRef(logger(c), c.String("data"), c.Args().First())
	if err != nil {
		return err
	}
	s, err := snapshot.Open(e.Dir, snapshot.OpenOptions{})
	if err != nil {
		return err
	}
	if jsonOutput(c) {
		return writeJSON(c.App.Writer, s.Manifest)
	}
	printManifest(c.App.Writer, s.Manifest, s.Dir)
	return nil
}

func printManifest(w io.Writer, m *format.Manifest, dir string) {
	fmt.Fprintf(w, "snapshot   %s\n", m.ID)
	fmt.Fprintf(w, "directory  %s\n", dir)
	fmt.Fprintf(w, "created    %s (%s ago)\n", m.Created.Local().Format(time.DateTime), time.Since(m.Created).Round(time.Second))
	if m.Parent != "" {
		fmt.Fprintf(w, "parent     %s\n", m.Parent)
	}
	fmt.Fprintf(w, "vault      %s\n", m.VaultRoot)
	fmt.Fprintf(w, "format     %d, written by vaultgraph %s\n", m.FormatVersion, m.ToolVersion)
	k := m.Counts
	fmt.Fprintf(w, "counts     %d notes, %d stubs, %d links, %d edges (%d unresolved links), %d chunks, %d warnings\n",
		k.Notes, k.Stubs, k.Links, k.Edges, k.Unresolved, k.Chunks, k.Warnings)
	names := make([]string, 0, len(m.Files))
	var total int64
	for name, f := range m.Files {
		names = append(names, name)
		total += f.Size
	}
	sort.Strings(names)
	fmt.Fprintf(w, "files      %d, %d bytes\n", len(names), total)
	for _, name := range names {
		fmt.Fprintf(w, "  %-28s %12d  %s\n", name, m.Files[name].Size, m.Files[name].SHA256[:12])
	}
	if len(m.Warnings) > 0 {
		fmt.Fprintf(w, "warnings\n")
		for i, wn := range m.Warnings {
			if i == 20 {
				fmt.Fprintf(w, "  ... and %d more (--json shows all)\n", len(m.Warnings)-i)
				break
			}
			fmt.Fprintf(w, "  %s\n", warningLine(wn))
		}
	}
}

func warningLine(w format.Warning) string {
	loc := w.File
	if w.Line > 0 {
		loc = fmt.Sprintf("%s:%d", w.File, w.Line)
	}
	return fmt.Sprintf("%s: %s: %s", loc, w.Kind, w.Message)
}

func runSnapshotVerify(c *cli.Context) error {
	data := c.String("data")
	var entries []snapshot.Entry
	if c.Bool("all") {
		if c.NArg() > 0 {
			return usageErrorf("--all verifies every snapshot: give no ID with it, got %s; see %s --help", quoteAll(c.Args().Slice()), helpName(c))
		}
		if data == "" {
			return usageError(errors.New("--all needs --data"))
		}
		all, err := snapshot.List(data)
		if err != nil {
			return err
		}
		entries = all
	} else {
		e, err := resolveRef(data, c.Args().First())
		if err != nil {
			return err
		}
		entries = []snapshot.Entry{e}
	}
	type problem struct {
		File   string `json:"file"`
		Reason string `json:"reason"`
	}
	type verdict struct {
		Snapshot string    `json:"snapshot"`
		Dir      string    `json:"dir"`
		OK       bool      `json:"ok"`
		Files    int       `json:"files"`
		Error    string    `json:"error,omitempty"`
		Problems []problem `json:"problems"`
	}
	bad := 0
	verdicts := make([]verdict, 0, len(entries))
	for _, e := range entries {
		m, problems, err := snapshot.Verify(e.Dir)
		v := verdict{Snapshot: e.ID, Dir: e.Dir, OK: err == nil && len(problems) == 0, Problems: []problem{}}
		if m != nil {
			v.Files = len(m.Files)
		}
		if err != nil {
			v.Error = err.Error()
		}
		for _, p := range problems {
			v.Problems = append(v.Problems, problem{p.File, p.Reason})
		}
		verdicts = append(verdicts, v)
		if !v.OK {
			bad++
		}
	}
	if jsonOutput(c) {
		if err := writeJSON(c.App.Writer, struct {
			OK        bool      `json:"ok"`
			Snapshots []verdict `json:"snapshots"`
		}{bad == 0, verdicts}); err != nil {
			return err
		}
		verdicts = nil
	}
	for _, v := range verdicts {
		switch {
		case v.Error != "":
			fmt.Fprintf(c.App.Writer, "FAIL %s: %s\n", v.Snapshot, v.Error)
		case !v.OK:
			fmt.Fprintf(c.App.Writer, "FAIL %s\n", v.Snapshot)
			for _, p := range v.Problems {
				fmt.Fprintf(c.App.Writer, "  %s: %s\n", p.File, p.Reason)
			}
		default:
			fmt.Fprintf(c.App.Writer, "ok   %s (%d files)\n", v.Snapshot, v.Files)
		}
	}
	if bad > 0 {
		return &exitError{code: 1, err: errors.New(plural(bad, "snapshot") + " failed verification")}
	}
	return nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// writeJSON writes v as one line of JSON, indented only for a person at a
// terminal: a program or an agent reading --json pays for every byte, and
// an answer bounded by --max-bytes is bounded as printed (review5 F12).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	if f, ok := rawWriter(w).(*os.File); ok && isTerminal(f) {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}
