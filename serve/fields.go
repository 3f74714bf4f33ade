package serve

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/vaultgraph/vaultgraph/format/spell"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// fieldHints name, per request type, the field meant by names that are
// neither a typo of it nor the same name in another case or separator
// style (keyed by spell.Fold), or say why a name is no field at all.
var fieldHints = map[reflect.Type]map[string]string{
	reflect.TypeFor[QueryRequest](): {
		"cypher": "query", "q": "query", "parameters": "params", "limit": "max_rows", "rows": "max_rows",
	},
	reflect.TypeFor[SearchRequest](): {
		"q": "query", "text": "query", "limit": "k", "topk": "k", "n": "k",
		"label": "types", "scoring": "mode", "edgetype": "edge_types", "relationshiptypes": "edge_types", "reltypes": "edge_types",
		"ef":       "the search beam width is the server's setting (vaultgraph serve --ef), not a request field",
		"efsearch": "the search beam width is the server's setting (vaultgraph serve --ef), not a request field",
	},
	reflect.TypeFor[GraphRequest](): {
		"types": "edgeTypes", "source": "sourcePath", "note": "sourcePath", "path": "sourcePath", "from": "sourcePath",
		"target": "targetPath", "to": "targetPath", "depth": "maxDepth", "timeout": "timeoutMs", "tags": "tagFilter",
	},
	reflect.TypeFor[retrieve.Request](): {
		"query": "question", "q": "question", "text": "question", "edgetypes": "types", "limit": "k",
		"maxdepth": "depth", "hops": "depth", "chunks": "chunk_cap", "neighbors": "neighbor_cap", "neighbours": "neighbor_cap",
		"maxchunks": "chunk_cap", "pernodecap": "neighbor_cap", "neighbourcap": "neighbor_cap", "chunkcap": "chunk_cap", "neighborcap": "neighbor_cap",
	},
}

// fieldNames are the JSON names of a request type's fields, in declaration
// order.
type fieldNames []string

// jsonFields returns the names encoding/json gives the fields of struct t.
func jsonFields(t reflect.Type) fieldNames {
	var names fieldNames
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-" || !f.IsExported() && !f.Anonymous:
			continue
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			names = append(names, jsonFields(f.Type)...)
			continue
		case tag == "":
			tag = f.Name
		}
		names = append(names, tag)
	}
	return names
}

func (n fieldNames) has(name string) bool {
	for _, k := range n {
		if k == name {
			return true
		}
	}
	return false
}

// unknownField says that name is not a field of t, suggesting the field
// meant: one an alias of t names, one that differs only in case,
// underscores or dashes, or one a typo or two away. With no close field
// it lists them all.
func (n fieldNames) unknownField(t reflect.Type, name string) string {
	msg := fmt.Sprintf("unknown field %q", name)
	if hint := fieldHints[t][spell.Fold(name)]; hint != "" {
		if n.has(hint) {
			return fmt.Sprintf("%s; did you mean %q?", msg, hint)
		}
		return msg + "; " + hint
	}
	if s := n.closest(name); s != "" {
		return fmt.Sprintf("%s; did you mean %q?", msg, s)
	}
	return fmt.Sprintf("%s; the fields of this request are %s", msg, strings.Join(n, ", "))
}

// closest returns the field nearest to name, "" when none is near enough
// to be the one meant.
func (n fieldNames) closest(name string) string {
	norm := spell.Fold(name)
	best, bestDist := "", 0
	for _, k := range n {
		d := spell.Distance(norm, spell.Fold(k), 2)
		if d == 0 {
			return k
		}
		if limit := min(2, max(1, len(norm)/3)); d <= limit && d < len(norm) && (best == "" || d < bestDist) {
			best, bestDist = k, d
		}
	}
	return best
}
