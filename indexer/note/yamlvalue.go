package note

import (
	"math"
	"strconv"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"gopkg.in/yaml.v3"
)

// Limits of the YAML walk. yaml.v3 builds the node tree without expanding
// aliases, so the walk is where a "billion laughs" document would explode:
// it counts the nodes it reaches through aliases and gives up past
// aliasBudget. maxYAMLDepth bounds recursion on deeply nested or cyclic
// documents (an anchor may contain an alias to itself).
const (
	aliasBudget  = 10000
	maxYAMLDepth = 64
)

// yamlWalker converts yaml.Node trees into typed values. One walker is used
// per document so that the alias budget covers the whole document.
type yamlWalker struct {
	aliasNodes int
	// exceeded is set once the alias budget is spent; every value read
	// after that is null and the caller drops the document's values.
	exceeded bool
}

// resolve follows alias nodes, charging the budget for each hop.
func (w *yamlWalker) resolve(n *yaml.Node, depth int) (*yaml.Node, bool) {
	for n != nil && n.Kind == yaml.AliasNode {
		if !w.charge(true) || depth > maxYAMLDepth {
			return nil, false
		}
		n = n.Alias
		depth++
	}
	if n != nil && n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, false
		}
		return w.resolve(n.Content[0], depth+1)
	}
	return n, n != nil
}

// charge counts one node reached through an alias and reports whether the
// budget still holds.
func (w *yamlWalker) charge(viaAlias bool) bool {
	if viaAlias {
		w.aliasNodes++
		if w.aliasNodes > aliasBudget {
			w.exceeded = true
		}
	}
	return !w.exceeded
}

// value converts n into a typed value. viaAlias tells whether n was reached
// through an alias, so that every node of an expanded anchor is charged.
func (w *yamlWalker) value(n *yaml.Node, depth int, viaAlias bool) value {
	if n != nil && n.Kind == yaml.AliasNode {
		viaAlias = true
	}
	n, ok := w.resolve(n, depth)
	if !ok || depth > maxYAMLDepth || !w.charge(viaAlias) {
		return nullValue
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalarValue(n)
	case yaml.SequenceNode:
		items := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			items = append(items, w.value(c, depth+1, viaAlias).V)
		}
		return value{Kind: format.KindList, V: items}
	case yaml.MappingNode:
		m := make(map[string]any)
		for _, kv := range w.pairs(n, depth, viaAlias) {
			key := w.value(kv[0], depth+1, viaAlias).text()
			if _, dup := m[key]; !dup {
				m[key] = w.value(kv[1], depth+1, viaAlias).V
			}
		}
		return value{Kind: format.KindMap, V: m}
	}
	return nullValue
}

// pairs returns the key/value nodes of a mapping in written order, with YAML
// merge keys ("<<: *base") replaced by the pairs they merge in.
func (w *yamlWalker) pairs(n *yaml.Node, depth int, viaAlias bool) [][2]*yaml.Node {
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!merge" {
			out = append(out, [2]*yaml.Node{k, v})
			continue
		}
		// Merged pairs are reached through an alias: each one is charged,
		// or nested merges would multiply them without bound.
		for _, src := range w.mergeSources(v, depth) {
			for _, kv := range w.pairs(src, depth+1, true) {
				if !w.charge(true) {
					return out
				}
				out = append(out, kv)
			}
		}
		if w.exceeded {
			return out
		}
	}
	return out
}

// mergeSources resolves the value of a merge key: one mapping or a list of
// them.
func (w *yamlWalker) mergeSources(v *yaml.Node, depth int) []*yaml.Node {
	if depth > maxYAMLDepth {
		return nil
	}
	n, ok := w.resolve(v, depth)
	if !ok {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		return []*yaml.Node{n}
	case yaml.SequenceNode:
		var out []*yaml.Node
		for _, c := range n.Content {
			if m, ok := w.resolve(c, depth+1); ok && m.Kind == yaml.MappingNode {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// scalarValue types one scalar by the tag YAML resolved for it. yaml.v3
// leaves date-times without zone as strings, so unquoted strings get a second
// look for dates.
func scalarValue(n *yaml.Node) value {
	var v any
	switch n.ShortTag() {
	case "!!null":
		return nullValue
	case "!!timestamp":
		if d, ok := parseDateTime(n.Value); ok {
			return d
		}
		if err := n.Decode(&v); err != nil {
			return value{Kind: format.KindString, V: n.Value}
		}
	case "!!bool", "!!int", "!!float":
		if err := n.Decode(&v); err != nil {
			return value{Kind: format.KindString, V: n.Value}
		}
	case "!!str":
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
			if d, ok := parseDateTime(n.Value); ok {
				return d
			}
		}
		return value{Kind: format.KindString, V: n.Value}
	default:
		return value{Kind: format.KindString, V: n.Value}
	}
	return decodedScalar(v, n.Value)
}

// decodedScalar types what yaml.v3 decoded a plain scalar into.
func decodedScalar(v any, text string) value {
	switch x := v.(type) {
	case bool:
		return value{Kind: format.KindBool, V: x}
	case int:
		return value{Kind: format.KindInt, V: int64(x)}
	case int64:
		return value{Kind: format.KindInt, V: x}
	case uint64:
		if x <= math.MaxInt64 {
			return value{Kind: format.KindInt, V: int64(x)}
		}
		return value{Kind: format.KindString, V: strconv.FormatUint(x, 10)}
	case float64:
		return floatValue(x, text)
	case time.Time:
		return dateTimeValue(x)
	}
	return value{Kind: format.KindString, V: text}
}
