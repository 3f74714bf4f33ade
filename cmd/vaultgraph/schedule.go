package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer/schedule"
)

func scheduleCommand() *cli.Command {
	flags := func(defName string) []cli.Flag {
		return []cli.Flag{
			&cli.StringFlag{Name: "vault", Aliases: []string{"v"}, Usage: "the vault's root folder", EnvVars: []string{"VAULTGRAPH_VAULT"}, Required: true},
			dataFlag(),
			&cli.StringFlag{Name: "every", Value: "15m", Usage: "time between runs: 10m, 1h, 1d"},
			&cli.StringFlag{Name: "name", Value: defName, Usage: "unit name or launchd label (one per vault)"},
			&cli.StringSliceFlag{Name: "env", Usage: "KEY=VALUE to set for the run, or KEY to copy its current value (repeatable)"},
			&cli.StringFlag{Name: "binary", Usage: "path of the vaultgraph binary to run (default: this one)"},
			&cli.StringFlag{Name: "out", Usage: "write the file(s) into this directory instead of printing them"},
		}
	}
	return &cli.Command{
		Name:  "schedule",
		Usage: "print a systemd timer or launchd agent that re-indexes a vault periodically",
		Description: `Prints service definitions that run "vaultgraph index --quiet" for the vault at
background priority (nice, idle I/O). Runs never overlap: the scheduler never
starts a run while one is active, and a run finding another indexer (a
watch, a manual run) exits 75 at once, which the systemd unit counts as
success. Arguments after -- are added to the index command
(e.g. -- --ignore Templates/). See the README for installing them.`,
		Subcommands: []*cli.Command{
			{
				Name:      "systemd",
				Usage:     "print a systemd service and timer (user units by default)",
				ArgsUsage: "[-- INDEX FLAGS...]",
				Before:    takesArgs(0, many, ""),
				Flags: append(flags("vaultgraph-index"),
					&cli.StringFlag{Name: "env-file", Usage: "file of KEY=VALUE lines systemd reads at each run (for secrets)"},
					&cli.StringFlag{Name: "run-as", Usage: "for a system unit: the user account to run as"}),
				Action: runScheduleSystemd,
			},
			{
				Name:      "launchd",
				Usage:     "print a launchd agent (macOS)",
				ArgsUsage: "[-- INDEX FLAGS...]",
				Before:    takesArgs(0, many, ""),
				Flags: append(flags("com.github.vaultgraph.index"),
					&cli.StringFlag{Name: "log", Usage: "file launchd appends the run's output to (default ~/Library/Logs/NAME.log)"}),
				Action: runScheduleLaunchd,
			},
		},
	}
}

// scheduleJob builds the job both schedulers run.
func scheduleJob(c *cli.Context) (schedule.Job, error) {
	var j schedule.Job
	every, err := parseSpan(c.String("every"))
	if err != nil {
		return j, usageError(fmt.Errorf("--every: %w", err))
	}
	vault, err := filepath.Abs(c.String("vault"))
	if err != nil {
		return j, err
	}
	data, err := filepath.Abs(c.String("data"))
	if err != nil {
		return j, err
	}
	bin := c.String("binary")
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return j, fmt.Errorf("find this binary: %w (pass --binary)", err)
		}
		if real, err := filepath.EvalSymlinks(bin); err == nil {
			bin = real
		}
		if strings.Contains(bin, "go-build") {
			fmt.Fprintf(c.App.ErrWriter, "warning: %s is a temporary binary of go run; install vaultgraph and pass --binary\n", bin)
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return j, err
	}
	if err := checkIndexArgs(c.Args().Slice()); err != nil {
		return j, err
	}
	cmd := []string{bin, "--log-level", "warn", "index", "--vault", vault, "--data", data, "--quiet", "--wait", "0s"}
	cmd = append(cmd, c.Args().Slice()...)
	var env []string
	for _, kv := range c.StringSlice("env") {
		if !strings.Contains(kv, "=") {
			v, ok := os.LookupEnv(kv)
			if !ok {
				return j, usageError(fmt.Errorf("--env %s: not set in this environment; write %s=VALUE", kv, kv))
			}
			kv += "=" + v
		}
		env = append(env, kv)
	}
	j = schedule.Job{
		Name:        c.String("name"),
		Description: "vaultgraph: re-index the vault " + vault,
		Command:     cmd,
		Env:         env,
		Every:       every,
	}
	return j, nil
}

// checkIndexArgs refuses, now rather than at every run of the unit, index
// options after -- that index would refuse: unknown options and arguments.
func checkIndexArgs(args []string) error {
	flags := indexCommand().Flags
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range flags {
		if err := f.Apply(fs); err != nil {
			return err
		}
	}
	if err := fs.Parse(args); err != nil {
		return usageError(&reworded{msg: "index options after --: " + flagErrorText(err, flags), err: err})
	}
	if fs.NArg() == 0 {
		return nil
	}
	extra := fs.Arg(0)
	if i := len(args) - fs.NArg() - 1; i >= 0 && isOption(args[i]) && (strings.EqualFold(extra, "true") || strings.EqualFold(extra, "false")) {
		before := args[i]
		return usageErrorf("index options after --: %s %s: a bool option takes its value after \"=\": write %s=%s", before, extra, before, strings.ToLower(extra))
	}
	return usageErrorf("index options after --: unexpected argument %q: index takes options only", extra)
}

func runScheduleSystemd(c *cli.Context) error {
	j, err := scheduleJob(c)
	if err != nil {
		return err
	}
	if f := c.String("env-file"); f != "" {
		if j.EnvFile, err = filepath.Abs(f); err != nil {
			return err
		}
	}
	j.User = c.String("run-as")
	u, err := schedule.Systemd(j)
	if err != nil {
		return usageError(err)
	}
	if dir := c.String("out"); dir != "" {
		return writeUnits(c, dir, map[string][]byte{u.ServiceName: u.Service, u.TimerName: u.Timer})
	}
	fmt.Fprintf(c.App.Writer, "%s\n%s", u.Service, u.Timer)
	return nil
}

func runScheduleLaunchd(c *cli.Context) error {
	j, err := scheduleJob(c)
	if err != nil {
		return err
	}
	j.LogPath = c.String("log")
	if j.LogPath == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("no home directory for the log: %w (pass --log)", err)
		}
		j.LogPath = filepath.Join(home, "Library", "Logs", j.Name+".log")
	}
	if j.LogPath, err = filepath.Abs(j.LogPath); err != nil {
		return err
	}
	plist, err := schedule.Launchd(j)
	if err != nil {
		return usageError(err)
	}
	if dir := c.String("out"); dir != "" {
		return writeUnits(c, dir, map[string][]byte{j.Name + ".plist": plist})
	}
	_, err = c.App.Writer.Write(plist)
	return err
}

// writeUnits writes each file into dir atomically and names it on stdout.
func writeUnits(c *cli.Context, dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(files)) {
		body := files[name]
		p := filepath.Join(dir, name)
		err := writeFileAtomic(p, func(w io.Writer) error { _, err := w.Write(body); return err })
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(c.App.Writer, "wrote %s\n", p)
	}
	return errors.Join(errs...)
}
