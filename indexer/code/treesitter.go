package code

import (
	"context"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// parseTree parses src with the grammar of lang and calls read with the
// root node; the tree is freed when read returns. A file the grammar cannot
// parse at all is read as nothing.
func parseTree(lang *sitter.Language, src []byte, read func(root *sitter.Node)) {
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(lang)
	tree, err := parser.ParseCtx(context.Background(), nil, src)
	if err != nil || tree == nil {
		return
	}
	defer tree.Close()
	read(tree.RootNode())
}

func grammar(lang string) *sitter.Language {
	switch lang {
	case LangPython:
		return python.GetLanguage()
	case LangTypeScript:
		return typescript.GetLanguage()
	case LangTSX:
		return tsx.GetLanguage()
	case LangJavaScript:
		return javascript.GetLanguage()
	}
	return nil
}

// children calls fn for each named child of n.
func children(n *sitter.Node, fn func(c *sitter.Node)) {
	if n == nil {
		return
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		if c := n.NamedChild(i); c != nil {
			fn(c)
		}
	}
}

// walk calls fn for n and every named node below it, in document order,
// descending into a node's children only while fn returns true.
func walk(n *sitter.Node, fn func(c *sitter.Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	children(n, func(c *sitter.Node) { walk(c, fn) })
}

func field(n *sitter.Node, name string, src []byte) string {
	if n == nil {
		return ""
	}
	if c := n.ChildByFieldName(name); c != nil {
		return c.Content(src)
	}
	return ""
}

func symbolAt(n *sitter.Node, name, kind string) Symbol {
	return Symbol{Name: name, Kind: kind, Line: int(n.StartPoint().Row) + 1, EndLine: int(n.EndPoint().Row) + 1}
}

// unquote strips the quotes of a string literal's text.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && strings.ContainsRune(`"'`+"`", rune(s[0])) && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// lastName is the last identifier of a dotted or member expression.
func lastName(s string) string {
	if i := strings.LastIndexAny(s, ".>"); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}
