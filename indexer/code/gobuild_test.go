package code

import "testing"

func TestGoBuildLine(t *testing.T) {
	f := Parse("backend_inotify.go", []byte("// Copyright\n\n//go:build linux && !appengine\n\n// Package w watches.\npackage w\n\n//go:build windows\nfunc f() {}\n"))
	if f.Build != "linux && !appengine" {
		t.Errorf("Build = %q; want the //go:build line before the package clause", f.Build)
	}
	if f := Parse("a.go", []byte("package a\n")); f.Build != "" {
		t.Errorf("Build = %q for a file without a //go:build line", f.Build)
	}
}
