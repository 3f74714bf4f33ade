package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// groups are the suite's parts, in the order they run.
var groups = []struct {
	name string
	run  func(*suite)
}{
	{"kill", killGroup},
	{"corrupt", corruptGroup},
	{"hostile", hostileGroup},
	{"requests", requestsGroup},
}

func main() {
	only := flag.String("only", "", "comma-separated groups to run (default all): kill, corrupt, hostile, requests")
	kills := flag.Int("kills", 20, "how many index runs the kill group kills")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	verbose := flag.Bool("v", false, "print every case as it ends")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "vaultgraph-torture-")
	if err != nil {
		fatal(err)
	}
	s := &suite{tmp: tmp, kills: *kills, verbose: *verbose, out: os.Stdout}
	code := s.main(*only)
	if *keep {
		fmt.Printf("kept %s\n", tmp)
	} else if err := os.RemoveAll(tmp); err != nil {
		fmt.Fprintf(os.Stderr, "torture: remove %s: %v\n", tmp, err)
	}
	os.Exit(code)
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "torture: %v\n", err)
	os.Exit(1)
}

// suite runs cases and keeps their outcomes.
type suite struct {
	tmp     string
	bin     string
	kills   int
	verbose bool
	out     io.Writer
	results []result
	group   string
}

type outcome string

const (
	passed outcome = "pass"
	failed outcome = "FAIL"
	hung   outcome = "HANG"
)

type result struct {
	group, name string
	outcome     outcome
	detail      string
	elapsed     time.Duration
}

func (s *suite) main(only string) int {
	start := time.Now()
	bin := filepath.Join(s.tmp, "vaultgraph")
	build := exec.Command("go", "build", "-o", bin, "./cmd/vaultgraph")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fatal(fmt.Errorf("build the binary (run from the repository root): %w", err))
	}
	s.bin = bin
	want := map[string]bool{}
	for _, g := range strings.Split(only, ",") {
		if g = strings.TrimSpace(g); g != "" {
			want[g] = true
		}
	}
	for _, g := range groups {
		if len(want) > 0 && !want[g.name] {
			continue
		}
		s.group = g.name
		fmt.Fprintf(s.out, "== %s\n", g.name)
		g.run(s)
	}
	return s.report(time.Since(start))
}

// errHang marks a case that ran past its deadline.
var errHang = errors.New("ran past its deadline")

// run runs one case with a deadline. f must stop what it started when
// ctx ends (exec.CommandContext does); a case still running a minute
// after its deadline is abandoned and reported as a hang.
func (s *suite) run(name string, deadline time.Duration, f func(ctx context.Context) error) bool {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("torture case panicked: %v", p)
			}
		}()
		done <- f(ctx)
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(deadline + time.Minute):
		err = errHang
	}
	r := result{group: s.group, name: name, outcome: passed, elapsed: time.Since(start)}
	switch {
	case err == nil:
	case errors.Is(err, errHang) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		r.outcome, r.detail = hung, fmt.Sprintf("no result within %s: %v", deadline, err)
	default:
		r.outcome, r.detail = failed, err.Error()
	}
	s.results = append(s.results, r)
	if s.verbose || r.outcome != passed {
		fmt.Fprintf(s.out, "  %-4s %-52s %6.1fs %s\n", r.outcome, name, r.elapsed.Seconds(), oneLine(r.detail))
	}
	return r.outcome == passed
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " | ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// report prints the table of groups and returns the exit code.
func (s *suite) report(elapsed time.Duration) int {
	type row struct{ cases, pass, fail, hang int }
	rows := map[string]*row{}
	var order []string
	for _, r := range s.results {
		if rows[r.group] == nil {
			rows[r.group] = &row{}
			order = append(order, r.group)
		}
		w := rows[r.group]
		w.cases++
		switch r.outcome {
		case passed:
			w.pass++
		case failed:
			w.fail++
		case hung:
			w.hang++
		}
	}
	fmt.Fprintln(s.out)
	tw := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "group\tcases\tpassed\tfailed\thangs\t")
	total := row{}
	for _, g := range order {
		w := rows[g]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", g, w.cases, w.pass, w.fail, w.hang)
		total.cases, total.pass, total.fail, total.hang = total.cases+w.cases, total.pass+w.pass, total.fail+w.fail, total.hang+w.hang
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t\n", total.cases, total.pass, total.fail, total.hang)
	tw.Flush()
	fmt.Fprintf(s.out, "\n%s in %s\n", verdict(total.fail+total.hang), elapsed.Round(time.Second))
	if total.fail+total.hang > 0 {
		var bad []string
		for _, r := range s.results {
			if r.outcome != passed {
				bad = append(bad, r.group+"/"+r.name)
			}
		}
		sort.Strings(bad)
		fmt.Fprintf(s.out, "not passed: %s\n", strings.Join(bad, ", "))
		return 1
	}
	return 0
}

func verdict(bad int) string {
	if bad > 0 {
		return "FAILED"
	}
	return "ok"
}
