package code

import (
	sitter "github.com/smacker/go-tree-sitter"
)

func parseTS(lang string, src []byte, f *File) {
	parseTree(grammar(lang), src, func(root *sitter.Node) {
		children(root, func(n *sitter.Node) { tsTop(n, src, f) })
		walk(root, func(n *sitter.Node) bool {
			switch n.Type() {
			case "import_statement", "export_statement":
				if s := n.ChildByFieldName("source"); s != nil {
					f.Imports = appendNew(f.Imports, unquote(s.Content(src)))
				}
			case "call_expression":
				fn := n.ChildByFieldName("function")
				args := n.ChildByFieldName("arguments")
				if fn != nil && args != nil && (fn.Type() == "import" || fn.Content(src) == "require") && args.NamedChildCount() > 0 {
					if a := args.NamedChild(0); a.Type() == "string" {
						f.Imports = appendNew(f.Imports, unquote(a.Content(src)))
					}
				}
			}
			return true
		})
	})
}

// tsTop reads a top-level declaration, looking through export.
func tsTop(n *sitter.Node, src []byte, f *File) {
	switch n.Type() {
	case "export_statement":
		if d := n.ChildByFieldName("declaration"); d != nil {
			tsTop(d, src, f)
		}
	case "function_declaration", "generator_function_declaration", "function_signature":
		s := symbolAt(n, field(n, "name", src), KindFunction)
		s.Calls = tsCalls(n.ChildByFieldName("body"), src)
		f.Symbols = append(f.Symbols, s)
	case "class_declaration", "abstract_class_declaration":
		name := field(n, "name", src)
		f.Symbols = append(f.Symbols, symbolAt(n, name, KindClass))
		children(n.ChildByFieldName("body"), func(m *sitter.Node) {
			if m.Type() == "method_definition" || m.Type() == "abstract_method_signature" {
				s := symbolAt(m, name+"."+field(m, "name", src), KindMethod)
				s.Calls = tsCalls(m.ChildByFieldName("body"), src)
				f.Symbols = append(f.Symbols, s)
			}
		})
	case "interface_declaration":
		f.Symbols = append(f.Symbols, symbolAt(n, field(n, "name", src), KindInterface))
	case "type_alias_declaration", "enum_declaration":
		f.Symbols = append(f.Symbols, symbolAt(n, field(n, "name", src), KindType))
	case "lexical_declaration", "variable_declaration":
		children(n, func(d *sitter.Node) {
			if d.Type() != "variable_declarator" {
				return
			}
			v := d.ChildByFieldName("value")
			if v == nil {
				return
			}
			switch v.Type() {
			case "arrow_function", "function_expression", "function":
				s := symbolAt(d, field(d, "name", src), KindFunction)
				s.Calls = tsCalls(v.ChildByFieldName("body"), src)
				f.Symbols = append(f.Symbols, s)
			case "class":
				f.Symbols = append(f.Symbols, symbolAt(d, field(d, "name", src), KindClass))
			}
		})
	}
}

func tsCalls(body *sitter.Node, src []byte) []string {
	var calls []string
	walk(body, func(n *sitter.Node) bool {
		if n.Type() == "call_expression" || n.Type() == "new_expression" {
			fn := n.ChildByFieldName("function")
			if fn == nil {
				fn = n.ChildByFieldName("constructor")
			}
			if fn != nil {
				switch fn.Type() {
				case "identifier":
					calls = appendNew(calls, fn.Content(src))
				case "member_expression":
					calls = appendNew(calls, MemberCall+field(fn, "property", src))
				}
			}
		}
		return true
	})
	return calls
}
