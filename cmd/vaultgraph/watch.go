package main

import (
	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer"
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
func runWatch(c *cli.Context, opts indexer.Options) error {
	log := logger(c)
	wopts := indexer.WatchOptions{
		Debounce:     c.Duration("debounce"),
		Poll:         c.Duration("poll"),
		PendingRetry: c.Duration("pending-retry"),
		OnRun: func(res *indexer.Result, err error) {
			if err != nil {
				log.Error("index run failed; retrying", "err", err)
				return
			}
			printIndexResult(c, res)
		},
	}
	return indexer.Watch(c.Context, opts, wopts)
}
