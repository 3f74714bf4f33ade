package format

import "testing"

func TestCodeCatalogResolve(t *testing.T) {
	f := CodeFile{ID: "code:r/a/x.go", Repo: "r", Path: "a/x.go", Lines: 20}
	outer := Symbol{ID: "code:r/a/x.go#T", File: f.ID, Name: "T", Line: 3, EndLine: 15}
	inner := Symbol{ID: "code:r/a/x.go#T.m", File: f.ID, Name: "T.m", Line: 5, EndLine: 8}
	c := NewCodeCatalog([]Repo{{Name: "r"}}, []CodeFile{f}, []Symbol{outer, inner})
	for in, want := range map[string]string{
		"code:r/a/x.go":          "code:r/a/x.go",
		"code:r/./a/x.go":        "code:r/a/x.go",
		"code:r/a/b/../x.go":     "code:r/a/x.go",
		"code:r/a/x.go#L6":       inner.ID,
		"code:r/a/x.go#L4-L9":    outer.ID,
		"code:r/a/x.go#L6-8":     inner.ID,
		"code:r/a/x.go#L16":      f.ID,
		"code:r/a/x.go#T.m":      inner.ID,
		"code:r/a/x.go#L21":      "",
		"code:r/a/x.go#L0":       "",
		"code:r/a/x.go#L9-L6":    "",
		"code:r/a/x.go#Lx":       "",
		"code:r/../x.go":         "",
		"code:r/a/y.go":          "",
		"code:q/a/x.go":          "",
		"code:r/a/x.go#L6#extra": "",
	} {
		got, ok := c.Resolve(in)
		if got != want || ok != (want != "") {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
