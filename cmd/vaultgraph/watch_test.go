package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// TestWatchReportsLockOnce: a watch retrying while another indexer holds
// the data directory warns once per stretch, not on every retry, and not
// as a failure; other failures are errors each time.
func TestWatchReportsLockOnce(t *testing.T) {
	data := t.TempDir()
	set := flag.NewFlagSet("index", flag.ContinueOnError)
	set.String("data", data, "")
	set.Bool("quiet", true, "")
	c := cli.NewContext(newApp(), set, nil)
	var logs bytes.Buffer
	report := watchReporter(c, slog.New(slog.NewTextHandler(&logs, nil)))

	// The error Lock returns, as the indexer wraps it.
	release, err := snapshot.Lock(context.Background(), data, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, lockErr := snapshot.Lock(context.Background(), data, 0)
	release()
	locked := fmt.Errorf("index: %w", lockErr)
	unchanged := &indexer.Result{ID: "01J00000000000000000000000", Unchanged: true}
	for _, step := range []struct {
		res  *indexer.Result
		err  error
		want string // what the step logs
	}{
		{nil, locked, "level=WARN msg=\"another indexer holds the data directory"},
		{nil, locked, ""},
		{nil, locked, ""},
		{unchanged, nil, "level=INFO msg=\"the data directory is free again\""},
		{unchanged, nil, ""},
		{nil, locked, "level=WARN"},
		{nil, errors.New("disk full"), "level=ERROR msg=\"index run failed; retrying\" err=\"disk full\""},
		{nil, errors.New("disk full"), "level=ERROR"},
	} {
		logs.Reset()
		report(step.res, step.err)
		got := strings.TrimSpace(logs.String())
		if (step.want == "") != (got == "") || !strings.Contains(got, step.want) || strings.Count(got, "\n") > 0 {
			t.Errorf("after %v: logged %q, want one line with %q (or nothing)", step.err, got, step.want)
		}
		if strings.Contains(got, "--wait") {
			t.Errorf("a watch is told about --wait: %s", got)
		}
	}
}
