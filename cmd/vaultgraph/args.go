package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed rewrites a command line so that options may follow the
// positional arguments, as users type them (vaultgraph search "query" --k 5):
// urfave/cli v2 stops reading a command's options at its first positional
// argument and would take the rest as more arguments, silently. The
// command's options are moved before its arguments, and the app's own
// options (--log-level) before the command. Arguments after "--" stay
// arguments, and an option the command does not know stays where cli
// reports it.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	i := 1
	// The app's options before the command.
	for i < len(args) && isOption(args[i]) {
		n := optionLen(app.Flags, args, i)
		out = append(out, args[i:i+n]...)
		i += n
	}
	// The command path: command, subcommand, ...
	var cmd *cli.Command
	cmds := app.Commands
	var path []string
	for i < len(args) {
		next := findCommand(cmds, args[i])
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		path = append(path, args[i])
		i++
	}
	if cmd == nil {
		return args
	}
	var global, own, positional []string
	dashdash := false
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--":
			dashdash = true
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case !isOption(a):
			positional = append(positional, a)
			i++
		case lookupFlag(cmd.Flags, a) == nil && lookupFlag(app.Flags, a) != nil:
			n := optionLen(app.Flags, args, i)
			global = append(global, args[i:i+n]...)
			i += n
		default:
			n := optionLen(cmd.Flags, args, i)
			own = append(own, args[i:i+n]...)
			i += n
		}
	}
	out = append(out, global...)
	out = append(out, path...)
	out = append(out, own...)
	if dashdash {
		out = append(out, "--")
	}
	return append(out, positional...)
}

// isOption reports whether a looks like -x or --name[=value] (a lone "-"
// is an argument, conventionally standard input).
func isOption(a string) bool { return len(a) > 1 && a[0] == '-' && a != "--" }

// optionLen is how many arguments the option at args[i] spans: 2 when it
// takes a value not given with "=", else 1.
func optionLen(flags []cli.Flag, args []string, i int) int {
	if strings.Contains(args[i], "=") || i+1 >= len(args) {
		return 1
	}
	f := lookupFlag(flags, args[i])
	if f == nil {
		return 1
	}
	if tv, ok := f.(cli.DocGenerationFlag); ok && tv.TakesValue() {
		return 2
	}
	return 1
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
