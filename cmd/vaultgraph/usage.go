package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
)

// Usage errors (exit status 2) are everything the user has to change in
// the command line: an unknown command or option, a value out of range or
// of the wrong kind, missing or extra arguments, a query that does not
// parse, and a name the data does not resolve to exactly one thing (a
// note, a snapshot id or prefix). A valid request that fails (file system,
// damaged snapshot, no snapshot yet, engine errors) exits 1.

// usageError marks err as a usage error: main exits 2.
func usageError(err error) error { return &exitError{code: 2, err: err} }

func usageErrorf(format string, args ...any) error {
	return usageError(fmt.Errorf(format, args...))
}

// reworded is an error shown with other words (the command line's names
// for what a library calls otherwise) that keeps the original's chain.
type reworded struct {
	msg string
	err error
}

func (r *reworded) Error() string { return r.msg }
func (r *reworded) Unwrap() error { return r.err }

// prepareCommands gives every command the usage conventions: usage errors
// exit 2, a missing required option is one of them (see requireOptions),
// "help" is never a subcommand (search help searches for "help";
// --help shows help), and a command with subcommands refuses to run
// without one.
func prepareCommands(cmds []*cli.Command) {
	for _, c := range cmds {
		c.HideHelpCommand = true
		requireOptions(c)
		if lookupFlag(c.Flags, "json") != nil {
			before := c.Before
			c.Before = func(ctx *cli.Context) error {
				if err := checkFormat(ctx); err != nil {
					return err
				}
				if before != nil {
					return before(ctx)
				}
				return nil
			}
		}
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
		if len(c.Subcommands) > 0 && c.Action == nil {
			needsSubcommand(c, "command")
		}
		prepareCommands(c.Subcommands)
	}
}

var goFlagName = regexp.MustCompile(`(flag provided but not defined: |flag needs an argument: |for flag )-([^\s:]+)`)

// onUsageError turns the errors cli reports while parsing options into
// usage errors, in the options' own spelling (--source, not -source), with
// where to look.
func onUsageError(c *cli.Context, err error, _ bool) error {
	var flags []cli.Flag
	if c.Command != nil {
		flags = c.Command.Flags
	}
	return usageError(&reworded{msg: flagErrorText(err, flags) + "; see " + helpName(c) + " --help", err: err})
}

// flagErrorText is the message of an error of Go's flag package about one
// of flags, with the option spelled as it is written.
func flagErrorText(err error, flags []cli.Flag) string {
	return goFlagName.ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := goFlagName.FindStringSubmatch(m)
		opt := dashed(sub[2], flags)
		switch sub[1] {
		case "flag provided but not defined: ":
			return "unknown option " + opt
		case "flag needs an argument: ":
			return opt + " needs a value"
		}
		return "for " + opt
	})
}

// dashed spells the option of one of flags as it is written: -d, --data,
// and --k (one letter, but a name rather than a short alias).
func dashed(name string, flags []cli.Flag) string {
	if f := lookupFlag(flags, name); len(name) > 1 || (f != nil && f.Names()[0] == name) {
		return "--" + name
	}
	return "-" + name
}

// helpName is the command line that names c's command: "vaultgraph
// snapshot gc".
func helpName(c *cli.Context) string {
	if c.Command != nil && c.Command.HelpName != "" {
		return c.Command.HelpName
	}
	if c.Command != nil && c.Command.Name != "" {
		return c.App.Name + " " + c.Command.Name
	}
	return c.App.Name
}

// commandName is helpName without the program: "snapshot gc".
func commandName(c *cli.Context) string {
	return strings.TrimPrefix(helpName(c), c.App.Name+" ")
}

// needsSubcommand makes cmd refuse to run without one of its
// subcommands, which it calls its noun ("action", "command"): alone it
// prints its help on stderr; with an unknown word it names it; with only
// options it says they need the subcommand first. All exit 2.
func needsSubcommand(cmd *cli.Command, noun string) {
	names := func() string {
		var n []string
		for _, s := range cmd.Subcommands {
			if !s.Hidden {
				n = append(n, s.Name)
			}
		}
		return strings.Join(n, ", ")
	}
	cmd.Action = func(c *cli.Context) error {
		if c.NArg() == 0 {
			cli.HelpPrinter(c.App.ErrWriter, cli.SubcommandHelpTemplate, c.Command)
			return usageErrorf("%s needs %s %s: %s", commandName(c), article(noun), noun, names())
		}
		return usageErrorf("unknown %s %s %q (%s); see %s --help", commandName(c), noun, c.Args().First(), names(), helpName(c))
	}
	cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
		if !slices.ContainsFunc(c.Command.Flags, func(f cli.Flag) bool { return f != cli.HelpFlag }) {
			// It has no options of its own: they are a subcommand's.
			return usageError(&reworded{
				msg: fmt.Sprintf("%s needs %s %s before its options: %s; see %s --help", commandName(c), article(noun), noun, names(), helpName(c)),
				err: err,
			})
		}
		return onUsageError(c, err, true)
	}
}

func article(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}

// appAction runs when no command is named: like git, the app alone prints
// its help on stderr and exits 2, and an unknown command is named.
func appAction(c *cli.Context) error {
	if c.NArg() == 0 {
		cli.HelpPrinter(c.App.ErrWriter, cli.AppHelpTemplate, c.App)
		return usageErrorf("missing command; see %s --help", c.App.Name)
	}
	return usageErrorf("unknown command %q; see %s --help", c.Args().First(), c.App.Name)
}

// many is the most arguments of a command that takes any number of them
// (the words of a query).
const many = -1

// takesArgs returns the Before hook of a command that takes between min
// and max positional arguments (max may be many): any other number is a
// usage error, never silently ignored. hint, when set, says what to do
// about too many.
func takesArgs(min, max int, hint string) cli.BeforeFunc {
	return func(c *cli.Context) error {
		n := c.NArg()
		if n >= min && (max == many || n <= max) {
			return nil
		}
		if n < min {
			return usageErrorf("%s: missing %s; see %s --help", commandName(c), c.Command.ArgsUsage, helpName(c))
		}
		var msg string
		switch {
		case max == 0:
			msg = fmt.Sprintf("%s takes no arguments, got %s", commandName(c), quoteAll(c.Args().Slice()))
		case min == max:
			msg = fmt.Sprintf("%s takes %s, got %d: %s", commandName(c), plural(max, "argument"), n, quoteAll(c.Args().Slice()))
		default:
			msg = fmt.Sprintf("%s takes at most %s, got %d: %s", commandName(c), plural(max, "argument"), n, quoteAll(c.Args().Slice()))
		}
		if hint != "" {
			msg += " (" + hint + ")"
		}
		return usageErrorf("%s; see %s --help", msg, helpName(c))
	}
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, " ")
}

// atLeast is the Action of an integer option: a value below min is a usage
// error rather than one the library would replace with its default.
func atLeast[T int | int64](name string, min T) func(*cli.Context, T) error {
	return func(_ *cli.Context, v T) error {
		switch {
		case v >= min:
			return nil
		case min == 0:
			return usageErrorf("--%s must not be negative, not %d", name, v)
		}
		return usageErrorf("--%s must be at least %d, not %d", name, min, v)
	}
}

// between is the Action of an integer option from min to max.
func between(name string, min, max int) func(*cli.Context, int) error {
	return func(c *cli.Context, v int) error {
		if v > max {
			return usageErrorf("--%s must be at most %d, not %d", name, max, v)
		}
		return atLeast(name, min)(c, v)
	}
}

// maxMiB bounds the memory options (MiB): 1 TiB, far above any machine this
// runs on, and far below where shifting MiB into bytes overflows.
const maxMiB = 1 << 20

// mib is the Action of a memory option in MiB: at least 1, at most maxMiB.
func mib(name string) func(*cli.Context, int) error {
	return func(c *cli.Context, v int) error {
		if v > maxMiB {
			return usageErrorf("--%s must be at most %d (1 TiB), not %d", name, maxMiB, v)
		}
		return atLeast(name, 1)(c, v)
	}
}

// positive is the Action of a duration option that must be more than 0.
func positive(name string) func(*cli.Context, time.Duration) error {
	return atLeastDuration(name, time.Nanosecond)
}

// notNegative is the Action of a duration option for which 0 means "not
// at all" (--wait 0s: do not wait).
func notNegative(name string) func(*cli.Context, time.Duration) error {
	return atLeastDuration(name, 0)
}

// atLeastDuration is the Action of a duration option: a value below min
// is a usage error.
func atLeastDuration(name string, min time.Duration) func(*cli.Context, time.Duration) error {
	return func(_ *cli.Context, v time.Duration) error {
		switch {
		case v >= min:
			return nil
		case min == 0:
			return usageErrorf("--%s must not be negative, not %s", name, v)
		case min == time.Nanosecond:
			return usageErrorf("--%s must be positive, not %s", name, v)
		}
		return usageErrorf("--%s must be at least %s, not %s", name, min, v)
	}
}

// logLevels are the values of --log-level.
var logLevels = []string{"debug", "info", "warn", "error"}

func checkLogLevel(_ *cli.Context, v string) error {
	for _, l := range logLevels {
		if strings.EqualFold(v, l) {
			return nil
		}
	}
	return usageErrorf("--log-level %q: use %s", v, strings.Join(logLevels, ", "))
}

// requiredMark ends the usage of a required option in help.
const requiredMark = "(required)"

// requireOptions checks cmd's required options itself, in its Before hook,
// instead of cli: cli prints the command's whole help before its error for
// a missing one. A missing required option is a usage error that names it
// and where to look, like any other; help marks the option "(required)"
// and shows no default for it.
func requireOptions(cmd *cli.Command) {
	var names []string
	for _, f := range cmd.Flags {
		if rf, ok := f.(cli.RequiredFlag); ok && rf.IsRequired() && unrequire(f) {
			names = append(names, f.Names()[0])
		}
	}
	if len(names) == 0 {
		return
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		var missing []string
		for _, n := range names {
			if !c.IsSet(n) {
				missing = append(missing, "--"+n)
			}
		}
		if len(missing) > 0 {
			noun := "option"
			if len(missing) > 1 {
				noun = "options"
			}
			return usageErrorf("missing required %s %s; see %s --help", noun, strings.Join(missing, ", "), helpName(c))
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}

// unrequire turns off cli's check of a required option and marks it in
// its usage; false for a kind of flag fieldsOf does not know.
func unrequire(f cli.Flag) bool {
	ff, ok := fieldsOf(f)
	if ok {
		*ff.required = false
		*ff.usage = strings.TrimSpace(*ff.usage + " " + requiredMark)
	}
	return ok
}

// flagFields are the fields of a cli flag that vaultgraph rewrites, which
// every kind of flag has but no interface reaches.
type flagFields struct {
	required *bool
	usage    *string
	envVars  *[]string
}

// fieldsOf returns f's fields, or false for a kind of flag it does not
// know (a test checks that it knows every flag of every command).
func fieldsOf(f cli.Flag) (flagFields, bool) {
	switch f := f.(type) {
	case *cli.StringFlag:
		return flagFields{&f.Required, &f.Usage, &f.EnvVars}, true
	case *cli.BoolFlag:
		return flagFields{&f.Required, &f.Usage, &f.EnvVars}, true
	case *cli.IntFlag:
		return flagFields{&f.Required, &f.Usage, &f.EnvVars}, true
	case *cli.Int64Flag:
		return flagFields{&f.Required, &f.Usage, &f.EnvVars}, true
	case *cli.DurationFlag:
		return flagFields{&f.Required, &f.Usage, &f.EnvVars}, true
	case *cli.StringSliceFlag:
		return flagFields{&f.Required, &f.Usage, &f.EnvVars}, true
	case *cli.PathFlag:
		return flagFields{&f.Required, &f.Usage, &f.EnvVars}, true
	case *cli.GenericFlag:
		return flagFields{&f.Required, &f.Usage, &f.EnvVars}, true
	}
	return flagFields{}, false
}

// cliFlagHelp is cli's own help line of a flag, which flagHelp trims.
var cliFlagHelp = cli.FlagStringer

var useFlagHelp sync.Once

// flagHelp is a flag's line in help: cli's, without cli's "(default: X)"
// where X is not a value the option takes and would mislead: a required
// option's zero value (--keep: "default: 0"), and a zero value the
// option's own check refuses, which stands for "not set" (--chunk-chars,
// --poll, --max-depth: the usage says what not setting it means).
func flagHelp(f cli.Flag) string {
	line := cliFlagHelp(f)
	df, ok := f.(cli.DocGenerationFlag)
	if !ok || !defaultMisleads(f, df) {
		return line
	}
	cut := " (default: " + df.GetDefaultText() + ")"
	if i := strings.LastIndex(line, cut); i >= 0 {
		line = line[:i] + line[i+len(cut):]
	}
	return line
}

// defaultMisleads reports whether cli's "(default: X)" for f would show a
// value the option never takes (see flagHelp). Help text set on purpose
// (DefaultText) always shows.
func defaultMisleads(f cli.Flag, df cli.DocGenerationFlag) bool {
	if strings.HasSuffix(df.GetUsage(), requiredMark) {
		return true
	}
	// The numbers' Actions never use their context (TestEveryNumberIsChecked
	// calls them with none too).
	switch f := f.(type) {
	case *cli.IntFlag:
		return f.DefaultText == "" && f.Action != nil && f.Action(nil, f.Value) != nil
	case *cli.Int64Flag:
		return f.DefaultText == "" && f.Action != nil && f.Action(nil, f.Value) != nil
	case *cli.DurationFlag:
		return f.DefaultText == "" && f.Action != nil && f.Action(nil, f.Value) != nil
	}
	return false
}
