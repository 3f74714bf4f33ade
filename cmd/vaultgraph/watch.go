package main

import (
	"errors"
	"log/slog"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
)

// watchFlags are the index command's flags for watch mode.
func watchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "watch", Usage: "keep running: re-index whenever the vault changes (stop with Ctrl-C or SIGTERM)"},
		&cli.DurationFlag{Name: "poll", Usage: "watch by polling the vault this often instead of file system events (bind mounts, network file systems); implies --watch", Action: positive("poll")},
		&cli.DurationFlag{Name: "debounce", Value: indexer.DefaultDebounce, Usage: "in watch mode, how long the vault must stay quiet after a change before a run", Action: positive("debounce")},
		&cli.DurationFlag{Name: "pending-retry", Value: indexer.DefaultPendingRetry, Usage: "in watch mode, how soon to retry vectors the model server could not compute, with the vault unchanged (doubles while it stays down, up to 16x)", Action: positive("pending-retry")},
	}
}

// runWatch indexes, then re-indexes after every change until interrupted.
// Each run prints what a single index run prints; a failed run is logged
// and retried, and only a vault that cannot be watched at all ends it.
func runWatch(c *cli.Context, opts indexer.Options, push bucket.Bucket) error {
	// A watch lives long: its runs read the newest manifest themselves
	// rather than keep the first one's decoded for its lifetime.
	opts.Opened = nil
	log := logger(c)
	report := watchReporter(c, log)
	wopts := indexer.WatchOptions{
		Debounce:     c.Duration("debounce"),
		Poll:         c.Duration("poll"),
		PendingRetry: c.Duration("pending-retry"),
		OnRun: func(res *indexer.Result, err error) {
			report(res, err)
			if err != nil || push == nil {
				return
			}
			// A failed push is logged; the next run pushes again.
			pres, err := pushPublished(c.Context, log, push, opts.Data, res.ID)
			switch {
			case err != nil:
				log.Error("push failed; the next run pushes again", "err", err)
			case pres != nil && !c.Bool("quiet") && !pres.Present:
				printPush(c, push, pres)
			}
		},
	}
	return indexer.Watch(c.Context, opts, wopts)
}

// watchReporter reports the runs of a watch. Another indexer holding the
// data directory is not a failure of the watch, which retries until the
// lock is free: it is logged once, as a warning saying what to do, until a
// run gets past it; every other failure is logged as an error each time.
func watchReporter(c *cli.Context, log *slog.Logger) func(*indexer.Result, error) {
	locked := false
	return func(res *indexer.Result, err error) {
		switch {
		case errors.Is(err, snapshot.ErrLocked):
			if !locked {
				log.Warn("another indexer holds the data directory; this watch retries until it is free, and indexes then",
					"lock", lockPath(c.String("data")),
					"fix", "if another watch or a timer indexes this data directory, stop it: one watch per data directory is enough")
			}
			locked = true
		case err != nil:
			locked = false
			log.Error("index run failed; retrying", "err", err)
		default:
			if locked {
				log.Info("the data directory is free again")
			}
			locked = false
			printIndexResult(c, res)
		}
	}
}

// lockPath is the absolute path of a data directory's lock file, as the
// messages about it name it.
func lockPath(data string) string {
	p := filepath.Join(data, format.LockFile)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
