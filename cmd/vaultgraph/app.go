package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
)

func newApp() *cli.App {
	// cli's hook for flags' help lines; the same function every time.
	useFlagHelp.Do(func() {
		cli.FlagStringer = flagHelp
		// -v is --vault (index, schedule); a short flag has one meaning.
		cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version"}
	})
	app := &cli.App{
		Name:    "vaultgraph",
		Usage:   "index an Obsidian vault into immutable snapshots and query them",
		Version: toolVersion(),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error (logs go to stderr)", EnvVars: []string{"VAULTGRAPH_LOG_LEVEL"}, Action: checkLogLevel},
			// cli adds --help itself only when no command is named help.
			cli.HelpFlag,
		},
		Commands: []*cli.Command{
			indexCommand(),
			snapshotCommand(),
			demoCommand(),
			genCommand(),
			searchCommand(),
			queryCommand(),
			graphCommand(),
			retrieveCommand(),
			retrieveContextCommand(),
			divergenceCommand(),
			serveCommand(),
			scheduleCommand(),
			completionCommand(),
			helpCommand(),
			doctorCommand(),
		},
		// Errors go back to main, which prints them and picks the exit code.
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: true,
		// No command, or an unknown one, is a usage error. (cli's
		// CommandNotFound cannot return one, and cli also calls it for the
		// first argument of a command missing a required option.)
		Action:       appAction,
		OnUsageError: onUsageError,
		Writer:       newTextWriter(os.Stdout),
		ErrWriter:    stderr,
	}
	prepareCommands(app.Commands)
	return app
}

// dataFlag is the --data flag every command that reads snapshots takes.
func dataFlag() cli.Flag {
	return &cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "data directory holding the snapshots", EnvVars: []string{"VAULTGRAPH_DATA"}, Required: true, Action: localData}
}

// localData refuses a bucket URL as --data of a command that reads or
// writes a local data directory, which would otherwise make a folder
// named s3: in the working directory.
func localData(c *cli.Context, v string) error {
	if !bucket.IsURL(v) {
		return nil
	}
	var path []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name {
			path = append([]string{ctx.Command.Name}, path...)
		}
	}
	return usageError(bucketAsData(strings.Join(path, " "), v))
}

// bucketAsData says what to do instead of giving command a bucket as
// --data.
func bucketAsData(command, url string) error {
	if command == "index" {
		return fmt.Errorf("--data %s is a bucket; vaultgraph index writes to a local data directory: index into one and push to the bucket with --push %s", url, url)
	}
	return fmt.Errorf("--data %s is a bucket; vaultgraph %s works on a local data directory: bring the bucket's snapshots into one with vaultgraph snapshot pull %s --data DIR (serve and snapshot gc take a bucket as --data)", url, command, url)
}

// logger returns the stderr logger configured by --log-level.
func logger(c *cli.Context) *slog.Logger {
	return newLogger(stderr, logLevel(c))
}

// logLevel is --log-level, except that --quiet (of the commands that have
// it) makes it warn unless --log-level was given (or VAULTGRAPH_LOG_LEVEL
// set): a quiet run prints warnings and errors only.
func logLevel(c *cli.Context) string {
	if c.Bool("quiet") && !c.IsSet("log-level") {
		return "warn"
	}
	return c.String("log-level")
}

func newLogger(w io.Writer, level string) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slogLevel(level)}))
}

// slogLevel reads a --log-level value; anything else is info.
func slogLevel(level string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		l = slog.LevelInfo
	}
	return l
}

// toolVersion is the stamped version, else the module version the binary
// was built from, else "dev".
func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
