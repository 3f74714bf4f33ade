package note

import "github.com/vaultgraph/vaultgraph/format"

// propertyList collects a note's properties in written order. Frontmatter
// keys are set once; inline fields are added, and a key seen again (twice
// inline, or in frontmatter and inline) becomes one list property holding
// every value in order, as Dataview reads it.
type propertyList struct {
	keys []string
	vals map[string]value
}

// set records a frontmatter property; the caller has already dropped
// duplicate keys.
func (l *propertyList) set(key string, v value) {
	if l.vals == nil {
		l.vals = make(map[string]value)
	}
	if _, ok := l.vals[key]; !ok {
		l.keys = append(l.keys, key)
	}
	l.vals[key] = v
}

// add records an inline field value, merging it with earlier values of the
// same key.
func (l *propertyList) add(key string, v value) {
	old, ok := l.vals[key]
	if !ok {
		l.set(key, v)
		return
	}
	if old.Kind == format.KindList {
		if items, ok := old.V.([]any); ok {
			l.vals[key] = value{Kind: format.KindList, V: append(items, v.V)}
			return
		}
	}
	l.vals[key] = value{Kind: format.KindList, V: []any{old.V, v.V}}
}

// properties encodes the list; nil when empty.
func (l *propertyList) properties() []format.Property {
	if len(l.keys) == 0 {
		return nil
	}
	out := make([]format.Property, 0, len(l.keys))
	for _, k := range l.keys {
		out = append(out, l.vals[k].encode(k))
	}
	return out
}
