package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestControlCharactersAreEscaped indexes a vault whose note names and
// titles hold terminal escape sequences and prints them through the text
// outputs: no raw control character reaches stdout or stderr, each shows
// escaped.
func TestControlCharactersAreEscaped(t *testing.T) {
	vault, data := t.TempDir(), t.TempDir()
	red := "\x1b[31mRed\x07"
	files := map[string]string{
		red + ".md":  "---\ntitle: \"\\e]0;owned\\a\u009b2J\"\n---\nA note with a hostile name.\n",
		"Linker.md":  "Links to [[" + red + "]].\n",
		"Another.md": "Also [[" + red + "]] and [[Missing\x1b[0m]].\n",
		"Plain.md":   "plain\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vgOK(t, "index", "--vault", vault, "--data", data)
	for _, args := range [][]string{
		{"graph", "backlinks", "--data", data, "--source", red},
		{"query", "--data", data, "MATCH (n) RETURN n.path, n.title ORDER BY n.path"},
		{"search", "--data", data, "hostile name"},
		{"snapshot", "show", "--data", data},
		{"graph", "neighbors", "--data", data, "--source", "Nope\x1b[2J"},
	} {
		r := vg(t, args...)
		for _, out := range []string{r.stdout, r.stderr} {
			for _, c := range out {
				if (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c <= 0x9f) {
					t.Errorf("%v printed a raw control character %U:\n%q", args[:2], c, out)
					break
				}
			}
		}
		if args[1] == "backlinks" && !strings.Contains(r.stdout, `\x1b[31mRed\x07`) {
			t.Errorf("backlinks does not show the escaped name:\n%s", r.stdout)
		}
	}
}
