package cypher

import (
	"fmt"
	"reflect"
	"sort"
)

// Limits on parameter values. Parameters are inlined into the text the
// engine parses, and Kuzu 0.11.3's parser is recursive and superlinear in
// nesting: a list nested 100 deep takes 0.6 s to parse, 150 deep 2 s, 500
// deep 50 s, and 1,000 deep overflows its stack and ends the process. So
// every value is measured before anything is printed.
const (
	// MaxParamDepth bounds the nesting of lists and maps in one parameter
	// (a scalar has depth 0, [1] depth 1). Nested 32 deep, a value parses
	// in a few milliseconds.
	MaxParamDepth = 32
	// MaxParamItems bounds the values (list items, map entries, scalars)
	// of all parameters together.
	MaxParamItems = 10_000
	// MaxParamBytes bounds the size of all parameters together: string
	// bytes and map keys, plus 8 bytes for every other value.
	MaxParamBytes = 1 << 20
)

// CheckParams returns a KindParameter *Error when a value in params is
// nested deeper than MaxParamDepth, or the values together hold more than
// MaxParamItems values or MaxParamBytes bytes. The message names the
// parameter and the limit. Translate calls it before it reads a value, so
// no surface can hand the engine an unbounded value.
func CheckParams(params map[string]any) error {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	m := &paramMeter{}
	for _, name := range names {
		if err := m.measure(name, params[name], 0); err != nil {
			return err
		}
	}
	return nil
}

type paramMeter struct {
	items, bytes int
}

func (m *paramMeter) measure(name string, v any, depth int) error {
	if depth > MaxParamDepth {
		return &Error{Kind: KindParameter, Message: fmt.Sprintf("parameter $%s is nested more than %d lists or maps deep; flatten it", name, MaxParamDepth)}
	}
	m.items++
	if m.items > MaxParamItems {
		return &Error{Kind: KindParameter, Message: fmt.Sprintf("the parameters hold more than %d values together (at $%s); pass fewer", MaxParamItems, name)}
	}
	switch v := v.(type) {
	case nil, bool, float64, float32, int, int64:
		m.bytes += 8
	case string:
		m.bytes += len(v)
	case []any:
		for _, it := range v {
			if err := m.measure(name, it, depth+1); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, it := range v {
			m.bytes += len(k)
			if err := m.measure(name, it, depth+1); err != nil {
				return err
			}
		}
	default:
		if err := m.reflected(name, reflect.ValueOf(v), depth); err != nil {
			return err
		}
	}
	if m.bytes > MaxParamBytes {
		return &Error{Kind: KindParameter, Message: fmt.Sprintf("the parameters are larger than %d MiB together (at $%s); pass less", MaxParamBytes>>20, name)}
	}
	return nil
}

// reflected measures the slices and maps Go callers pass (a []string, a
// map[string]int); other values count 8 bytes, and literal refuses the
// kinds it cannot pass.
func (m *paramMeter) reflected(name string, rv reflect.Value, depth int) error {
	switch rv.Kind() {
	case reflect.String:
		m.bytes += rv.Len()
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil
		}
		for i := range rv.Len() {
			if err := m.measure(name, rv.Index(i).Interface(), depth+1); err != nil {
				return err
			}
		}
	case reflect.Map:
		for _, k := range rv.MapKeys() {
			m.bytes += len(fmt.Sprint(k.Interface()))
			if err := m.measure(name, rv.MapIndex(k).Interface(), depth+1); err != nil {
				return err
			}
		}
	default:
		m.bytes += 8
	}
	return nil
}
