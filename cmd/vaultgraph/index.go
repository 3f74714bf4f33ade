package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/schedule"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
)

func indexCommand() *cli.Command {
	return &cli.Command{
		Name:  "index",
		Usage: "index a vault into a new snapshot (nothing is published when nothing changed)",
		Description: `Reads the vault (never writing to it), parses the notes that changed since the
newest snapshot, and publishes a new snapshot directory in DATA/snapshots.
Prints the new snapshot's summary on stdout; when nothing changed it publishes
nothing, prints "unchanged <id>" on stderr and exits 0, so timers stay quiet.

With --push s3://BUCKET/PREFIX it then pushes the newest snapshot to the
bucket, uploading only the files the bucket does not hold (see snapshot push);
servers started with serve --data s3://BUCKET/PREFIX pick it up on their next
poll. When nothing changed it pushes too, so a push that failed is done by the
next run; one already in the bucket costs a dozen small requests (and reading
again the files it holds as patches, to check them). A run whose push
fails exits 1 with the snapshot published locally.

With --json it prints the run as JSON on stdout either way ("unchanged":
true, and nothing on stderr), one line per run with --watch.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "vault", Aliases: []string{"v"}, Usage: "the vault's root folder", EnvVars: []string{"VAULTGRAPH_VAULT"}, Required: true},
			dataFlag(),
			&cli.StringSliceFlag{Name: "ignore", Usage: "glob of vault paths to skip (repeatable): Templates/, *.excalidraw.md"},
			&cli.StringSliceFlag{Name: "repo", Usage: "a git repository to index beside the vault, NAME=PATH (repeatable); only its tracked files are read, nothing is written to it"},
			&cli.StringSliceFlag{Name: "repo-include", Usage: "glob of repository paths to read (repeatable; all tracked files when none): src/**, *.py"},
			&cli.StringSliceFlag{Name: "repo-exclude", Usage: "glob of repository paths to skip (repeatable): vendor/, *.min.js"},
			&cli.Int64Flag{Name: "max-note-bytes", Value: indexer.DefaultMaxNoteBytes, Usage: "skip (and report) notes larger than this", Action: atLeast[int64]("max-note-bytes", 1)},
			&cli.IntFlag{Name: "chunk-chars", Value: format.DefaultChunkChars, Usage: "target chunk size in characters", Action: atLeast("chunk-chars", 1)},
			&cli.DurationFlag{Name: "wait", Usage: "how long to wait for another indexer holding the data directory", Action: notNegative("wait")},
			&cli.BoolFlag{Name: "full", Usage: "re-parse every note instead of reusing the newest snapshot"},
			&cli.BoolFlag{Name: "new-vault", Usage: "publish into a --data whose snapshots were built from another vault that still exists (refused without it)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on success and log warnings only (unless --log-level is given); a run skipped for another indexer says so in one line"},
			&cli.StringFlag{Name: "push", Usage: "after each run, push the newest snapshot to this bucket, s3://BUCKET/PREFIX (see snapshot push --help for credentials)", EnvVars: []string{"VAULTGRAPH_PUSH"}},
		}, append(append(watchFlags(), stageFlags()...), formatFlags()...)...),
		Before: takesArgs(0, 0, ""),
		Action: runIndex,
	}
}

func runIndex(c *cli.Context) error {
	opts, err := indexOptions(c)
	if err != nil {
		return err
	}
	if err := indexer.CheckDirs(opts.Vault, opts.Data); errors.Is(err, indexer.ErrMisplacedData) {
		return usageError(err)
	}
	var push bucket.Bucket
	if url := c.String("push"); url != "" {
		if push, err = openBucket(c.Context, url); err != nil {
			return err
		}
	}
	if c.Bool("watch") || c.IsSet("poll") {
		return runWatch(c, opts, push)
	}
	oneShotHeap(opts)
	res, err := indexer.Run(c.Context, opts)
	if err != nil {
		return skippedRun(c, err)
	}
	if jsonOutput(c) {
		// One document: the run, with its push.
		var pres *bucket.PushResult
		if push != nil {
			pres, err = pushPublished(c.Context, opts.Log, push, opts.Data, res.ID)
		}
		if !c.Bool("quiet") {
			v := indexJSON(res)
			if pres != nil {
				p := pushJSON(push, pres)
				v.Push = &p
			}
			if werr := writeJSON(c.App.Writer, v); err == nil {
				err = werr
			}
		}
		return err
	}
	printIndexResult(c, res)
	if push != nil {
		pres, err := pushPublished(c.Context, opts.Log, push, opts.Data, res.ID)
		if err != nil {
			return err
		}
		if pres != nil && !c.Bool("quiet") {
			printPush(c, push, pres)
		}
	}
	return nil
}

// tunesHeap is set by main: this process is the command and nothing else.
var tunesHeap bool

// oneShotGCPercent is the GOGC of a one-shot index run (oneShotHeap).
const oneShotGCPercent = 400

// oneShotHeap lets the heap of a one-shot incremental index run (not a
// watch, which lives on) grow to five times what is live before it is
// collected, instead of the runtime's twice: an edit of one note in a
// 10,000-note vault decodes the parent's rows, a few hundred MB of
// short-lived objects, and spent a quarter of its CPU collecting them.
// The process ends with the run, so the memory is returned then; an
// edit's peak grows by about a fifth (README > Performance). A first or
// --full run keeps the default: it showed no CPU gain for a quarter more
// peak memory (1.1 GB at 10,000 notes). A GOGC or GOMEMLIMIT in the
// environment wins, and so does a process that is not the command (tests
// run the command in theirs: tunesHeap is set by main).
func oneShotHeap(opts indexer.Options) {
	if !tunesHeap || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || opts.Full {
		return
	}
	if parents, err := snapshot.List(opts.Data); err != nil || len(parents) == 0 {
		return
	}
	debug.SetGCPercent(oneShotGCPercent)
	if opts.Log != nil {
		opts.Log.Debug("an incremental run: the heap grows to five times what is live between collections", "gogc", oneShotGCPercent)
	}
}

// indexOptions reads the index command's options, building its stages.
// It refuses what the options' own checks cannot see (an embedder spec
// naming no embedder, an OpenAI embedder without a key), reading nothing
// but the newest snapshot's manifest; schedule runs it on the command line
// a unit will run.
func indexOptions(c *cli.Context) (indexer.Options, error) {
	st, opened, err := stages(c)
	if err != nil {
		return indexer.Options{}, err
	}
	if url := c.String("push"); url != "" {
		if _, err := bucket.ParseURL(url); err != nil {
			return indexer.Options{}, usageError(fmt.Errorf("--push: %w", err))
		}
	}
	var repos []indexer.Repo
	for _, s := range c.StringSlice("repo") {
		r, err := indexer.ParseRepo(s)
		if err != nil {
			return indexer.Options{}, usageError(err)
		}
		if hint := tildeHint("--repo "+r.Name+"=", r.Path); hint != "" {
			if _, err := os.Stat(r.Path); errors.Is(err, fs.ErrNotExist) {
				return indexer.Options{}, usageErrorf("--repo %s: %s does not exist%s", s, r.Path, hint)
			}
		}
		r.Include, r.Exclude = c.StringSlice("repo-include"), c.StringSlice("repo-exclude")
		repos = append(repos, r)
	}
	if len(repos) == 0 && (c.IsSet("repo-include") || c.IsSet("repo-exclude")) {
		return indexer.Options{}, usageError(errors.New("--repo-include and --repo-exclude need a --repo NAME=PATH"))
	}
	return indexer.Options{
		Stages:       st,
		Opened:       opened,
		Repos:        repos,
		Vault:        c.String("vault"),
		Data:         c.String("data"),
		Ignore:       c.StringSlice("ignore"),
		MaxNoteBytes: c.Int64("max-note-bytes"),
		ChunkChars:   c.Int("chunk-chars"),
		LockWait:     c.Duration("wait"),
		Full:         c.Bool("full"),
		NewVault:     c.Bool("new-vault"),
		ToolVersion:  toolVersion(),
		Log:          logger(c),
		Progress:     progressWriter(c),
	}, nil
}

// skippedRun is the error of a run that found another indexer holding the
// data directory, which exits 75 either way. A quiet run (a scheduled one,
// whose unit counts 75 as success) says in one line that it was skipped
// rather than reporting an error.
func skippedRun(c *cli.Context, err error) error {
	if errors.Is(err, indexer.ErrOtherVault) {
		return usageError(err)
	}
	if !errors.Is(err, snapshot.ErrLocked) || !c.Bool("quiet") {
		return err
	}
	return &exitError{code: schedule.ExitLocked, err: &reworded{
		msg: fmt.Sprintf("skipped: another indexer (a watch, a manual or scheduled run) holds %s; nothing was done, the next run catches up", lockPath(c.String("data"))),
		err: err,
	}}
}

// printIndexResult prints a run's summary on stdout, or "unchanged <id>" on
// stderr, or nothing with --quiet.
func printIndexResult(c *cli.Context, res *indexer.Result) {
	if c.Bool("quiet") {
		return
	}
	if jsonOutput(c) {
		v := indexJSON(res)
		if c.Bool("watch") || c.IsSet("poll") {
			// One line per run: a watch's output is JSON Lines.
			b, _ := json.Marshal(v)
			fmt.Fprintf(c.App.Writer, "%s\n", b)
			return
		}
		_ = writeJSON(c.App.Writer, v)
		return
	}
	if res.Unchanged {
		fmt.Fprintf(c.App.ErrWriter, "unchanged %s\n", res.ID)
		for _, s := range res.Stalled {
			fmt.Fprintf(c.App.ErrWriter, "  nothing published: %d texts still without a vector (%s); the next run retries\n", s.Pending, s.Reason)
		}
		return
	}
	m := res.Manifest
	fmt.Fprintf(c.App.Writer, "snapshot %s\n", res.ID)
	unread := ""
	if res.Unread > 0 {
		unread = fmt.Sprintf(", %d of them not read", res.Unread)
	}
	fmt.Fprintf(c.App.Writer, "  notes %d (parsed %d, reused %d%s), stubs %d, edges %d, unresolved links %d, chunks %d, warnings %d\n",
		m.Counts.Notes, res.Parsed, res.Reused, unread, m.Counts.Stubs, m.Counts.Edges, m.Counts.Unresolved, m.Counts.Chunks, m.Counts.Warnings)
	if len(m.Repos) > 0 {
		fmt.Fprintf(c.App.Writer, "  code files %d (parsed %d, reused %d), symbols %d, code edges %d, unresolved code links %d, repositories %d (history read for %d)\n",
			m.Counts.CodeFiles, res.CodeParsed, res.CodeReused, m.Counts.Symbols, m.Counts.CodeEdges, m.Counts.UnresolvedCodeLinks, len(m.Repos), res.HistoryRead)
	}
	fmt.Fprintf(c.App.Writer, "  %s in %s\n", res.Dir, res.Elapsed.Round(1e6))
}

// indexRun is a run as index --json prints it.
type indexRun struct {
	Snapshot  string `json:"snapshot"`
	Dir       string `json:"dir"`
	Parent    string `json:"parent,omitempty"`
	Unchanged bool   `json:"unchanged"`
	Parsed    int    `json:"parsed"`
	Reused    int    `json:"reused"`
	// Unread counts the reused notes not even read: the stat cache
	// vouched for them.
	Unread    int            `json:"unread"`
	Counts    *format.Counts `json:"counts,omitempty"`
	ElapsedMS int64          `json:"elapsed_ms"`
	// Stalled says, on an unchanged run that retried pending work without
	// progress, what is still pending and why.
	Stalled []indexStall `json:"stalled,omitempty"`
	// Push is the push of --push.
	Push *pushRun `json:"push,omitempty"`
}

type indexStall struct {
	Stage   string `json:"stage"`
	Pending int    `json:"pending"`
	Reason  string `json:"reason"`
}

func indexJSON(res *indexer.Result) indexRun {
	out := indexRun{Snapshot: res.ID, Dir: res.Dir, Parent: res.Parent, Unchanged: res.Unchanged,
		Parsed: res.Parsed, Reused: res.Reused, Unread: res.Unread, ElapsedMS: res.Elapsed.Milliseconds()}
	if res.Manifest != nil {
		out.Counts = &res.Manifest.Counts
	}
	for _, s := range res.Stalled {
		out.Stalled = append(out.Stalled, indexStall{Stage: s.Stage, Pending: s.Pending, Reason: s.Reason})
	}
	return out
}
