package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer/doctor"
	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the vault, data directory, snapshots, embedder, timer and server, and say what to fix",
		Description: `Checks, in order: the vault (readable, apart from the data directory), the
data directory (writable, room for another snapshot, who holds its lock),
the newest snapshot (verified byte for byte), the newest run's warnings and
pending vectors, the recorded embedder (reachable, same model and digest,
one embedding timed), the timer or launchd agent written by vaultgraph
schedule (active, last run), a running server (--server, else the default
address) and the line that connects Claude Code. Doctor only reads: it
writes nothing and never takes the indexer's lock.

Exits 0 when everything needed works, 1 when something needs fixing (the
output names it and what to do), 2 on bad usage.`,
		Before: takesArgs(0, 0, ""),
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "data", Aliases: []string{"d"}, Usage: "data directory to check (repeatable)", EnvVars: []string{"VAULTGRAPH_DATA"}, Required: true},
			&cli.StringFlag{Name: "vault", Usage: "the vault folder (default: the one the newest snapshot was built from)", EnvVars: []string{"VAULTGRAPH_VAULT"}},
			&cli.StringFlag{Name: "server", Usage: "a running server's URL (default: " + doctor.DefaultServer + ", where nothing answering is no fault)"},
			&cli.StringFlag{Name: "token-file", Usage: "file holding the server's bearer token (else " + serve.TokenEnv + ")"},
		}, append(formatFlags(), embedderConnFlags()...)...),
		Action: runDoctor,
	}
}

func runDoctor(c *cli.Context) error {
	outFormat, err := outputFormat(c)
	if err != nil {
		return err
	}
	token, _, err := serve.LoadToken(c.String("token-file"), os.Getenv)
	if err != nil {
		return usageError(err)
	}
	var vault string
	if v := c.String("vault"); v != "" {
		if vault, err = filepath.Abs(v); err != nil {
			return err
		}
	}
	bin, _ := os.Executable()
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real
	}
	var reports []doctor.Report
	for _, d := range c.StringSlice("data") {
		if bucket.IsURL(d) {
			return usageError(bucketAsData("doctor", d))
		}
		data, err := dataFolder(d)
		if err != nil {
			return err
		}
		reports = append(reports, doctor.Run(c.Context, doctor.Config{
			Data: data, Vault: vault, Server: c.String("server"), Token: token,
			Embed: embedConfig(c), Binary: bin,
		}))
	}
	ok := true
	for _, r := range reports {
		ok = ok && r.OK
	}
	if outFormat == "json" {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			OK      bool            `json:"ok"`
			Reports []doctor.Report `json:"reports"`
		}{ok, reports}); err != nil {
			return err
		}
	} else {
		for i, r := range reports {
			if i > 0 {
				fmt.Fprintln(c.App.Writer)
			}
			writeDoctorReport(c.App.Writer, r)
		}
	}
	if !ok {
		return &exitError{code: 1, err: errors.New("")}
	}
	return nil
}

// writeDoctorReport prints one data directory's checks, a line each, with
// what to do under every check that needs it.
func writeDoctorReport(w io.Writer, r doctor.Report) {
	fmt.Fprintf(w, "vaultgraph doctor: %s\n", safeText(r.Data))
	failed := 0
	for _, ch := range r.Checks {
		fmt.Fprintf(w, "  %-4s  %-8s  %s\n", ch.Status, ch.Name, safeText(ch.Summary))
		for _, d := range ch.Details {
			fmt.Fprintf(w, "                  %s\n", safeText(d))
		}
		if ch.Fix != "" && ch.Status != doctor.OK {
			fmt.Fprintf(w, "                  -> %s\n", safeText(ch.Fix))
		}
		if ch.Status == doctor.Fail {
			failed++
		}
	}
	switch failed {
	case 0:
		fmt.Fprintln(w, "everything needed works")
	case 1:
		fmt.Fprintln(w, "1 problem needs fixing")
	default:
		fmt.Fprintf(w, "%d problems need fixing\n", failed)
	}
}

// safeText replaces control characters (a note or folder name can hold
// escape sequences) so that they cannot drive the terminal.
func safeText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '\uFFFD'
		}
		return r
	}, s)
}
