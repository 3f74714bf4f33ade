package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// helpCommand is "vaultgraph help [COMMAND [SUBCOMMAND]]": the same help
// as --help, on stdout, exit 0; an unknown command is a usage error. (No
// command has a help subcommand: "vaultgraph search help" searches for
// "help".)
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show help for vaultgraph or one of its commands",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Before:    takesArgs(0, many, ""),
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) == 0 {
				cli.HelpPrinter(c.App.Writer, cli.AppHelpTemplate, c.App)
				return nil
			}
			cmds := c.App.Commands
			for i, w := range words {
				cmd := findCommand(cmds, w)
				if cmd == nil {
					if i == 0 {
						return usageErrorf("unknown command %q; see %s --help", w, c.App.Name)
					}
					return usageErrorf("unknown %s command %q; see %s %s --help", strings.Join(words[:i], " "), w, c.App.Name, strings.Join(words[:i], " "))
				}
				cmds = cmd.Subcommands
			}
			// Run the app again as "vaultgraph WORDS... --help", which is
			// what --help prints, with the same writers.
			return c.App.RunContext(c.Context, append(append([]string{c.App.Name}, words...), "--help"))
		},
	}
}
