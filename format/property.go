package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Kinds of property values. Kind says how a value was typed where its text
// alone is ambiguous (dates are text, integers and floats are both numbers).
const (
	KindString   = "string"
	KindInt      = "int"      // a 64-bit integer
	KindFloat    = "float"    // a finite float64
	KindBool     = "bool"     // true or false
	KindDate     = "date"     // YYYY-MM-DD
	KindDateTime = "datetime" // RFC 3339
	KindList     = "list"     // a list of values of any kinds
	KindMap      = "map"      // a map from strings to values
	KindNull     = "null"     // written without a value
)

// Property is one typed key/value of a note (frontmatter key or inline field
// without a link) or of an edge (its {...} block). Properties keep the order
// the author wrote them in.
//
// In the tables a property is a struct with one column per kind, so that a
// Parquet reader compares and sorts values without decoding anything:
// TextValue holds every value but null as text, and the typed column of its
// kind holds it typed; every other column is NULL. A DuckDB query reads
// p.number > 100, p.date >= DATE '2024-01-01', p.bool, list_contains(p.list,
// 'x') or p.text = 'Rotterdam' straight from unnest(properties) AS t(p).
// Build properties with NewProperty or PropertyFromJSON, which fill the
// columns consistently.
type Property struct {
	Key  string `parquet:"key,plain" json:"key"`
	Kind string `parquet:"kind,dict" json:"kind"`
	// TextValue is the value as text, NULL (nil) for KindNull: a string as
	// written, without quotes; a number or boolean in its JSON form; a date
	// as YYYY-MM-DD; a datetime in RFC 3339 with the offset as written; a
	// list or a map as its JSON text.
	TextValue *string `parquet:"text,optional,plain" json:"text,omitempty"`
	// Number holds KindInt and KindFloat values.
	Number *float64 `parquet:"number,optional" json:"number,omitempty"`
	// Bool holds KindBool values.
	Bool *bool `parquet:"bool,optional" json:"bool,omitempty"`
	// Date holds KindDate values as days since 1970-01-01 (Parquet DATE).
	Date *int32 `parquet:"date,optional,date" json:"date,omitempty"`
	// DateTime holds KindDateTime values as an instant in UTC with
	// microsecond precision (Parquet TIMESTAMP); TextValue keeps the offset.
	DateTime *time.Time `parquet:"datetime,optional,timestamp(microsecond)" json:"datetime,omitempty"`
	// List holds KindList values, one item per element: strings as
	// written, numbers and booleans as text, nested lists and maps as JSON,
	// nulls as NULL.
	List []*string `parquet:"list,optional,list,plain" json:"list,omitempty"`
}

// NewProperty encodes v as a property of the given kind. v is what the JSON
// encoder takes: a string (also for dates and datetimes), an integer, a
// float64, a bool, a slice, a map or nil. It fails only if v cannot be
// encoded as JSON.
func NewProperty(key, kind string, v any) (Property, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Property{}, fmt.Errorf("encode property %q: %w", key, err)
	}
	return PropertyFromJSON(key, kind, string(b)), nil
}

// PropertyFromJSON builds a property of the given kind from the JSON
// encoding of its value. A value that does not match its kind (a date that
// does not parse, a number that is not one) keeps its text and leaves the
// typed column NULL.
func PropertyFromJSON(key, kind, value string) Property {
	p := Property{Key: key, Kind: kind}
	if kind == KindNull {
		return p
	}
	text := value
	switch kind {
	case KindString, KindDate, KindDateTime:
		var s string
		if json.Unmarshal([]byte(value), &s) == nil {
			text = s
		}
	}
	p.TextValue = &text
	switch kind {
	case KindInt, KindFloat:
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			p.Number = &f
		}
	case KindBool:
		if b, err := strconv.ParseBool(text); err == nil && (text == "true" || text == "false") {
			p.Bool = &b
		}
	case KindDate:
		if t, ok := p.Time(); ok {
			days := int32(t.Unix() / 86400)
			p.Date = &days
		}
	case KindDateTime:
		if t, ok := p.Time(); ok {
			t = t.UTC().Truncate(time.Microsecond)
			p.DateTime = &t
		}
	case KindList:
		p.List = listItems(value)
	}
	return p
}

// listItems renders the items of a JSON array as List holds them.
func listItems(value string) []*string {
	dec := json.NewDecoder(bytes.NewReader([]byte(value)))
	dec.UseNumber()
	var items []json.RawMessage
	if dec.Decode(&items) != nil {
		return nil
	}
	out := make([]*string, len(items))
	for i, raw := range items {
		if string(raw) == "null" {
			continue
		}
		s := string(raw)
		if raw[0] == '"' {
			_ = json.Unmarshal(raw, &s)
		}
		out[i] = &s
	}
	return out
}

// Time returns a date's or datetime's instant: a date at midnight UTC, a
// datetime in RFC 3339 or, without an offset, as UTC. It reports false for
// other kinds and for text that does not parse.
func (p Property) Time() (time.Time, bool) {
	if p.TextValue == nil {
		return time.Time{}, false
	}
	s := *p.TextValue
	switch p.Kind {
	case KindDate:
		t, err := time.Parse(time.DateOnly, s)
		return t, err == nil
	case KindDateTime:
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t, err = time.Parse("2006-01-02T15:04:05", s)
		}
		return t, err == nil
	}
	return time.Time{}, false
}

// JSON returns the JSON encoding of the value: strings, dates and datetimes
// quoted, null as null, every other kind as its text.
func (p Property) JSON() string {
	if p.TextValue == nil {
		return "null"
	}
	switch p.Kind {
	case KindString, KindDate, KindDateTime:
		b, err := json.Marshal(*p.TextValue)
		if err == nil {
			return string(b)
		}
	}
	return *p.TextValue
}

// Decode returns the property's value as the JSON decoder sees it: string,
// float64 (int64 for KindInt), bool, []any, map[string]any or nil. Dates
// stay strings.
func (p Property) Decode() (any, error) {
	value := p.JSON()
	if p.Kind == KindInt {
		var n int64
		if err := json.Unmarshal([]byte(value), &n); err != nil {
			return nil, fmt.Errorf("decode int property %q: %w", p.Key, err)
		}
		return n, nil
	}
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return nil, fmt.Errorf("decode %s property %q: %w", p.Kind, p.Key, err)
	}
	return v, nil
}

// Text renders the value for people and for embedding: strings unquoted,
// null as null, everything else as its JSON text.
func (p Property) Text() string {
	if p.TextValue == nil {
		return "null"
	}
	return *p.TextValue
}

// Equal reports whether p and q are the same key, kind and value. The typed
// columns follow from the kind and the text, so only those are compared.
func (p Property) Equal(q Property) bool {
	return p.Key == q.Key && p.Kind == q.Kind && (p.TextValue == nil) == (q.TextValue == nil) &&
		(p.TextValue == nil || *p.TextValue == *q.TextValue)
}

// String renders the property as key=value (kind), for logs and test
// failures.
func (p Property) String() string { return p.Key + "=" + p.JSON() + " (" + p.Kind + ")" }

// EqualProperties reports whether two property lists are equal item by item.
func EqualProperties(a, b []Property) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
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
