package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInterspersed(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Options after the query move before it, with their values.
		{`search --data D query --k 5`, `search --data D --k 5 query`},
		{`search query -d D --k=5 --format json`, `search -d D --k=5 --format json query`},
		// A bool option takes no value: the argument after it stays one.
		{`index --vault V --data D --full`, `index --vault V --data D --full`},
		{`index --full --vault V --data D`, `index --full --vault V --data D`},
		// Subcommands, and arguments on both sides of options.
		{`snapshot diff A --data D B --format json`, `snapshot diff --data D --format json A B`},
		// The app's own option moves before the command.
		{`index --vault V --data D --log-level debug`, `--log-level debug index --vault V --data D`},
		{`--log-level warn search -d D q`, `--log-level warn search -d D q`},
		// After "--" everything is an argument, even what looks like an option.
		{`search -d D -- --k 5`, `search -d D -- --k 5`},
		{`search -d D q -- -x`, `search -d D -- q -x`},
		// An unknown option stays with the command, where cli reports it.
		{`search q --bogus -d D`, `search --bogus -d D q`},
		// A lone "-" is an argument; unknown commands are left alone.
		{`query -d D -`, `query -d D -`},
		{`frobnicate --x y`, `frobnicate --x y`},
		{``, ``},
	} {
		in := append([]string{"vaultgraph"}, strings.Fields(tc.in)...)
		want := append([]string{"vaultgraph"}, strings.Fields(tc.want)...)
		if diff := cmp.Diff(want, interspersed(newApp(), in)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
}
