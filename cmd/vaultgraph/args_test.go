package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

func TestInterspersed(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Options after the query move before it, with their values.
		{`search --data D query --k 5`, `search --data D --k 5 query`},
		{`search query -d D --k=5 --format json`, `search -d D --k=5 --format json query`},
		// A bool option takes no value: the argument after it stays one.
		{`index --vault V --data D --full`, `index --vault V --data D --full`},
		{`index --full --vault V --data D`, `index --full --vault V --data D`},
		{`index --graph=false --vault V --data D`, `index --graph=false --vault V --data D`},
		// Subcommands, and arguments on both sides of options.
		{`snapshot diff A --data D B --format json`, `snapshot diff --data D --format json A B`},
		// Options between a command and its subcommand belong to the
		// subcommand (the parents have no options of their own); a data
		// directory named like a subcommand is still a value.
		{`graph -d D backlinks --source Bob`, `graph backlinks -d D --source Bob`},
		{`graph --source Bob -d D path --target Zoë`, `graph path --source Bob -d D --target Zoë`},
		{`snapshot -d list list --json`, `snapshot list -d list --json`},
		{`graph --log-level debug -d D backlinks`, `--log-level debug graph backlinks -d D`},
		// Without a known subcommand the parent gets the unknown word
		// first, to name it.
		{`graph bogus --source Bob`, `graph bogus --source Bob`},
		{`graph -d D bogus x`, `graph bogus x -d D`},
		{`graph -d D`, `graph -d D`},
		// The app's own option moves before the command.
		{`index --vault V --data D --log-level debug`, `--log-level debug index --vault V --data D`},
		{`--log-level warn search -d D q`, `--log-level warn search -d D q`},
		// After "--" everything is an argument, even what looks like an option.
		{`search -d D -- --k 5`, `search -d D -- --k 5`},
		{`search -d D q -- -x`, `search -d D -- q -x`},
		{`schedule systemd -v V -d D -- --ignore T/`, `schedule systemd -v V -d D -- --ignore T/`},
		// An unknown option stays with the command, where cli reports it.
		{`search q --bogus -d D`, `search --bogus -d D q`},
		// A lone "-" is an argument; unknown commands are left alone.
		{`query -d D -`, `query -d D -`},
		{`frobnicate --x y`, `frobnicate --x y`},
		{`--log-level debug`, `--log-level debug`},
		{``, ``},
	} {
		in := append([]string{"vaultgraph"}, strings.Fields(tc.in)...)
		want := append([]string{"vaultgraph"}, strings.Fields(tc.want)...)
		got, err := interspersed(newApp(), in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestInterspersedRefuses covers what only the order as written shows:
// moved, a value-taking option given last would swallow the next word,
// and "--graph false" is --graph and an argument.
func TestInterspersedRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`search -d D who --k`, `--k needs a value; see vaultgraph search --help`},
		{`search -d D who --log-level`, `--log-level needs a value; see vaultgraph search --help`},
		{`--log-level`, `--log-level needs a value; see vaultgraph --help`},
		{`graph backlinks --source`, `--source needs a value; see vaultgraph graph backlinks --help`},
		{`index --vault V --data D --graph false`, `--graph false: a bool option takes its value after "=": write --graph=false`},
		{`graph -d D --follow-tags TRUE backlinks`, `write --follow-tags=true`},
	} {
		_, err := interspersed(newApp(), append([]string{"vaultgraph"}, strings.Fields(tc.in)...))
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want a usage error containing %q", tc.in, err, tc.want)
		}
	}
}

// TestSubcommandOptionsAgree checks what interspersed relies on to read
// options written before a subcommand: the subcommands of one parent agree
// on which of their options take a value.
func TestSubcommandOptionsAgree(t *testing.T) {
	var walk func(c *cli.Command)
	walk = func(c *cli.Command) {
		takes := map[string]string{}
		for _, sub := range c.Subcommands {
			for _, f := range candidateFlags(newApp(), []*cli.Command{sub}) {
				for _, name := range f.Names() {
					v := "bool"
					if takesValue(f) {
						v = "value"
					}
					if prev, ok := takes[name]; ok && prev != v {
						t.Errorf("%s: option %s is a %s in one subcommand and takes a %s in %s", c.Name, name, prev, v, sub.Name)
					}
					takes[name] = v
				}
			}
			walk(sub)
		}
	}
	for _, c := range newApp().Commands {
		walk(c)
	}
}
