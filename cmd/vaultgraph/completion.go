package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Completes commands, subcommands, options and the values of --format.
Install it for your shell:

   bash: vaultgraph completion bash > ~/.local/share/bash-completion/completions/vaultgraph
   zsh:  vaultgraph completion zsh > "${fpath[1]}/_vaultgraph"   (or: source <(vaultgraph completion zsh))
   fish: vaultgraph completion fish > ~/.config/fish/completions/vaultgraph.fish`,
		Before: takesArgs(1, 1, ""),
		Action: func(c *cli.Context) error {
			tree := completionTree(c.App)
			switch shell := c.Args().First(); shell {
			case "bash":
				writeBashCompletion(c.App.Writer, tree)
			case "zsh":
				fmt.Fprint(c.App.Writer, "#compdef vaultgraph\n# zsh runs the bash completion through bashcompinit.\nautoload -U +X bashcompinit && bashcompinit\n")
				writeBashCompletion(c.App.Writer, tree)
			case "fish":
				writeFishCompletion(c.App.Writer, tree)
			default:
				return usageErrorf("unknown shell %q: use bash, zsh or fish; see %s --help", shell, helpName(c))
			}
			return nil
		},
	}
}

// completionNode is one command line prefix ("", "snapshot", "snapshot
// gc") with what may follow it.
type completionNode struct {
	path    string
	usage   string
	subs    []string // subcommand names
	flags   []string // --long and -s spellings
	formats []string // values of --format, if it has one
}

// completionTree lists every command path of app, the app itself first.
func completionTree(app *cli.App) []completionNode {
	root := completionNode{flags: flagSpellings(app.Flags)}
	for _, c := range app.Commands {
		if !c.Hidden {
			root.subs = append(root.subs, c.Name)
		}
	}
	root.flags = append(root.flags, "--help", "--version")
	nodes := []completionNode{root}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			n := completionNode{path: strings.TrimSpace(prefix + " " + c.Name), usage: c.Usage, flags: append(flagSpellings(c.Flags), "--help")}
			for _, s := range c.Subcommands {
				if !s.Hidden {
					n.subs = append(n.subs, s.Name)
				}
			}
			if f, ok := lookupFlag(c.Flags, "format").(*cli.StringFlag); ok {
				n.formats = formatValues(f.Usage)
			}
			if c.Name == "help" {
				n.subs = root.subs
			}
			if c.Name == "completion" {
				n.subs = []string{"bash", "zsh", "fish"}
			}
			nodes = append(nodes, n)
			walk(n.path, c.Subcommands)
		}
	}
	walk("", app.Commands)
	return nodes
}

func flagSpellings(flags []cli.Flag) []string {
	var out []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) == 1 {
				out = append(out, "-"+n)
			} else {
				out = append(out, "--"+n)
			}
		}
	}
	return out
}

// formatValues reads the values of --format from its usage ("text, markdown
// or json", "text or json: ...").
func formatValues(usage string) []string {
	usage, _, _ = strings.Cut(usage, ":")
	var out []string
	for _, w := range strings.FieldsFunc(usage, func(r rune) bool { return r == ',' || r == ' ' }) {
		if w != "or" {
			out = append(out, w)
		}
	}
	return out
}

func writeBashCompletion(w io.Writer, tree []completionNode) {
	fmt.Fprint(w, `# bash completion for vaultgraph (vaultgraph completion bash)
_vaultgraph() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path= w i
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		[[ $w == -- ]] && return 0
		case "$path:$w" in
`)
	var steps []string
	for _, n := range tree {
		for _, s := range n.subs {
			steps = append(steps, n.path+":"+s)
		}
	}
	if len(steps) > 0 {
		fmt.Fprintf(w, "\t\t%s) path=${path:+$path }$w ;;\n", strings.Join(quoteEach(steps), "|"))
	}
	fmt.Fprint(w, `		esac
	done
	local words=
	case $path in
`)
	for _, n := range tree {
		fmt.Fprintf(w, "\t%s)\n", shellQuote(n.path))
		if len(n.formats) > 0 {
			fmt.Fprintf(w, "\t\tif [[ $prev == --format || $prev == -f ]]; then\n\t\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))\n\t\t\treturn 0\n\t\tfi\n",
				shellQuote(strings.Join(n.formats, " ")))
		}
		fmt.Fprintf(w, "\t\tif [[ $cur == -* ]]; then words=%s; else words=%s; fi ;;\n",
			shellQuote(strings.Join(n.flags, " ")), shellQuote(strings.Join(n.subs, " ")))
	}
	fmt.Fprint(w, `	esac
	COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _vaultgraph vaultgraph
`)
}

func quoteEach(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = `"` + v + `"`
	}
	return out
}

func writeFishCompletion(w io.Writer, tree []completionNode) {
	fmt.Fprintln(w, "# fish completion for vaultgraph (vaultgraph completion fish)")
	fmt.Fprintln(w, "complete -c vaultgraph -f")
	// __vaultgraph_path prints the command path typed so far ("snapshot gc").
	fmt.Fprintln(w, "function __vaultgraph_path")
	fmt.Fprintln(w, "    set -l path")
	fmt.Fprintln(w, "    for w in (commandline -opc)[2..-1]")
	fmt.Fprintln(w, "        switch \"$path:$w\"")
	var steps []string
	for _, n := range tree {
		for _, s := range n.subs {
			steps = append(steps, n.path+":"+s)
		}
	}
	fmt.Fprintf(w, "            case %s\n", strings.Join(quoteEach(steps), " "))
	fmt.Fprintln(w, "                set path (string trim -- \"$path $w\")")
	fmt.Fprintln(w, "        end")
	fmt.Fprintln(w, "    end")
	fmt.Fprintln(w, "    echo $path")
	fmt.Fprintln(w, "end")
	for _, n := range tree {
		cond := fmt.Sprintf("'test (__vaultgraph_path) = %s'", fishQuote(n.path))
		if n.path == "" {
			cond = "'test -z (__vaultgraph_path)'"
		}
		for _, s := range n.subs {
			fmt.Fprintf(w, "complete -c vaultgraph -n %s -a %s\n", cond, fishQuote(s))
		}
		for _, f := range n.flags {
			spelling := "-l " + strings.TrimPrefix(f, "--")
			if !strings.HasPrefix(f, "--") {
				spelling = "-s " + strings.TrimPrefix(f, "-")
			}
			if f == "--format" && len(n.formats) > 0 {
				fmt.Fprintf(w, "complete -c vaultgraph -n %s %s -x -a %s\n", cond, spelling, fishQuote(strings.Join(n.formats, " ")))
				continue
			}
			fmt.Fprintf(w, "complete -c vaultgraph -n %s %s\n", cond, spelling)
		}
	}
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
