package indexer

import (
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

func TestDisjointBuildConstraintsLinkNothing(t *testing.T) {
	files := []format.CodeFile{
		{ID: "code:w/go.mod", Path: "go.mod"},
		{ID: "code:w/backend_inotify.go", Path: "backend_inotify.go", Language: "go", Build: "linux && !appengine", Imports: []string{"example.com/w/internal"}},
		{ID: "code:w/internal/windows.go", Path: "internal/windows.go", Language: "go", Build: "windows"},
		{ID: "code:w/internal/unix.go", Path: "internal/unix.go", Language: "go", Build: "unix"},
		{ID: "code:w/internal/debug_darwin.go", Path: "internal/debug_darwin.go", Language: "go"},
		{ID: "code:w/internal/any.go", Path: "internal/any.go", Language: "go"},
		{ID: "code:w/backend_windows.go", Path: "backend_windows.go", Language: "go"},
	}
	syms := []format.Symbol{
		{ID: "code:w/backend_inotify.go#readEvents", File: "code:w/backend_inotify.go", Name: "readEvents", Calls: []string{"handle"}},
		{ID: "code:w/backend_windows.go#handle", File: "code:w/backend_windows.go", Name: "handle"},
	}
	lk := newCodeLinker("w", files, syms)
	lk.setModule("example.com/w", ".")
	got := map[string]bool{}
	for _, e := range lk.edges() {
		if e.Type != format.TypeContains {
			got[e.Source+" "+e.Type+" "+e.Target] = true
		}
	}
	for _, want := range []string{"code:w/backend_inotify.go imports code:w/internal/unix.go", "code:w/backend_inotify.go imports code:w/internal/any.go"} {
		if !got[want] {
			t.Errorf("no edge %s; edges %v", want, got)
		}
	}
	for _, bad := range []string{"code:w/backend_inotify.go imports code:w/internal/windows.go", "code:w/backend_inotify.go imports code:w/internal/debug_darwin.go",
		"code:w/backend_inotify.go#readEvents calls code:w/backend_windows.go#handle"} {
		if got[bad] {
			t.Errorf("edge %s between files that never build together", bad)
		}
	}
}
