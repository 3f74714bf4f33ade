package graphdb

import (
	"path"

	"github.com/vaultgraph/vaultgraph/format"
)

// CodeNodes returns the graph's rows for the code half of a snapshot
// (format/code.go): a node per code file, labelled CodeFile, with the
// properties repo, language, lines, blob, package and test; a node per
// symbol, labelled Symbol, with name, kind, line, end_line and file; and a
// stub per target of an unresolved code edge. A code node's path is the
// repository path (a symbol's, its file's), its title the file name or the
// symbol's name, so that n.path and n.title read as for notes.
func CodeNodes(files []format.CodeFile, symbols []format.Symbol, edges []format.Edge) []format.Note {
	out := make([]format.Note, 0, len(files)+len(symbols))
	paths := make(map[string]string, len(files))
	for _, f := range files {
		paths[f.ID] = f.Path
		out = append(out, format.Note{ID: f.ID, Path: f.Path, Title: path.Base(f.Path), Folder: folder(f.Path),
			Labels: []string{format.LabelCodeFile}, Size: f.Size, Properties: props(
				"repo", format.KindString, f.Repo, "language", format.KindString, f.Language, "lines", format.KindInt, f.Lines,
				"blob", format.KindString, f.Blob, "package", format.KindString, f.Package, "test", format.KindBool, f.Test)})
	}
	for _, s := range symbols {
		p := paths[s.File]
		out = append(out, format.Note{ID: s.ID, Path: p, Title: s.Name, Folder: folder(p), Labels: []string{format.LabelSymbol},
			Properties: props("name", format.KindString, s.Name, "kind", format.KindString, s.Kind, "line", format.KindInt, s.Line,
				"end_line", format.KindInt, s.EndLine, "file", format.KindString, s.File)})
	}
	stubs := map[string]bool{}
	for _, e := range edges {
		if e.Unresolved && !stubs[e.Target] {
			stubs[e.Target] = true
			out = append(out, format.Note{ID: e.Target, Title: e.Target, Stub: true})
		}
	}
	return out
}

func folder(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// props builds properties from key, kind, value triples, leaving out empty
// strings.
func props(kv ...any) []format.Property {
	var out []format.Property
	for i := 0; i+2 < len(kv); i += 3 {
		key, kind, v := kv[i].(string), kv[i+1].(string), kv[i+2]
		if s, ok := v.(string); ok && s == "" {
			continue
		}
		p, err := format.NewProperty(key, kind, v)
		if err == nil {
			out = append(out, p)
		}
	}
	return out
}
