package codecontext

import (
	"path"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// How much each kind of edge between two files says that one tests, or
// depends on, the other (testEvidence, dependentEvidence).
const (
	// ByNameWeight: the test named for the file (gc_test.go for gc.go) in
	// its folder; ByNameElsewhereWeight in another folder (tests/test_cron.py
	// for app/cron.py, cmd/vaultgraph/gc_test.go for snapshot/gc.go).
	ByNameWeight          = 3.0
	ByNameElsewhereWeight = 1.5
	// CallWeight per symbol of the file called, counted for at most
	// MaxCalledSymbols; CallsSeedWeight once when one of them is a seed
	// (the anchor, or a symbol the question matched).
	CallWeight       = 0.5
	MaxCalledSymbols = 4
	CallsSeedWeight  = 2.0
	// PackageWeight is shared by the files of a package that an import of
	// the package (a Go import links to every file of its folder) or a
	// test of the whole package reaches: importing package snapshot says
	// little about snapshot/gc.go.
	PackageWeight = 1.0
	// CoEditWeight: changed together in the history.
	CoEditWeight = 0.5
	// BenchmarkShare scales the score of a test file that holds only
	// benchmarks: not a test to run for a change, so ranked last.
	BenchmarkShare = 0.01
)

// stem is a file's name without its extension.
func stem(p string) string {
	b := path.Base(p)
	return strings.TrimSuffix(b, path.Ext(b))
}

// testSubject is the name of the file a test file's name points at: gc
// for gc_test.go, cron for test_cron.py and cron.test.ts; "" for another
// name.
func testSubject(p string) string {
	base, s := path.Base(p), stem(p)
	switch {
	case strings.HasSuffix(s, "_test"):
		return strings.TrimSuffix(s, "_test")
	case strings.HasPrefix(s, "test_"):
		return strings.TrimPrefix(s, "test_")
	}
	for _, mark := range []string{".test.", ".spec."} {
		if i := strings.Index(base, mark); i > 0 {
			return base[:i]
		}
	}
	return ""
}

// benchmarksOnly reports whether test file t holds Go benchmarks and no
// test, fuzz test or example.
func (ix *Index) benchmarksOnly(t int32) bool {
	if !strings.HasSuffix(ix.nodes[t].path, "_test.go") {
		return false
	}
	bench := false
	for _, s := range ix.symbols[t] {
		name := ix.nodes[s].title
		switch {
		case strings.HasPrefix(name, "Benchmark"):
			bench = true
		case strings.HasPrefix(name, "Test"), strings.HasPrefix(name, "Fuzz"), strings.HasPrefix(name, "Example"):
			return false
		}
	}
	return bench
}

// linkEvidence is what the edges from file g (or its symbols) to file f
// (or its symbols) say: by name (g's name points at f and g tests f), the
// symbols of f that g calls, whether one of them is a seed, whether g
// reaches f only as one file of f's package, and co-edits.
type linkEvidence struct {
	byName, calledSeed, pkg, coEdit bool
	sameFolder                      bool
	called                          map[int32]bool
	why                             []string
}

// evidence collects, by the other file g (those keep accepts), the
// tests, imports and calls edges from g or its symbols into file f or its
// symbols, and co_edits either way, with the reasons as g sees them.
// The files come in the order their first edge was found.
func (ix *Index) evidence(f int32, seed map[int32]float64, keep func(g int32) bool) ([]int32, map[int32]*linkEvidence) {
	out := map[int32]*linkEvidence{}
	var order []int32
	for _, n := range append([]int32{f}, ix.symbols[f]...) {
		for _, a := range ix.adj[n] {
			g := ix.fileOf(a.to)
			if g < 0 || g == f || !keep(g) {
				continue
			}
			e := ix.edges[a.edge]
			if a.out && e.Type != format.TypeCoEdits {
				continue
			}
			ev := out[g]
			if ev == nil {
				ev = &linkEvidence{called: map[int32]bool{}}
				out[g] = ev
				order = append(order, g)
			}
			switch e.Type {
			case format.TypeTests:
				if testSubject(ix.nodes[g].path) == stem(ix.nodes[f].path) {
					ev.byName = true
					ev.sameFolder = path.Dir(ix.nodes[g].path) == path.Dir(ix.nodes[f].path)
				} else {
					ev.pkg = true
				}
			case format.TypeImports:
				ev.pkg = true
			case format.TypeCalls:
				ev.called[n] = true
				if seed[n] > 0 {
					ev.calledSeed = true
				}
			case format.TypeCoEdits:
				ev.coEdit = true
			default:
				continue
			}
			w := ix.seenFrom(a, n)
			if !slices.Contains(ev.why, w) {
				ev.why = append(ev.why, w)
			}
		}
	}
	return order, out
}

// packageFiles counts the files in f's folder that file g imports or tests
// other than by name: the files an import of f's package spreads over
// (1 outside Go, where an import names one file).
func (ix *Index) packageFiles(g, f int32) int {
	if !strings.HasSuffix(ix.nodes[f].path, ".go") {
		return 1
	}
	dir := path.Dir(ix.nodes[f].path)
	n := 0
	for _, a := range ix.adj[g] {
		e := ix.edges[a.edge]
		if !a.out || (e.Type != format.TypeImports && e.Type != format.TypeTests) || ix.nodes[a.to].kind != KindFile {
			continue
		}
		if path.Dir(ix.nodes[a.to].path) == dir && ix.nodes[a.to].repo == ix.nodes[f].repo {
			n++
		}
	}
	return max(n, 1)
}

// score weighs the evidence that g tests or depends on f.
func (ix *Index) score(ev *linkEvidence, g, f int32) float64 {
	s := 0.0
	switch {
	case ev.byName && ev.sameFolder:
		s += ByNameWeight
	case ev.byName:
		s += ByNameElsewhereWeight
	}
	s += CallWeight * float64(min(len(ev.called), MaxCalledSymbols))
	if ev.calledSeed {
		s += CallsSeedWeight
	}
	if ev.pkg {
		s += PackageWeight / float64(ix.packageFiles(g, f))
	}
	if ev.coEdit {
		s += CoEditWeight
	}
	return s
}
