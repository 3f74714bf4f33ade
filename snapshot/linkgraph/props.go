package linkgraph

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/vaultgraph/vaultgraph/format"
)

// Properties are an edge's properties as written. They encode as one JSON
// object in the order the author wrote them, with typed values
// ({"amount": 250000, "currency": "EUR"}); a value that does not decode is
// given as its text.
type Properties []format.Property

// MarshalJSON implements json.Marshaler.
func (p Properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, prop := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(prop.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v := json.RawMessage(prop.JSON())
		if !json.Valid(v) {
			if v, err = json.Marshal(prop.Text()); err != nil {
				return nil, err
			}
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler, keeping the order of the
// object's keys. Kinds are inferred from the JSON values (numbers without a
// fraction are ints).
func (p *Properties) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil {
		return err
	} else if t == nil {
		*p = nil
		return nil
	} else if d, ok := t.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("edge properties: want a JSON object")
	}
	var out Properties
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		out = append(out, format.PropertyFromJSON(key, kindOf(raw), string(raw)))
	}
	*p = out
	return nil
}

func kindOf(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return format.KindString
	case 't', 'f':
		return format.KindBool
	case 'n':
		return format.KindNull
	case '[':
		return format.KindList
	case '{':
		return format.KindMap
	}
	if bytes.ContainsAny(raw, ".eE") {
		return format.KindFloat
	}
	return format.KindInt
}

// Map returns the properties decoded, for callers that want values rather
// than JSON (a later key overrides an earlier one).
func (p Properties) Map() map[string]any {
	m := make(map[string]any, len(p))
	for _, prop := range p {
		v, err := prop.Decode()
		if err != nil {
			v = prop.Text()
		}
		m[prop.Key] = v
	}
	return m
}
