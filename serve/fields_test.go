package serve

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format/spell"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// requestTypes are the types the routes decode their bodies into, by the
// name of their schema in openapi.json.
var requestTypes = map[string]reflect.Type{
	"QueryRequest":    reflect.TypeFor[QueryRequest](),
	"SearchRequest":   reflect.TypeFor[SearchRequest](),
	"GraphRequest":    reflect.TypeFor[GraphRequest](),
	"RetrieveRequest": reflect.TypeFor[retrieve.Request](),
}

// TestRequestSchemasMatchTypes requires each request schema to name
// exactly the fields its type decodes (a field the schema leaves out would
// be accepted undocumented; one the type lacks would be refused), and
// every hint to point at a field of its type or to say why there is none.
func TestRequestSchemasMatchTypes(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				AdditionalProperties *bool                      `json:"additionalProperties"`
				Properties           map[string]json.RawMessage `json:"properties"`
			}
		}
	}
	if err := json.Unmarshal(openAPISpec, &doc); err != nil {
		t.Fatal(err)
	}
	for name, typ := range requestTypes {
		sc, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("openapi.json has no schema %s", name)
			continue
		}
		var documented []string
		for p := range sc.Properties {
			documented = append(documented, p)
		}
		fields := slices.Clone(jsonFields(typ))
		for alias := range FieldAliases[typ] {
			fields = append(fields, alias) // older names, documented as deprecated
		}
		slices.Sort(documented)
		slices.Sort(fields)
		if !slices.Equal(documented, fields) {
			t.Errorf("%s documents %v; %s decodes %v", name, documented, typ, fields)
		}
		if sc.AdditionalProperties == nil || *sc.AdditionalProperties {
			t.Errorf("%s does not say additionalProperties false", name)
		}
	}
	for typ, hints := range fieldHints {
		known := jsonFields(typ)
		for from, to := range hints {
			if from != spell.Fold(from) {
				t.Errorf("%s: hint key %q is not folded (spell.Fold)", typ, from)
			}
			if known.has(from) {
				t.Errorf("%s: hint for %q, which is a field", typ, from)
			}
			if !known.has(to) && !strings.Contains(to, " ") {
				t.Errorf("%s: hint %q -> %q, which is no field", typ, from, to)
			}
		}
	}
}

func TestClosestField(t *testing.T) {
	search := jsonFields(reflect.TypeFor[SearchRequest]())
	for name, want := range map[string]string{
		"tpyes":      "types",
		"Types":      "types",
		"TYPES":      "types",
		"edgeTypes":  "edge_types",
		"EdgeTypes":  "edge_types",
		"edge-types": "edge_types",
		"edge_type":  "edge_types",
		"quey":       "query",
		"timeoutMs":  "timeout_ms",
		"timeout":    "timeout_ms",
		"maxRows":    "max_rows",
		"max_row":    "max_rows",
		"labels":     "labels",
		"kk":         "k",
		"ef":         "",
		"zebra":      "",
		"":           "",
		"parmas":     "params",
		"tragets":    "target",
		"modes":      "mode",
		"thens":      "then",
		"hits":       "",
	} {
		if got := search.closest(name); got != want {
			t.Errorf("closest(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	var req SearchRequest
	fields, err := decodeJSON([]byte(`{"query": "x", "k": 3, "types": null, "params": {"Query": 1, "zzz": 2}}`), &req)
	if err != nil {
		t.Fatal(err)
	}
	if req.K != 3 || !fields.has("k") || fields.has("types") || fields.has("max_rows") {
		t.Errorf("req %+v, fields %v", req, fields)
	}
	// Members of params are the query's, not fields of the request.
	if req.Params["Query"] == nil || req.Params["zzz"] == nil {
		t.Errorf("params = %v", req.Params)
	}
	if err := fields.atLeast("k", req.K, 4); err == nil || !strings.Contains(err.Error(), "k must be at least 4, not 3") {
		t.Errorf("atLeast = %v", err)
	}
	if err := fields.atLeast("max_rows", 0, 1); err != nil {
		t.Errorf("atLeast on a field left out = %v", err)
	}
	// The first unknown member in the body's order is the one reported,
	// however many there are.
	for range 20 {
		_, err := decodeJSON([]byte(`{"query": "x", "b1": 1, "a2": 2, "c3": 3, "d4": 4}`), &req)
		var ae *apiError
		if !errors.As(err, &ae) || !strings.HasPrefix(ae.Message, `unknown field "b1"`) || ae.Column != 16 {
			t.Fatalf("err = %v", err)
		}
	}
}

// FuzzDecodeJSON feeds arbitrary bodies to the decoder: it must not panic,
// must refuse what it cannot decode with a bad request (never another
// error), and what it accepts must hold only fields of the request.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"query": "x"}`, `{"query": "x", "tpyes": ["a"]}`, `{"k": 2.5}`, `{"k": 99999999999999999999}`,
		"{\n \"query\": \"x\",\n oops\n}", `[]`, `null`, `{} {}`, `{"\u0071uery": "x"}`, `{"query": "x", "query": 1}`,
		`{"edge_types": ["funds"], "Edge_Types": 1}`, `{"":1}`, `{"params": {"a": [1, {"b": null}]}}`,
	} {
		f.Add([]byte(s))
	}
	known := jsonFields(reflect.TypeFor[SearchRequest]())
	f.Fuzz(func(t *testing.T, body []byte) {
		var req SearchRequest
		fields, err := decodeJSON(body, &req)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.Status != 400 || ae.Line < 0 || ae.Column < 0 || ae.Message == "" {
				t.Fatalf("decodeJSON(%q) = %#v", body, err)
			}
			return
		}
		for name := range fields {
			if !known.has(name) {
				t.Fatalf("decodeJSON(%q) accepted the unknown field %q", body, name)
			}
		}
	})
}
