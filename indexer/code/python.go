package code

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

func parsePython(src []byte, f *File) {
	parseTree(grammar(LangPython), src, func(root *sitter.Node) {
		children(root, func(n *sitter.Node) { pythonTop(n, src, "", f) })
		walk(root, func(n *sitter.Node) bool {
			switch n.Type() {
			case "import_statement":
				children(n, func(c *sitter.Node) {
					if name := pythonModule(c, src); name != "" {
						f.Imports = appendNew(f.Imports, name)
					}
				})
				return false
			case "import_from_statement":
				mod := field(n, "module_name", src)
				names := 0
				children(n, func(c *sitter.Node) {
					if c.Equal(n.ChildByFieldName("module_name")) {
						return
					}
					if name := pythonModule(c, src); name != "" {
						f.Imports = appendNew(f.Imports, mod+":"+name)
						names++
					}
				})
				if names == 0 {
					f.Imports = appendNew(f.Imports, mod)
				}
				return false
			}
			return true
		})
	})
}

// pythonModule is the dotted name of an import item (the name, not the
// alias, of "a.b as c").
func pythonModule(n *sitter.Node, src []byte) string {
	switch n.Type() {
	case "dotted_name":
		return n.Content(src)
	case "aliased_import":
		return field(n, "name", src)
	}
	return ""
}

// pythonTop reads a module-level or class-level definition; prefix is the
// enclosing class's name and a dot.
func pythonTop(n *sitter.Node, src []byte, prefix string, f *File) {
	switch n.Type() {
	case "decorated_definition":
		if d := n.ChildByFieldName("definition"); d != nil {
			pythonTop(d, src, prefix, f)
		}
	case "function_definition":
		kind := KindFunction
		if prefix != "" {
			kind = KindMethod
		}
		s := symbolAt(n, prefix+field(n, "name", src), kind)
		s.Calls = pythonCalls(n.ChildByFieldName("body"), src)
		f.Symbols = append(f.Symbols, s)
	case "class_definition":
		name := field(n, "name", src)
		f.Symbols = append(f.Symbols, symbolAt(n, prefix+name, KindClass))
		children(n.ChildByFieldName("body"), func(c *sitter.Node) { pythonTop(c, src, prefix+name+".", f) })
	}
}

func pythonCalls(body *sitter.Node, src []byte) []string {
	var calls []string
	walk(body, func(n *sitter.Node) bool {
		if n.Type() == "call" {
			switch fn := n.ChildByFieldName("function"); {
			case fn == nil:
			case fn.Type() == "identifier":
				calls = appendNew(calls, fn.Content(src))
			case fn.Type() == "attribute":
				calls = appendNew(calls, MemberCall+lastName(fn.Content(src)))
			}
		}
		return true
	})
	return calls
}

// pythonRelative splits a Python module name into its leading dots and the rest.
func pythonRelative(mod string) (dots int, rest string) {
	rest = strings.TrimLeft(mod, ".")
	return len(mod) - len(rest), rest
}
