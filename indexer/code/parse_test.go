package code

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func names(f File) []string {
	var out []string
	for _, s := range f.Symbols {
		out = append(out, s.Kind+" "+s.Name)
	}
	return out
}

func TestParse(t *testing.T) {
	cases := []struct {
		path, src string
		symbols   []string
		imports   []string
		calls     map[string][]string
		test      bool
	}{
		{
			path: "api/app/cron.py",
			src: `import os, json as j
from .podcast import generate_daily
from ..util.clock import now as clock_now
from . import settings

INTERVAL_SECONDS = 540

@decorator
def schedule_daily():
    if not already_ran():
        generate_daily(now())

class Runner(Base):
    def run(self):
        self.step()
        os.path.join("a")
`,
			symbols: []string{"function schedule_daily", "class Runner", "method Runner.run"},
			imports: []string{"os", "json", ".podcast:generate_daily", "..util.clock:now", ".:settings"},
			calls:   map[string][]string{"schedule_daily": {"already_ran", "generate_daily", "now"}, "Runner.run": {"step", "join"}},
		},
		{
			path: "web/src/player.tsx",
			src: `import React from "react";
import { fetchEpisode } from './api';
export { helper } from "./helpers";
const lazy = require('./lazy');

export interface Props { id: string }
export type Mode = "a" | "b";
export function Player(props: Props) {
  return fetchEpisode(props.id);
}
export const usePlayer = (id: string) => { return new Audio(load(id)); };
export class Queue {
  push(x: number) { this.items.add(x); }
}
`,
			symbols: []string{"interface Props", "type Mode", "function Player", "function usePlayer", "class Queue", "method Queue.push"},
			imports: []string{"react", "./api", "./helpers", "./lazy"},
			calls:   map[string][]string{"Player": {"fetchEpisode"}, "usePlayer": {"Audio", "load"}, "Queue.push": {"add"}},
		},
		{
			path: "pkg/feed/feed_test.go",
			src: `package feed

import (
	"testing"
	"example.com/m/pkg/clock"
)

type Feed struct{}
type Source interface{ Next() }

func (f *Feed) Poll() { clock.Now(); f.fetch() }
func init() {}
func init() { setup() }
func TestPoll(t *testing.T) { (&Feed{}).Poll() }
`,
			symbols: []string{"type Feed", "interface Source", "method Feed.Poll", "function init", "function TestPoll"},
			imports: []string{"testing", "example.com/m/pkg/clock"},
			calls:   map[string][]string{"Feed.Poll": {"Now", "fetch"}, "init": {"setup"}, "TestPoll": {"Poll"}},
			test:    true,
		},
		{path: "README.md", src: "# hi\n\ntext", symbols: nil, imports: nil},
		{path: "broken.py", src: "def ok():\n    pass\n\ndef (:\n", symbols: []string{"function ok"}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			f := Parse(c.path, []byte(c.src))
			if diff := cmp.Diff(c.symbols, names(f)); diff != "" {
				t.Errorf("symbols (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.imports, f.Imports); diff != "" {
				t.Errorf("imports (-want +got):\n%s", diff)
			}
			for _, s := range f.Symbols {
				if want, ok := c.calls[s.Name]; ok {
					if diff := cmp.Diff(want, s.Calls); diff != "" {
						t.Errorf("calls of %s (-want +got):\n%s", s.Name, diff)
					}
				}
			}
			if f.Test != c.test {
				t.Errorf("test = %v, want %v", f.Test, c.test)
			}
		})
	}
}

func TestLines(t *testing.T) {
	for src, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\nb\n": 2} {
		if got := Parse("x.txt", []byte(src)).Lines; got != want {
			t.Errorf("lines of %q = %d, want %d", src, got, want)
		}
	}
}
