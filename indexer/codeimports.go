package indexer

import (
	"path"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/code"
)

// resolveImports maps a file's imports to files of the repository, where
// the language allows: Go import paths to the files of the package's
// folder (by the repository's go.mod modules), Python modules to their
// .py or __init__.py (relative imports from the file's folder, absolute
// ones from the root or, failing that, the closest folder holding them),
// TypeScript and JavaScript relative specifiers to the file with one of the
// extensions the compiler tries. Imports of other packages resolve to
// nothing.
func (lk *codeLinker) resolveImports(f *format.CodeFile) []*format.CodeFile {
	var out []*format.CodeFile
	for _, spec := range f.Imports {
		switch f.Language {
		case code.LangGo:
			out = append(out, lk.goPackage(spec)...)
		case code.LangPython:
			if dst := lk.pythonModule(f, spec); dst != nil {
				out = append(out, dst)
			}
		case code.LangTypeScript, code.LangTSX, code.LangJavaScript:
			if dst := lk.scriptModule(f, spec); dst != nil {
				out = append(out, dst)
			}
		}
	}
	return out
}

func (lk *codeLinker) goPackage(importPath string) []*format.CodeFile {
	best := ""
	for mod := range lk.modules {
		rest, ok := strings.CutPrefix(importPath, mod)
		if ok && (rest == "" || rest[0] == '/') && len(mod) > len(best) {
			best = mod // the innermost module wins, as in a nested go.mod
		}
	}
	if best != "" {
		dir := lk.modules[best]
		rest := strings.TrimPrefix(importPath, best)
		folder := path.Join(dir, strings.TrimPrefix(rest, "/"))
		if folder == "" {
			folder = "."
		}
		var out []*format.CodeFile
		for _, f := range lk.byDir[folder] {
			if !f.Test {
				out = append(out, f)
			}
		}
		return out
	}
	return nil
}

// goModule reads the module path of a go.mod file.
func goModule(content []byte) string {
	for _, line := range strings.Split(string(content), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

func (lk *codeLinker) pythonModule(f *format.CodeFile, spec string) *format.CodeFile {
	mod, name, _ := strings.Cut(spec, ":")
	dots := len(mod) - len(strings.TrimLeft(mod, "."))
	rest := strings.ReplaceAll(strings.TrimLeft(mod, "."), ".", "/")
	var bases []string
	if dots > 0 {
		dir := path.Dir(f.Path)
		for i := 1; i < dots; i++ {
			dir = path.Dir(dir)
		}
		bases = []string{path.Join(dir, rest)}
	} else {
		bases = []string{rest}
	}
	try := func(p string) *format.CodeFile {
		p = strings.TrimPrefix(path.Clean(p), "./")
		for _, c := range []string{p + ".py", p + ".pyi", p + "/__init__.py"} {
			if dst := lk.byPath[c]; dst != nil {
				return dst
			}
		}
		return nil
	}
	for _, b := range bases {
		if name != "" {
			if dst := try(path.Join(b, name)); dst != nil {
				return dst
			}
		}
		if b != "" && b != "." {
			if dst := try(b); dst != nil {
				return dst
			}
		}
	}
	if dots > 0 || rest == "" {
		return nil
	}
	// An absolute import rooted below the repository's top (src/, api/):
	// the file whose path ends with the module's, closest to the importer.
	var best *format.CodeFile
	bestScore := -1
	for _, suffix := range []string{path.Join(rest, name), rest} {
		// A path ending with /suffix ends with suffix's last name too.
		for _, c := range lk.pyByEnd[path.Base(suffix)] {
			if !strings.HasSuffix(pythonModulePath(c.Path), "/"+suffix) {
				continue
			}
			if score := commonPrefix(path.Dir(c.Path), path.Dir(f.Path)); score > bestScore {
				best, bestScore = c, score
			}
		}
		if best != nil || name == "" {
			break
		}
	}
	return best
}

// pythonModulePath is a Python file's module as a path: pkg/mod for
// pkg/mod.py, pkg for pkg/__init__.py.
func pythonModulePath(file string) string {
	return strings.TrimSuffix(strings.TrimSuffix(file, "/__init__.py"), path.Ext(file))
}

var scriptExtensions = []string{"", ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx", "/index.js", "/index.jsx"}

func (lk *codeLinker) scriptModule(f *format.CodeFile, spec string) *format.CodeFile {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return nil
	}
	p := path.Join(path.Dir(f.Path), spec)
	if strings.HasPrefix(p, "../") || p == ".." {
		return nil
	}
	cands := []string{p}
	for _, js := range []string{".js", ".jsx", ".mjs"} {
		if stem, ok := strings.CutSuffix(p, js); ok {
			cands = append(cands, stem)
		}
	}
	for _, c := range cands {
		for _, ext := range scriptExtensions {
			if dst := lk.byPath[c+ext]; dst != nil && dst.Language != "" {
				return dst
			}
		}
	}
	return nil
}
