// Command vaultgraph indexes an Obsidian vault into immutable snapshots and
// answers questions about them. This package only wires command-line flags
// to the library packages; main alone picks exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/vaultgraph/vaultgraph/indexer/schedule"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	tunesHeap = true
	app := newApp()
	args, err := interspersed(app, os.Args)
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	stop()
	os.Exit(exitCode(err))
}

// exitError carries an exit code other than 1 (a failed check, bad usage:
// see usageError).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, "vaultgraph:", ee.err)
		}
		return ee.code
	}
	if errors.Is(err, snapshot.ErrLocked) || errors.Is(err, bucket.ErrLocked) {
		// EX_TEMPFAIL: another indexer holds the data directory; a timer's
		// run that overlaps one is skipped, not failed (see schedule).
		fmt.Fprintln(stderr, "vaultgraph:", err)
		return schedule.ExitLocked
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "vaultgraph: interrupted")
		return 130
	}
	fmt.Fprintln(stderr, "vaultgraph:", err)
	return 1
}
