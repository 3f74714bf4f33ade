package format

import (
	"encoding/json"
	"fmt"
)

// Kinds of property values. A property's Value is the JSON encoding of the
// value; Kind says how to read it where JSON alone is ambiguous (dates are
// JSON strings, integers and floats are both JSON numbers).
const (
	KindString   = "string"
	KindInt      = "int"      // JSON integer
	KindFloat    = "float"    // JSON number
	KindBool     = "bool"     // JSON true/false
	KindDate     = "date"     // JSON string YYYY-MM-DD
	KindDateTime = "datetime" // JSON string in RFC 3339
	KindList     = "list"     // JSON array
	KindMap      = "map"      // JSON object
	KindNull     = "null"     // JSON null
)

// Property is one typed key/value of a note (frontmatter key or inline field
// without a link) or of an edge (its {...} block). Properties keep the order
// the author wrote them in.
type Property struct {
	Key   string `parquet:"key,plain" json:"key"`
	Kind  string `parquet:"kind,dict" json:"kind"`
	Value string `parquet:"value,plain" json:"value"`
}

// NewProperty encodes v as a property of the given kind. It fails only if v
// cannot be encoded as JSON.
func NewProperty(key, kind string, v any) (Property, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Property{}, fmt.Errorf("encode property %q: %w", key, err)
	}
	return Property{Key: key, Kind: kind, Value: string(b)}, nil
}

// Decode returns the property's value as the JSON decoder sees it: string,
// float64 or json.Number-free numbers (int64 for KindInt), bool, []any,
// map[string]any or nil. Dates stay strings.
func (p Property) Decode() (any, error) {
	if p.Kind == KindInt {
		var n int64
		if err := json.Unmarshal([]byte(p.Value), &n); err != nil {
			return nil, fmt.Errorf("decode int property %q: %w", p.Key, err)
		}
		return n, nil
	}
	var v any
	if err := json.Unmarshal([]byte(p.Value), &v); err != nil {
		return nil, fmt.Errorf("decode %s property %q: %w", p.Kind, p.Key, err)
	}
	return v, nil
}

// Text renders the value for people and for embedding: strings unquoted,
// everything else as its JSON text.
func (p Property) Text() string {
	switch p.Kind {
	case KindString, KindDate, KindDateTime:
		var s string
		if json.Unmarshal([]byte(p.Value), &s) == nil {
			return s
		}
	}
	return p.Value
}

// Lookup returns the first property named key.
func Lookup(props []Property, key string) (Property, bool) {
	for _, p := range props {
		if p.Key == key {
			return p, true
		}
	}
	return Property{}, false
}
