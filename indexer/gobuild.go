package indexer

import (
	"go/build/constraint"
	"path"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// goOSes are the operating systems a Go file's constraints are checked
// against; unixOSes those the "unix" tag names.
var (
	goOSes   = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "illumos", "ios", "js", "linux", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows"}
	unixOSes = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "illumos": true, "ios": true, "linux": true, "netbsd": true, "openbsd": true, "solaris": true}
	// implies: a file for the key builds for these too (go/build).
	implies = map[string]string{"android": "linux", "ios": "darwin", "illumos": "solaris"}
)

// goOSSet returns the operating systems a Go file builds for, by its file
// name (_windows.go, _linux_amd64.go) and its //go:build line, as a bit
// set over goOSes; every bit for a file of no constraint. Other tags
// (architectures, cgo, appengine) may be either way: an OS is in the set
// when the line holds with them all set or all unset.
func goOSSet(f *format.CodeFile) uint32 {
	all := uint32(1)<<len(goOSes) - 1
	set := all
	stem := strings.TrimSuffix(strings.TrimSuffix(path.Base(f.Path), ".go"), "_test")
	parts := strings.Split(stem, "_")
	fileOS := ""
	// name_GOOS.go or name_GOOS_GOARCH.go (the architecture is not
	// checked).
	for _, p := range parts[max(1, len(parts)-2):] {
		if isOSName(p) {
			fileOS = p
		}
	}
	if fileOS != "" {
		for i, o := range goOSes {
			if o != fileOS && implies[o] != fileOS {
				set &^= 1 << i
			}
		}
	}
	if f.Build == "" {
		return set
	}
	x, err := constraint.Parse("//go:build " + f.Build)
	if err != nil {
		return set
	}
	for i, osName := range goOSes {
		isOS := func(tag string) bool {
			return tag == osName || implies[osName] == tag || (tag == "unix" && unixOSes[osName])
		}
		known := func(tag string) bool { return tag == "unix" || implies[tag] != "" || isOSName(tag) }
		with := func(others bool) bool {
			return x.Eval(func(tag string) bool {
				if known(tag) {
					return isOS(tag)
				}
				return others
			})
		}
		if !with(true) && !with(false) {
			set &^= 1 << i
		}
	}
	return set
}

func isOSName(tag string) bool {
	for _, o := range goOSes {
		if o == tag {
			return true
		}
	}
	return false
}

// buildsWith reports whether Go files a and b can build together (for one
// operating system at least); true when either is not Go.
func (lk *codeLinker) buildsWith(a, b *format.CodeFile) bool {
	if a.Language != b.Language || !strings.HasSuffix(a.Path, ".go") {
		return true
	}
	return lk.osSet(a)&lk.osSet(b) != 0
}

func (lk *codeLinker) osSet(f *format.CodeFile) uint32 {
	if s, ok := lk.oses[f.ID]; ok {
		return s
	}
	s := goOSSet(f)
	lk.oses[f.ID] = s
	return s
}
