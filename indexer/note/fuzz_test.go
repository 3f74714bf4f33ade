package note

import (
	"fmt"
	"testing"
	"time"
)

// FuzzParse checks the invariants of checkParsed on arbitrary input: no
// panic, chunk offsets exact, links complete, valid UTF-8 everywhere. The
// seeds run as ordinary tests; crashers found by fuzzing are kept in
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		// Small inputs only: the fuzzer minimises every new input, which
		// is slow for large ones. TestRealisticNote and TestAliasBomb check
		// the large cases.
		"---\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nm: {<<: [*a]}\n---\n",
		"---\ntitle: T\ntags: [a, b]\ntype: [Person]\nup: [[Parent]]\nworks_at: \"[[Acme]]\"\n---\n# H\n[[A|b]] ![[c.png]] [d](../e.md#f) #tag\n",
		"depends_on:: [[Crawler]] {critical: true}\n- works_at:: [[Acme]], [[Initech]] {role: engineer}\n-distrusts:: [[Alice]]\n",
		"Alice [leads:: [[Search]]] and (rating:: 5) `code [[x]]` %% c [[y]] %% <!-- [[z]] -->\n$$\n[[m]]\n$$\n",
		"```\n[[A]]\n```\n~~~~\n#x\n~~~~\n",
		"---\ntitle: [\n---\nbody [[A]]\n",
		"\xff\xfe[[\xc3]]\x00",
		"^[[[footnote]]] [[a [[b]] \\[x](y) [x](<a b.md> \"t\")",
		"\uFEFF---\r\nx: 1\r\n---\r\n# h ##\r\ntext\r\n",
		"$x [[A]]$ \\$5 and $10$1 [n](My Note.md) [x](<a b.md> 'c') [y](Q/R.md (t))\n- [ ] k:: [[B]] (since:: 2020) #a→b#c…d\n",
		"Team [[T]]\n====\n- a\n---\n> q\n---\n| a |\n|---|\n\n`x` y\n  ---\n<div>\n===\n\n%%\nc\n%% Z\n-\n    z\n1. a\n\n   b\n---\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint16(0))
		f.Add([]byte(s), uint16(13))
	}
	f.Fuzz(func(t *testing.T, content []byte, chunkChars uint16) {
		opts := Options{ChunkChars: int(chunkChars % 2000)}
		// Go's fuzzer has no per-input timeout; a parse that hangs must
		// crash the worker so that the input is saved as a crasher.
		watchdog := time.AfterFunc(10*time.Second, func() {
			panic(fmt.Sprintf("Parse hung on %q", content))
		})
		p := Parse("dir/Fuzz Note.md", content, opts)
		watchdog.Stop()
		if err := checkParsed("dir/Fuzz Note.md", content, opts, p); err != nil {
			t.Fatal(err)
		}
		if err := checkSetext(p.Content); err != nil {
			t.Fatal(err)
		}
	})
}
