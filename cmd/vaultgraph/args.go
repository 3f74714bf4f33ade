package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed rewrites a command line so that options may come anywhere
// after the command, as users type them (vaultgraph search "query" --k 5,
// vaultgraph graph -d DIR backlinks --source X): urfave/cli v2 stops reading
// a command's options at its first positional argument and would take the
// rest as more arguments, silently, and it reads options written between a
// command and its subcommand as the parent's, which has none.
//
// Each option moves right after the command on the path that defines it:
// the last one (the leaf), else a parent, else the app (--log-level goes
// before the command); the arguments follow, in their order. Arguments
// after "--" stay arguments. An option nobody defines stays with the leaf,
// where cli reports it. Options written before the command, and the whole
// line of an unknown command, are left as they are. When the path ends at
// a command that needs a subcommand, the arguments come first, so that it
// names the word it does not know.
//
// It refuses, as usage errors, what only the order as written shows: an
// option that takes a value given last without one (moved, it would take
// the next word as its value), and a bare true or false after a bool
// option (cli reads "--graph false" as --graph and an argument "false").
func interspersed(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	// The app's options before the command stay there.
	i := 1
	for i < len(args) && isOption(args[i]) {
		n, err := optionLen(args, i, app.Flags)
		if err != nil {
			return nil, usageErrorf("%w; see %s --help", err, app.Name)
		}
		i += n
	}
	lead := args[:i]
	if i == len(args) || findCommand(app.Commands, args[i]) == nil {
		return args, nil
	}
	path := []*cli.Command{findCommand(app.Commands, args[i])}
	i++
	var opts [][]string
	var positional []string
	dashdash := false
	for i < len(args) {
		a := args[i]
		cmd := path[len(path)-1]
		switch {
		case a == "--":
			dashdash = true
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case isOption(a):
			n, err := optionLen(args, i, candidateFlags(app, path))
			if err != nil {
				return nil, usageErrorf("%w; see %s --help", err, helpPath(app, path))
			}
			opts = append(opts, args[i:i+n])
			i += n
		case len(positional) == 0 && findCommand(cmd.Subcommands, a) != nil:
			path = append(path, findCommand(cmd.Subcommands, a))
			i++
		default:
			positional = append(positional, a)
			i++
		}
	}

	// Each option after the command that defines it.
	var global []string
	own := make([][]string, len(path))
	for _, o := range opts {
		k := owner(app, path, o[0])
		if k < 0 {
			global = append(global, o...)
		} else {
			own[k] = append(own[k], o...)
		}
	}
	out := slices.Concat(lead, global)
	for k, cmd := range path {
		out = append(out, cmd.Name)
		if k < len(path)-1 {
			out = append(out, own[k]...)
		}
	}
	leafOpts := own[len(path)-1]
	if len(path[len(path)-1].Subcommands) > 0 {
		// No subcommand was found: its parent reports the first argument.
		return slices.Concat(out, positional, leafOpts), nil
	}
	out = append(out, leafOpts...)
	if dashdash {
		out = append(out, "--")
	}
	return append(out, positional...), nil
}

// helpPath is the command line of the last command of path:
// "vaultgraph graph backlinks".
func helpPath(app *cli.App, path []*cli.Command) string {
	names := []string{app.Name}
	for _, c := range path {
		names = append(names, c.Name)
	}
	return strings.Join(names, " ")
}

// owner is the index in path of the command whose option opt is (the
// deepest that defines it; the leaf when none does, so that cli reports
// it), or -1 for an option of the app alone. --help belongs to the leaf,
// which cli gives it only when it runs: before the command it would show
// the help of the command's first word ("snapshot" for "snapshot export
// --help").
func owner(app *cli.App, path []*cli.Command, opt string) int {
	if cli.HelpFlag != nil && lookupFlag([]cli.Flag{cli.HelpFlag}, opt) != nil {
		return len(path) - 1
	}
	for k := len(path) - 1; k >= 0; k-- {
		if lookupFlag(path[k].Flags, opt) != nil {
			return k
		}
	}
	if lookupFlag(app.Flags, opt) != nil {
		return -1
	}
	return len(path) - 1
}

// candidateFlags are the flags an option after path may be: those of the
// last command and of its subcommands (the leaf is not known yet while the
// path is being read; a test checks that the subcommands of one parent
// agree on which of their options take values), of the commands before it
// and of the app.
func candidateFlags(app *cli.App, path []*cli.Command) []cli.Flag {
	var flags []cli.Flag
	var subtree func(c *cli.Command)
	subtree = func(c *cli.Command) {
		flags = append(flags, c.Flags...)
		for _, s := range c.Subcommands {
			subtree(s)
		}
	}
	subtree(path[len(path)-1])
	for k := len(path) - 2; k >= 0; k-- {
		flags = append(flags, path[k].Flags...)
	}
	return append(flags, app.Flags...)
}

// isOption reports whether a looks like -x or --name[=value] (a lone "-"
// is an argument, conventionally standard input).
func isOption(a string) bool { return len(a) > 1 && a[0] == '-' && a != "--" }

// optionLen is how many arguments the option at args[i] spans: 2 when it
// takes a value not given with "=", else 1. It refuses an option that
// takes a value but ends the line, and a bool option followed by a bare
// true or false.
func optionLen(args []string, i int, flags []cli.Flag) (int, error) {
	opt := args[i]
	f := lookupFlag(flags, opt)
	if f == nil || strings.Contains(opt, "=") {
		return 1, nil
	}
	if takesValue(f) {
		if i+1 >= len(args) {
			return 0, fmt.Errorf("%s needs a value", opt)
		}
		return 2, nil
	}
	if i+1 < len(args) {
		if v := strings.ToLower(args[i+1]); v == "true" || v == "false" {
			return 0, fmt.Errorf("%s %s: a bool option takes its value after \"=\": write %s=%s", opt, args[i+1], opt, v)
		}
	}
	return 1, nil
}

func takesValue(f cli.Flag) bool {
	tv, ok := f.(cli.DocGenerationFlag)
	return ok && tv.TakesValue()
}

// lookupFlag finds the flag named by an option (-d, --data, --data=x).
func lookupFlag(flags []cli.Flag, opt string) cli.Flag {
	name := strings.TrimLeft(opt, "-")
	if j := strings.IndexByte(name, '='); j >= 0 {
		name = name[:j]
	}
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}
