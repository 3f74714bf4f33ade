package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

func retrieveContextCommand() *cli.Command {
	return &cli.Command{
		Name:      "retrieve-context",
		Usage:     "what to read, change and test for a question about the code, with the notes that explain it",
		ArgsUsage: "QUESTION",
		Description: `Needs a snapshot indexed with --repo NAME=PATH. Seeds a personalized PageRank
with the notes and code that match QUESTION (identifiers split: fetchEpisode
matches "fetch episode") and, when the snapshot has vectors, the code whose
vectors are nearest to it (so other words than the code's find it too), walks imports, calls, tests, co_edits and the notes'
links to code, and prints five buckets: must_read, may_change, must_test,
knowledge and danger, each entry with the edges that brought it.
--anchor code:REPO/path[#Symbol] answers the same buckets for changing that
file or symbol (impact_of) instead of a question.`,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.StringFlag{Name: "snapshot", Usage: "snapshot id or unique prefix (default: the newest that passes its checks)"},
			&cli.StringFlag{Name: "anchor", Usage: "a code file or symbol id instead of a question: code:REPO/path or code:REPO/path#Symbol"},
			&cli.IntFlag{Name: "k", Value: codecontext.DefaultK, Usage: "entries per bucket at most", Action: func(c *cli.Context, v int) error {
				if v > codecontext.MaxK {
					return usageErrorf("--k must be at most %d, not %d", codecontext.MaxK, v)
				}
				return atLeast("k", 1)(c, v)
			}},
			&cli.StringFlag{Name: "repo", Usage: "keep a question's code to this repository (its --repo NAME)"},
			&cli.IntFlag{Name: "max-bytes", Value: codecontext.DefaultMaxBytes, Usage: "bound of the answer's JSON", Action: atLeast("max-bytes", 1024)},
		}, append(formatFlags(), embedderConnFlags()...)...),
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

// openCodeContext opens the code context of the snapshot --snapshot names
// (the newest by default). With vectors, questions are also seeded by the
// code and note vectors; an embedder that cannot be built (a remote model
// without its key) leaves the words alone, with a warning. close releases
// what it opened.
func openCodeContext(c *cli.Context, withVectors bool) (ix *codecontext.Index, close func(), err error) {
	if _, err := outputFormat(c); err != nil {
		return nil, nil, err
	}
	log := logger(c)
	entry, err := readRef(log, c.String("data"), c.String("snapshot"))
	if err != nil {
		return nil, nil, err
	}
	s, err := snapshot.Open(entry.Dir, snapshot.OpenOptions{})
	if err != nil {
		return nil, nil, err
	}
	var src codecontext.Sources
	var closers []func() error
	close = func() {
		for _, f := range slices.Backward(closers) {
			_ = f()
		}
	}
	if withVectors && s.Manifest.Embedder != nil && s.Manifest.Vectors != nil && len(s.Manifest.Repos) > 0 {
		e, err := embed.ForSnapshot(s.Manifest.Embedder, embedConfig(c))
		if err != nil {
			log.Warn("questions are seeded by their words alone: the snapshot's embedder cannot be built here", "err", err)
		} else {
			notes, err := search.Open(s, search.Options{})
			if err != nil {
				return nil, nil, err
			}
			closers = append(closers, notes.Close)
			src = codecontext.Sources{Embedder: e, Notes: notes}
		}
	}
	ix, err = codecontext.Open(s, src)
	if err != nil {
		close()
		return nil, nil, err
	}
	closers = append(closers, ix.Close)
	return ix, close, nil
}

func runRetrieveContext(c *cli.Context) error {
	question := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
	anchor := c.String("anchor")
	if (question == "") == (anchor == "") {
		return usageError(errors.New(`give a QUESTION or --anchor code:REPO/path[#Symbol], not both; usage: vaultgraph retrieve-context --data DIR "QUESTION"`))
	}
	ix, closeIx, err := openCodeContext(c, true)
	if err != nil {
		return err
	}
	defer closeIx()
	var a *codecontext.Answer
	if anchor != "" {
		a, err = ix.Impact(c.Context, codecontext.ImpactRequest{ID: anchor, K: c.Int("k"), MaxBytes: c.Int("max-bytes")})
		if errors.Is(err, codecontext.ErrUnknownCode) {
			return usageError(err)
		}
	} else {
		a, err = ix.Retrieve(c.Context, codecontext.Request{Question: question, K: c.Int("k"), MaxBytes: c.Int("max-bytes"), Repo: c.String("repo")})
		if errors.Is(err, codecontext.ErrUnknownRepo) {
			return usageError(err)
		}
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
	ix, closeIx, err := openCodeContext(c, false)
	if err != nil {
		return err
	}
	defer closeIx()
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
