package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot"
)

// optionalDataFlag is --data for commands that also take snapshot
// directory paths, which need no data directory.
func optionalDataFlag() cli.Flag {
	return &cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "data directory holding the snapshots", EnvVars: []string{"VAULTGRAPH_DATA"}, Action: localData}
}

// isPathRef reports whether a snapshot reference names a directory rather
// than an id: it holds a path separator or is . or ..
func isPathRef(ref string) bool {
	return strings.ContainsRune(ref, '/') || strings.ContainsRune(ref, filepath.Separator) || ref == "." || ref == ".."
}

// resolveRef finds a snapshot by id, id prefix or "latest" in data, or by
// the path of its directory. "latest" (or no ref) is the newest snapshot,
// whatever its state: what snapshot verify checks. A ref that names no
// snapshot, or several, is a usage error.
func resolveRef(data, ref string) (snapshot.Entry, error) {
	if isPathRef(ref) {
		dir, err := filepath.Abs(ref)
		if err != nil {
			return snapshot.Entry{}, err
		}
		fi, err := os.Stat(dir)
		if err != nil {
			return snapshot.Entry{}, fmt.Errorf("snapshot directory: %w", err)
		}
		if !fi.IsDir() {
			return snapshot.Entry{}, fmt.Errorf("snapshot directory: %s is not a directory", dir)
		}
		return snapshot.Entry{ID: filepath.Base(dir), Dir: dir}, nil
	}
	if data == "" {
		return snapshot.Entry{}, usageError(errors.New("--data is required to find a snapshot by id (or give the path of a snapshot directory)"))
	}
	e, err := snapshot.Resolve(data, ref)
	if err != nil && !isNewest(ref) && (errors.Is(err, snapshot.ErrNotFound) || errors.Is(err, snapshot.ErrAmbiguous)) {
		return e, usageError(err)
	}
	return e, err
}

// readChecks are the checks a command makes of the snapshot it reads:
// the server's (every file's xxh64), so that a flipped byte is found
// before it gives a wrong answer or a decoder's error.
var readChecks = snapshot.OpenOptions{VerifyFast: true}

// readRef is resolveRef for the commands that read a snapshot. Without a
// ref, or with "latest", it is the newest snapshot that passes the
// server's checks (readChecks): newer ones that fail are skipped with a
// warning saying which and why. A snapshot named by id or path is checked
// the same way and refused when damaged.
func readRef(log *slog.Logger, data, ref string) (snapshot.Entry, error) {
	if !isNewest(ref) || data == "" {
		e, err := resolveRef(data, ref)
		if err != nil {
			return e, err
		}
		if _, err := snapshot.Open(e.Dir, readChecks); err != nil {
			if errors.Is(err, snapshot.ErrInvalid) {
				return e, fmt.Errorf("%w (vaultgraph snapshot verify says more; the next index run writes a good snapshot)", err)
			}
			return e, err
		}
		return e, nil
	}
	s, skipped, err := snapshot.Latest(data, readChecks)
	if err != nil {
		for _, why := range skipped {
			log.Warn("skipped a snapshot that fails its checks", "err", why)
		}
		switch {
		case errors.Is(err, snapshot.ErrNotFound) && len(skipped) == 0:
			return snapshot.Entry{}, fmt.Errorf("%w: run vaultgraph index first", err)
		case errors.Is(err, snapshot.ErrNotFound):
			return snapshot.Entry{}, fmt.Errorf("%w that passes its checks (%s skipped)", err, plural(len(skipped), "damaged snapshot"))
		}
		return snapshot.Entry{}, err
	}
	for _, why := range skipped {
		log.Warn("skipped a snapshot that fails its checks; using the newest one that passes them", "err", why, "using", s.ID)
	}
	return snapshot.Entry{ID: s.ID, Dir: s.Dir}, nil
}

// isNewest reports whether a snapshot reference asks for the newest one.
func isNewest(ref string) bool { return ref == "" || ref == "latest" }

// leaseIfInData takes a lease on a snapshot of a data directory so that gc
// leaves it alone while a command reads it. It is best effort: reading a
// snapshot on a read-only mount must still work, so a lease that cannot
// be taken is logged, not fatal.
func leaseIfInData(log *slog.Logger, data string, e snapshot.Entry) func() {
	if data == "" {
		return func() {}
	}
	inData, err := filepath.Abs(snapshot.Dir(data, e.ID))
	if err != nil || inData != filepath.Clean(e.Dir) {
		return func() {}
	}
	release, err := snapshot.AcquireLease(data, e.ID)
	if err != nil {
		log.Warn("could not lease the snapshot; a concurrent gc could remove it while it is read", "id", e.ID, "err", err)
		return func() {}
	}
	return func() { _ = release() }
}

var spanUnit = regexp.MustCompile(`(\d+(?:\.\d+)?)([dw])`)

// parseSpan parses a duration in Go's syntax extended with days and
// weeks: 7d, 2w, 1d12h, 90m.
func parseSpan(s string) (time.Duration, error) {
	expanded := spanUnit.ReplaceAllStringFunc(s, func(m string) string {
		parts := spanUnit.FindStringSubmatch(m)
		n, _ := strconv.ParseFloat(parts[1], 64)
		hours := n * 24
		if parts[2] == "w" {
			hours *= 7
		}
		return strconv.FormatFloat(hours, 'f', -1, 64) + "h"
	})
	d, err := time.ParseDuration(expanded)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("duration %q: use a number and a unit, such as 90m, 36h, 7d or 2w", s)
	}
	return d, nil
}
