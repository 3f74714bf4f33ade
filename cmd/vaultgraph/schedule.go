package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo"
	"github.com/vaultgraph/vaultgraph/indexer/schedule"
)

func scheduleCommand() *cli.Command {
	flags := func(defName string) []cli.Flag {
		return append(formatFlags(),
			&cli.StringFlag{Name: "vault", Aliases: []string{"v"}, Usage: "the vault's root folder", EnvVars: []string{"VAULTGRAPH_VAULT"}, Required: true},
			dataFlag(),
			&cli.StringFlag{Name: "every", Value: "15m", Usage: "time between runs: 10m, 1h, 1d"},
			&cli.StringFlag{Name: "name", Value: defName, Usage: "unit name or launchd label (one per vault)"},
			&cli.StringSliceFlag{Name: "env", Usage: "KEY=VALUE to set for the run, or KEY to copy its current value (repeatable)"},
			&cli.StringFlag{Name: "binary", Usage: "path of the vaultgraph binary to run (default: this one)"},
			&cli.StringFlag{Name: "out", Usage: "write the file(s) into this directory instead of printing them"},
			&cli.StringSliceFlag{Name: "repo", Usage: "a git repository the unit indexes beside the vault, NAME=PATH (repeatable; PATH made absolute, checked now)"},
			&cli.StringSliceFlag{Name: "repo-include", Usage: "glob of repository paths the unit reads (repeatable)"},
			&cli.StringSliceFlag{Name: "repo-exclude", Usage: "glob of repository paths the unit skips (repeatable)"},
		)
	}
	return &cli.Command{
		Name:  "schedule",
		Usage: "print a systemd timer or launchd agent that re-indexes a vault periodically",
		Description: `Prints service definitions that run "vaultgraph index --quiet" for the vault at
background priority (nice, idle I/O). Runs never overlap: the scheduler never
starts a run while one is active, and a run finding another indexer (a
watch, a manual run) exits 75 at once, which the systemd unit counts as
success. Arguments after -- are added to the index command
(e.g. -- --ignore Templates/) and checked now as index checks them at every
run; --watch and --poll (a run must end) and the options the unit sets
itself (--vault, --data, --quiet, --wait) are refused, and --log-level
replaces the unit's warn. The vault must exist, and so must every --repo
(a git working tree, whose path goes into the unit made absolute). Values of --env end up in
the unit: keep secrets in --env-file (systemd). See the README for
installing them.`,
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
	vault, err := vaultFolder(c.String("vault"))
	if err != nil {
		return j, err
	}
	data, err := dataFolder(c.String("data"))
	if err != nil {
		return j, err
	}
	if err := indexer.DataOutsideVault(vault, data); err != nil {
		return j, usageError(err)
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
	env, err := unitEnv(c.StringSlice("env"))
	if err != nil {
		return j, err
	}
	repos, err := unitRepos(c, data)
	if err != nil {
		return j, err
	}
	run := unitRun{vault: vault, data: data, repos: repos, env: env, envFile: c.String("env-file") != "", envSources: "--env"}
	if lookupFlag(c.Command.Flags, "--env-file") != nil {
		run.envSources = "--env and --env-file"
	}
	level, extra, err := checkIndexArgs(c.Context, c.Args().Slice(), run)
	if err != nil {
		return j, err
	}
	cmd := append([]string{bin, "--log-level", level}, run.indexLine()...)
	j = schedule.Job{
		Name:        c.String("name"),
		Description: "vaultgraph: re-index the vault " + vault,
		Command:     append(cmd, extra...),
		Env:         env,
		Every:       every,
	}
	return j, nil
}

// unitRepos are schedule's --repo, --repo-include and --repo-exclude as
// the unit's index options, each repository's path made absolute and
// checked now (a git working tree that does not hold data), so that the
// unit does not fail at every run.
func unitRepos(c *cli.Context, data string) ([]string, error) {
	var out []string
	for _, s := range c.StringSlice("repo") {
		r, err := indexer.ParseRepo(s)
		if err != nil {
			return nil, usageError(err)
		}
		g, err := gitrepo.Open(r.Path)
		if err != nil {
			return nil, usageErrorf("--repo %s: %v%s", s, err, tildeHint("--repo "+r.Name+"=", r.Path))
		}
		if err := indexer.DataOutsideVault(g.Root(), data); err != nil {
			return nil, usageErrorf("--repo %s: the data directory %s is inside it; put it elsewhere (vaultgraph never writes to a repository)", s, data)
		}
		out = append(out, "--repo", r.Name+"="+g.Root())
	}
	if len(out) == 0 && (c.IsSet("repo-include") || c.IsSet("repo-exclude")) {
		return nil, usageErrorf("--repo-include and --repo-exclude need a --repo NAME=PATH")
	}
	for _, g := range c.StringSlice("repo-include") {
		out = append(out, "--repo-include", g)
	}
	for _, g := range c.StringSlice("repo-exclude") {
		out = append(out, "--repo-exclude", g)
	}
	return out, nil
}

// vaultFolder is --vault made absolute. A unit's runs happen later and
// elsewhere, so a vault that is not a folder now is refused now rather
// than failing every run; so is a quoted ~, which no shell expanded.
func vaultFolder(arg string) (string, error) {
	vault, err := filepath.Abs(arg)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(vault)
	switch {
	case err == nil && fi.IsDir():
		return vault, nil
	case err == nil:
		return "", usageErrorf("--vault %q is not a folder", vault)
	case errors.Is(err, fs.ErrNotExist):
		return "", usageErrorf("--vault %q: no such folder%s", vault, tildeHint("--vault", arg))
	}
	return "", fmt.Errorf("--vault: %w", err)
}

// dataFolder is --data made absolute. It need not exist (the first run
// creates it), but a quoted ~ would make index create a folder named "~".
func dataFolder(arg string) (string, error) {
	data, err := filepath.Abs(arg)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(data); errors.Is(err, fs.ErrNotExist) && tildeHint("--data", arg) != "" {
		return "", usageErrorf("--data %q: no such folder%s", data, tildeHint("--data", arg))
	}
	return data, nil
}

// tildeHint says, for a path argument starting with ~, that the shell
// did not expand it.
func tildeHint(opt, arg string) string {
	if arg != "~" && !strings.HasPrefix(arg, "~/") {
		return ""
	}
	sep := " "
	if strings.HasSuffix(opt, "=") {
		sep = "" // --repo NAME="$HOME/…": one argument, not two
	}
	return fmt.Sprintf(" (~ is not expanded when quoted or after =: write %s%s\"$HOME%s\")", opt, sep, strings.TrimPrefix(arg, "~"))
}

// unitEnv reads --env: KEY=VALUE, or KEY for this environment's value.
func unitEnv(kvs []string) ([]string, error) {
	var env []string
	for _, kv := range kvs {
		if !strings.Contains(kv, "=") {
			v, ok := os.LookupEnv(kv)
			if !ok {
				return nil, usageError(fmt.Errorf("--env %s: not set in this environment; write %s=VALUE", kv, kv))
			}
			kv += "=" + v
		}
		env = append(env, kv)
	}
	return env, nil
}

// envNames are the names of KEY=VALUE pairs.
func envNames(env []string) string {
	names := make([]string, len(env))
	for i, kv := range env {
		names[i], _, _ = strings.Cut(kv, "=")
	}
	return strings.Join(names, ", ")
}

// unitRun is what a unit's index runs are given besides the options after
// --: the folders, the environment.
type unitRun struct {
	vault, data string
	// repos are the --repo, --repo-include and --repo-exclude options of
	// the unit's index runs, paths absolute.
	repos []string
	// env are the unit's KEY=VALUE pairs; envFile says that systemd adds
	// the variables of a file, which is read only at each run.
	env     []string
	envFile bool
	// envSources names the options that set the environment.
	envSources string
}

// indexLine is the unit's index command line before the options after
// --: a quiet run that never waits for another indexer (it exits 75 and
// the next run catches up).
func (r unitRun) indexLine() []string {
	return append([]string{"index", "--vault", r.vault, "--data", r.data, "--quiet", "--wait", "0s"}, r.repos...)
}

// getenv reads the unit's environment. An OpenAI key may be in the
// --env-file, which is not read here; it is assumed to be.
func (r unitRun) getenv(key string) string {
	for _, kv := range slices.Backward(r.env) {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	if r.envFile && (key == "VAULTGRAPH_OPENAI_KEY" || key == "OPENAI_API_KEY") {
		return "(in the --env-file)"
	}
	return ""
}

// unitOwned are the index options the unit's command line sets itself,
// and why another value after -- is refused: the last one would win
// silently.
var unitOwned = map[string]string{
	"vault": "the unit already indexes the vault of schedule's --vault; give the vault there",
	"data":  "the unit already uses the data directory of schedule's --data; give it there",
	"quiet": "the unit already runs index with --quiet",
	"wait":  "the unit runs index with --wait 0s: a run finding another indexer is skipped (exit 75, which the unit counts as success) and the next run catches up",
	"watch": "a watch never ends, and the scheduler starts a run only after the last one ended, so the unit would index once and never again; " +
		"to re-index on every change, run \"vaultgraph index --vault V --data D --watch --quiet\" as a service of its own instead of on a timer " +
		"(under systemd a user service with Restart=on-failure: README, Watch mode)",
	"repo":         repoOwned,
	"repo-include": repoOwned,
	"repo-exclude": repoOwned,
}

// repoOwned is why --repo and its globs go before --: schedule makes the
// path absolute and checks it, for runs that start elsewhere.
const repoOwned = "give --repo, --repo-include and --repo-exclude to schedule itself (before --), which makes the repository's path absolute " +
	"and checks it now; after -- a relative path would name another folder when the unit runs"

// checkIndexArgs refuses, now rather than at every run of the unit, index
// options after -- that index would refuse or that cannot work in a unit:
// it parses them as index does, refuses the options the unit sets itself
// (unitOwned; --poll is a watch too), then runs index's own checks (each
// option's, and indexOptions') on the whole command line the unit will
// run, in the unit's environment, without indexing. It returns the log
// level for the unit (warn unless --log-level is among the options, which
// the unit passes before the command) and the other options.
func checkIndexArgs(ctx context.Context, args []string, run unitRun) (level string, rest []string, err error) {
	app := newApp()
	index := findCommand(app.Commands, "index")
	// Without --help, which the app lists itself (see newApp): the flag
	// package reports it as ErrHelp below.
	known := slices.DeleteFunc(slices.Concat(index.Flags, app.Flags), func(f cli.Flag) bool { return f == cli.HelpFlag })
	fromEnv := envOptions(index.Flags, run.getenv)
	set := flag.NewFlagSet("index", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	for _, f := range known {
		if ff, ok := fieldsOf(f); ok {
			*ff.envVars = nil // this shell's environment is not the unit's
		}
		if err := f.Apply(set); err != nil {
			return "", nil, err
		}
	}
	if err := set.Parse(args); errors.Is(err, flag.ErrHelp) {
		return "", nil, usageErrorf("index options after --: --help would make every run print index's help and index nothing")
	} else if err != nil {
		return "", nil, usageError(&reworded{msg: "index options after --: " + flagErrorText(err, known), err: err})
	}
	if set.NArg() > 0 {
		extra := set.Arg(0)
		if i := len(args) - set.NArg() - 1; i >= 0 && isOption(args[i]) && (strings.EqualFold(extra, "true") || strings.EqualFold(extra, "false")) {
			before := args[i]
			return "", nil, usageErrorf("index options after --: %s %s: a bool option takes its value after \"=\": write %s=%s", before, extra, before, strings.ToLower(extra))
		}
		return "", nil, usageErrorf("index options after --: unexpected argument %q: index takes options only", extra)
	}
	if err := refuseUnitOwned(set, known); err != nil {
		return "", nil, err
	}
	level = "warn"
	if f := set.Lookup("log-level"); f != nil && isSetIn(set, "log-level") {
		level = f.Value.String()
	}
	rest = withoutOption(args, known, "log-level")

	// index's own checks, on the unit's command line.
	line := append([]string{app.Name, "--log-level", level, "index"}, fromEnv...)
	line = append(append(line, run.indexLine()[1:]...), rest...)
	index.Action = func(c *cli.Context) error {
		_, err := indexOptions(c)
		return err
	}
	app.Writer, app.ErrWriter = io.Discard, io.Discard
	app.Metadata = map[string]any{runEnvKey: run.getenv}
	if err := app.RunContext(ctx, line); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return "", nil, usageError(&reworded{msg: "index options after --: " + err.Error(), err: err})
		}
		// indexOptions' checks, which may read the environment.
		return "", nil, usageError(&reworded{msg: fmt.Sprintf("the unit's index runs would fail: %v (checked with the unit's environment, from %s, not this shell's)", err, run.envSources), err: err})
	}
	return level, rest, nil
}

// refuseUnitOwned refuses the options of unitOwned, and --poll, among
// those set has parsed.
func refuseUnitOwned(set *flag.FlagSet, known []cli.Flag) error {
	var err error
	set.Visit(func(f *flag.Flag) {
		name := lookupFlag(known, f.Name).Names()[0]
		if name == "poll" {
			name = "watch"
		}
		if why, ok := unitOwned[name]; ok && err == nil {
			err = usageErrorf("index options after --: %s: %s", dashed(f.Name, known), why)
		}
	})
	return err
}

func isSetIn(set *flag.FlagSet, name string) bool {
	found := false
	set.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// withoutOption is args without the option named name (and its value).
// Only options come before a "--"; args has been parsed already.
func withoutOption(args []string, flags []cli.Flag, name string) []string {
	var out []string
	for i := 0; i < len(args); {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		n := 1
		if isOption(a) {
			if k, err := optionLen(args, i, flags); err == nil {
				n = k
			}
		}
		if f := lookupFlag(flags, a); f == nil || f.Names()[0] != name {
			out = append(out, args[i:i+n]...)
		}
		i += n
	}
	return out
}

// envOptions are the options the unit's environment sets through flags'
// environment variables (VAULTGRAPH_EMBEDDER, OLLAMA_HOST), written as
// options so that a check without this shell's environment sees them;
// options given on the command line come after them and win, as they do
// over the environment.
func envOptions(flags []cli.Flag, getenv func(string) string) []string {
	var opts []string
	for _, f := range flags {
		ff, ok := fieldsOf(f)
		if !ok {
			continue
		}
		for _, k := range *ff.envVars {
			if v := getenv(k); v != "" {
				opts = append(opts, "--"+f.Names()[0]+"="+v)
				break
			}
		}
	}
	return opts
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
	if j.User != "" {
		vault, _ := vaultFolder(c.String("vault"))
		data, _ := dataFolder(c.String("data"))
		for _, w := range runAsWarnings(j.User, vault, data) {
			fmt.Fprintf(c.App.ErrWriter, "warning: %s\n", w)
		}
	}
	if len(j.Env) > 0 {
		// A mode of 0600 would not help: systemd shows a unit's
		// Environment= to every local user (systemctl show), and warns
		// about unit files others cannot read.
		fmt.Fprintf(c.App.ErrWriter, "warning: %s holds the values of --env %s in Environment= lines, which every local user can read "+
			"(systemctl show prints them, whatever the file's mode); put secrets such as API keys in a file of KEY=VALUE lines "+
			"with mode 0600 and pass --env-file FILE instead\n", u.ServiceName, envNames(j.Env))
	}
	if dir := c.String("out"); dir != "" {
		return writeUnits(c, dir, map[string][]byte{u.ServiceName: u.Service, u.TimerName: u.Timer}, 0o644)
	}
	if jsonOutput(c) {
		return writeJSON(c.App.Writer, unitsJSON{Files: []unitFile{{Name: u.ServiceName, Content: string(u.Service)}, {Name: u.TimerName, Content: string(u.Timer)}}})
	}
	fmt.Fprintf(c.App.Writer, "%s\n%s", u.Service, u.Timer)
	return nil
}

func runScheduleLaunchd(c *cli.Context) error {
	j, err := scheduleJob(c)
	if err != nil {
		return err
	}
	j.Name = schedule.Label(j.Name)
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
	name := j.Name + ".plist"
	if dir := c.String("out"); dir != "" {
		if len(j.Env) == 0 {
			return writeUnits(c, dir, map[string][]byte{name: plist}, 0o644)
		}
		// Only the user's launchd reads an agent; nobody else needs to
		// read the values of --env in it.
		fmt.Fprintf(c.App.ErrWriter, "%s holds the values of --env %s: writing it with mode 0600\n", name, envNames(j.Env))
		return writeUnits(c, dir, map[string][]byte{name: plist}, 0o600)
	}
	if len(j.Env) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "warning: the plist holds the values of --env %s; make the file you save it to private (chmod 600 %s), or pass --out DIR, which does\n", envNames(j.Env), name)
	}
	if jsonOutput(c) {
		return writeJSON(c.App.Writer, unitsJSON{Files: []unitFile{{Name: name, Content: string(plist)}}})
	}
	_, err = c.App.Writer.Write(plist)
	return err
}

// writeUnits writes each file into dir atomically, with mode perm, and
// names it on stdout.
func writeUnits(c *cli.Context, dir string, files map[string][]byte, perm os.FileMode) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	var written unitsJSON
	for _, name := range slices.Sorted(maps.Keys(files)) {
		body := files[name]
		p := filepath.Join(dir, name)
		err := writeFileAtomic(p, perm, func(w io.Writer) error { _, err := w.Write(body); return err })
		if err != nil {
			errs = append(errs, err)
			continue
		}
		written.Files = append(written.Files, unitFile{Name: name, Path: p})
		if !jsonOutput(c) {
			fmt.Fprintf(c.App.Writer, "wrote %s\n", p)
		}
	}
	if jsonOutput(c) {
		if err := writeJSON(c.App.Writer, written); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// unitsJSON is what schedule prints with --json: the unit files, with
// their content, or the path they were written to with --out.
type unitsJSON struct {
	Files []unitFile `json:"files"`
}

type unitFile struct {
	Name    string `json:"name"`
	Path    string `json:"path,omitempty"`
	Content string `json:"content,omitempty"`
}

// runAsWarnings says what the account a system unit runs as could not do
// with the vault (read it) and the data directory (write it, or the
// folder it would be created in), by the folders' owners and modes: the
// usual mistake of a system unit, which would otherwise show only as
// every run failing on a permission error (review5 F19).
func runAsWarnings(name, vault, data string) []string {
	u, err := user.Lookup(name)
	if err != nil {
		return []string{fmt.Sprintf("--run-as %s: no such user on this machine (%v); the unit fails to start until it exists", name, err)}
	}
	if u.Uid == "0" {
		return nil
	}
	gids, _ := u.GroupIds()
	may := func(dir string, perm fs.FileMode) (bool, string) {
		fi, err := os.Stat(dir)
		if err != nil {
			return true, ""
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return true, ""
		}
		mode := fi.Mode().Perm()
		owner := fmt.Sprint(st.Uid)
		if o, err := user.LookupId(owner); err == nil {
			owner = o.Username
		}
		desc := fmt.Sprintf("owned by %s, mode %04o", owner, mode)
		switch {
		case fmt.Sprint(st.Uid) == u.Uid:
			return mode&(perm<<6) == perm<<6, desc
		case slices.Contains(gids, fmt.Sprint(st.Gid)):
			return mode&(perm<<3) == perm<<3, desc
		}
		return mode&perm == perm, desc
	}
	var out []string
	if ok, desc := may(vault, 0o5); !ok {
		out = append(out, fmt.Sprintf("--run-as %s: the vault %s (%s) is not readable by %s; every run would fail", name, vault, desc, name))
	}
	target := data
	if _, err := os.Stat(data); err != nil {
		target = filepath.Dir(data)
	}
	if ok, desc := may(target, 0o3); !ok {
		out = append(out, fmt.Sprintf("--run-as %s: %s (%s) is not writable by %s; every run would fail: chown -R %s %s", name, target, desc, name, name, target))
	}
	return out
}
