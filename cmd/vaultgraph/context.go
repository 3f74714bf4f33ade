package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
)

func retrieveContextCommand() *cli.Command {
	return &cli.Command{
		Name:      "retrieve-context",
		Usage:     "what to read, change and test for a question about the code, with the notes that explain it",
		ArgsUsage: "QUESTION",
		Description: `Needs a snapshot indexed with --repo NAME=PATH. Seeds a personalized PageRank
with the notes and code that match QUESTION (identifiers split: fetchEpisode
matches "fetch episode"), walks imports, calls, tests, co_edits and the notes'
links to code, and prints five buckets: must_read, may_change, must_test,
knowledge and danger, each entry with the edges that brought it.
--anchor code:REPO/path[#Symbol] answers the same buckets for changing that
file or symbol (impact_of) instead of a question.`,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.StringFlag{Name: "snapshot", Usage: "snapshot id or unique prefix (default: the newest that passes its checks)"},
			&cli.StringFlag{Name: "anchor", Usage: "a code file or symbol id instead of a question: code:REPO/path or code:REPO/path#Symbol"},
			&cli.IntFlag{Name: "k", Value: codecontext.DefaultK, Usage: "entries per bucket at most", Action: atLeast("k", 1)},
			&cli.IntFlag{Name: "max-bytes", Value: codecontext.DefaultMaxBytes, Usage: "bound of the answer's JSON", Action: atLeast("max-bytes", 1024)},
		}, formatFlags()...),
		Before: takesArgs(0, many, ""),
		Action: runRetrieveContext,
	}
}

func divergenceCommand() *cli.Command {
	return &cli.Command{
		Name:  "divergence",
		Usage: "notes whose code links name files or symbols that no longer exist",
		Description: `Lists every code:REPO/path[#Symbol] link of a note that names no tracked file
or symbol of the snapshot (detect_divergence). Exits 0 either way; use
"snapshot diff --fail-on new-divergence" to fail on new ones.`,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.StringFlag{Name: "snapshot", Usage: "snapshot id or unique prefix (default: the newest that passes its checks)"},
		}, formatFlags()...),
		Before: takesArgs(0, 0, ""),
		Action: runDivergence,
	}
}

func openCodeContext(c *cli.Context) (*codecontext.Index, error) {
	if _, err := outputFormat(c); err != nil {
		return nil, err
	}
	entry, err := readRef(logger(c), c.String("data"), c.String("snapshot"))
	if err != nil {
		return nil, err
	}
	s, err := snapshot.Open(entry.Dir, snapshot.OpenOptions{})
	if err != nil {
		return nil, err
	}
	return codecontext.Load(s)
}

func runRetrieveContext(c *cli.Context) error {
	question := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
	anchor := c.String("anchor")
	if (question == "") == (anchor == "") {
		return usageError(errors.New(`give a QUESTION or --anchor code:REPO/path[#Symbol], not both; usage: vaultgraph retrieve-context --data DIR "QUESTION"`))
	}
	ix, err := openCodeContext(c)
	if err != nil {
		return err
	}
	var a *codecontext.Answer
	if anchor != "" {
		a, err = ix.Impact(c.Context, codecontext.ImpactRequest{ID: anchor, K: c.Int("k"), MaxBytes: c.Int("max-bytes")})
		if errors.Is(err, codecontext.ErrUnknownCode) {
			return usageError(err)
		}
	} else {
		a, err = ix.Retrieve(c.Context, codecontext.Request{Question: question, K: c.Int("k"), MaxBytes: c.Int("max-bytes")})
	}
	if err != nil {
		return err
	}
	if jsonOutput(c) {
		return writeJSON(c.App.Writer, a)
	}
	fmt.Fprintf(c.App.Writer, "snapshot %s\n%s", a.Snapshot, a.Text())
	return nil
}

func runDivergence(c *cli.Context) error {
	ix, err := openCodeContext(c)
	if err != nil {
		return err
	}
	d := ix.Divergence()
	if jsonOutput(c) {
		if d == nil {
			d = []codecontext.Divergence{}
		}
		return writeJSON(c.App.Writer, map[string]any{"snapshot": ix.Snapshot(), "divergence": d})
	}
	if len(d) == 0 {
		fmt.Fprintf(c.App.Writer, "snapshot %s: every code link of the notes names a tracked file or symbol\n", ix.Snapshot())
		return nil
	}
	fmt.Fprintf(c.App.Writer, "snapshot %s: %d code links name nothing that exists\n", ix.Snapshot(), len(d))
	for _, x := range d {
		fmt.Fprintf(c.App.Writer, "%s:%d  %s:: %s  (%s)\n", x.Note, x.Line, x.Type, x.Target, x.Reason)
	}
	return nil
}
