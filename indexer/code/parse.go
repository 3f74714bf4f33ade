package code

import (
	"bytes"
	"path"
	"strings"
)

// Revision is the revision of the code reader. A snapshot records it; a run
// with another revision reads every file again instead of reusing its rows.
const Revision = 1

// Languages, as recorded in CodeFile.Language.
const (
	LangGo         = "go"
	LangPython     = "python"
	LangTypeScript = "typescript"
	LangTSX        = "tsx"
	LangJavaScript = "javascript"
)

// Symbol kinds.
const (
	KindFunction  = "function"
	KindMethod    = "method"
	KindClass     = "class"
	KindType      = "type"
	KindInterface = "interface"
)

// Symbol is a named definition in a file. Methods are named
// Receiver.Method (Go) or Class.method (Python, TypeScript).
type Symbol struct {
	Name    string
	Kind    string
	Line    int // 1-based first line
	EndLine int
	// Calls are the names this symbol's body calls, last part only
	// (x.y.run() calls "run"), without duplicates, in order of first call.
	Calls []string
}

// File is what Parse reads of one file.
type File struct {
	Language string
	Lines    int
	Symbols  []Symbol
	// Imports are the import specifiers as written: Go import paths,
	// Python module names (with leading dots for relative imports and
	// "module:name" for from-imports), TypeScript and JavaScript module
	// specifiers.
	Imports []string
	// Package is the Go package name.
	Package string
	// Test reports a test file by the language's convention.
	Test bool
}

// Language returns the language of a file from its name, "" for none that
// the reader knows.
func Language(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		return LangGo
	case ".py", ".pyi":
		return LangPython
	case ".ts", ".mts", ".cts":
		return LangTypeScript
	case ".tsx":
		return LangTSX
	case ".js", ".jsx", ".mjs", ".cjs":
		return LangJavaScript
	}
	return ""
}

// IsTest reports whether p names a test file by its language's
// convention: Go's _test.go; Python's test_*.py, *_test.py, conftest.py or
// a file under a tests/ folder; TypeScript's and JavaScript's *.test.* and
// *.spec.* or a file under __tests__/.
func IsTest(p string) bool {
	base := path.Base(p)
	dirs := "/" + path.Dir(p) + "/"
	switch Language(p) {
	case LangGo:
		return strings.HasSuffix(base, "_test.go")
	case LangPython:
		stem := strings.TrimSuffix(base, path.Ext(base))
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || stem == "conftest" ||
			strings.Contains(dirs, "/tests/") || strings.Contains(dirs, "/test/")
	case LangTypeScript, LangTSX, LangJavaScript:
		return strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.Contains(dirs, "/__tests__/")
	}
	return false
}

// Parse reads one file. src is the file's content; p its repository path.
func Parse(p string, src []byte) File {
	f := File{Language: Language(p), Lines: countLines(src), Test: IsTest(p)}
	switch f.Language {
	case LangGo:
		parseGo(p, src, &f)
	case LangPython:
		parsePython(src, &f)
	case LangTypeScript, LangTSX, LangJavaScript:
		parseTS(f.Language, src, &f)
	}
	f.Symbols = uniqueSymbols(f.Symbols)
	return f
}

func countLines(src []byte) int {
	if len(src) == 0 {
		return 0
	}
	n := bytes.Count(src, []byte{'\n'})
	if src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// uniqueSymbols keeps the first symbol of each name (Go's several init
// functions, TypeScript overloads), merging the calls of the others.
func uniqueSymbols(syms []Symbol) []Symbol {
	seen := make(map[string]int, len(syms))
	out := syms[:0]
	for _, s := range syms {
		if s.Name == "" {
			continue
		}
		if i, ok := seen[s.Name]; ok {
			out[i].Calls = appendNew(out[i].Calls, s.Calls...)
			continue
		}
		seen[s.Name] = len(out)
		out = append(out, s)
	}
	return out
}

func appendNew(list []string, items ...string) []string {
	for _, s := range items {
		found := false
		for _, x := range list {
			if x == s {
				found = true
				break
			}
		}
		if !found && s != "" {
			list = append(list, s)
		}
	}
	return list
}
