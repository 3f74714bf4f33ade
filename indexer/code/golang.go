package code

import (
	"bytes"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"strconv"
)

// parseGo reads a Go file with the standard library's parser. A file with
// syntax errors keeps what the parser recovered.
func parseGo(p string, src []byte, f *File) {
	fset := token.NewFileSet()
	file, _ := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
	if file == nil {
		return
	}
	if file.Name != nil {
		f.Package = file.Name.Name
		f.Build = goBuild(src[:min(len(src), fset.Position(file.Package).Offset)])
	}
	for _, imp := range file.Imports {
		if path, err := strconv.Unquote(imp.Path.Value); err == nil {
			f.Imports = appendNew(f.Imports, path)
		}
	}
	line := func(pos token.Pos) int { return fset.Position(pos).Line }
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			s := Symbol{Name: d.Name.Name, Kind: KindFunction, Line: line(d.Pos()), EndLine: line(d.End())}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				s.Kind = KindMethod
				if r := receiverName(d.Recv.List[0].Type); r != "" {
					s.Name = r + "." + d.Name.Name
				}
			}
			if d.Body != nil {
				s.Calls = goCalls(d.Body)
			}
			f.Symbols = append(f.Symbols, s)
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, spec := range d.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				kind := KindType
				if _, ok := ts.Type.(*ast.InterfaceType); ok {
					kind = KindInterface
				}
				f.Symbols = append(f.Symbols, Symbol{Name: ts.Name.Name, Kind: kind, Line: line(ts.Pos()), EndLine: line(ts.End())})
			}
		}
	}
}

func receiverName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	}
	return ""
}

func goCalls(body *ast.BlockStmt) []string {
	var calls []string
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch fn := c.Fun.(type) {
		case *ast.Ident:
			calls = appendNew(calls, fn.Name)
		case *ast.SelectorExpr:
			calls = appendNew(calls, MemberCall+fn.Sel.Name)
		}
		return true
	})
	return calls
}

// goBuild returns the expression of the //go:build line in a Go file's
// head (what comes before its package clause), "" for none.
func goBuild(head []byte) string {
	for _, line := range bytes.Split(head, []byte("\n")) {
		l := string(bytes.TrimSpace(line))
		if constraint.IsGoBuild(l) {
			if x, err := constraint.Parse(l); err == nil {
				return x.String()
			}
		}
	}
	return ""
}
