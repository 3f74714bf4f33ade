package snapshot

import (
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestSegmentKeyMatchesReflection: the encoders, which read rows through
// unsafe pointers, write the bytes that walking the rows' reflect.Values
// writes (refKey, the encoders as they were), for random rows of every
// table: nil and empty lists, nil and set pointers, zero and other times,
// long strings.
func TestSegmentKeyMatchesReflection(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	check := func(name string, key, ref string) {
		t.Helper()
		if key != ref {
			t.Fatalf("%s: SegmentKey %s, by reflection %s", name, key, ref)
		}
	}
	for round := range 200 {
		n := r.Intn(6)
		notes, links, edges, chunks := make([]format.Note, n), make([]format.Link, n), make([]format.Edge, n), make([]format.Chunk, n)
		for i := range n {
			fill(r, reflect.ValueOf(&notes[i]).Elem(), 0)
			fill(r, reflect.ValueOf(&links[i]).Elem(), 0)
			fill(r, reflect.ValueOf(&edges[i]).Elem(), 0)
			fill(r, reflect.ValueOf(&chunks[i]).Elem(), 0)
		}
		name := fmt.Sprint("round ", round)
		check(name+" notes", SegmentKey(format.NotesTable, notes), refKey(format.NotesTable, notes))
		check(name+" links", SegmentKey(format.LinksTable, links), refKey(format.LinksTable, links))
		check(name+" edges", SegmentKey(format.EdgesTable, edges), refKey(format.EdgesTable, edges))
		check(name+" chunks", SegmentKey(format.ChunksTable, chunks), refKey(format.ChunksTable, chunks))
	}
}

// fill sets v to random values of its type.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	if v.Type() == timeType {
		if r.Intn(4) > 0 {
			v.Set(reflect.ValueOf(time.Unix(r.Int63n(1<<33), r.Int63n(1e9)).UTC()))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		size := r.Intn(40)
		if r.Intn(20) == 0 {
			size = 5000 + r.Intn(3000) // past the hasher's buffer
		}
		v.SetString(strings.Repeat(string(rune('a'+r.Intn(26))), size))
	case reflect.Bool:
		v.SetBool(r.Intn(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.Uint64()) >> (64 - v.Type().Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(r.Uint64() >> (64 - v.Type().Bits()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, -1.5, math.Inf(1), math.NaN(), r.Float64()}[r.Intn(5)])
	case reflect.Pointer:
		if depth < 4 && r.Intn(2) == 1 {
			p := reflect.New(v.Type().Elem())
			fill(r, p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Slice:
		switch k := r.Intn(4); {
		case k == 0 || depth >= 4: // nil
		case k == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, r.Intn(3)))
		default:
			s := reflect.MakeSlice(v.Type(), 1+r.Intn(3), 4)
			for i := range s.Len() {
				fill(r, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), depth+1)
			}
		}
	}
}

// refKey is SegmentKey as it was, walking reflect.Values.
func refKey[T any](table string, rows []T) string {
	h := &rowHasher{h: sha256.New()}
	h.str(table)
	h.int(int64(format.Version))
	h.int(int64(len(rows)))
	enc := refEncoderOf(reflect.TypeFor[T](), column{})
	for i := range rows {
		enc(h, reflect.ValueOf(&rows[i]).Elem())
	}
	return h.sum()
}

type refEncoder func(h *rowHasher, v reflect.Value)

func refEncoderOf(t reflect.Type, c column) refEncoder {
	return newRefEncoder(t, c)
}

func newRefEncoder(t reflect.Type, c column) refEncoder {
	if t == timeType {
		return func(h *rowHasher, v reflect.Value) {
			tm := v.Interface().(time.Time)
			if tm.IsZero() {
				h.int(math.MinInt64)
				return
			}
			h.int(tm.UnixNano())
		}
	}
	switch t.Kind() {
	case reflect.String:
		return func(h *rowHasher, v reflect.Value) { h.str(v.String()) }
	case reflect.Bool:
		return func(h *rowHasher, v reflect.Value) {
			if v.Bool() {
				h.int(1)
			} else {
				h.int(0)
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(h *rowHasher, v reflect.Value) { h.int(v.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(h *rowHasher, v reflect.Value) { h.int(int64(v.Uint())) }
	case reflect.Float32, reflect.Float64:
		return func(h *rowHasher, v reflect.Value) { h.int(int64(math.Float64bits(v.Float()))) }
	case reflect.Pointer:
		var elem refEncoder
		once := sync.OnceFunc(func() { elem = refEncoderOf(t.Elem(), column{}) })
		return func(h *rowHasher, v reflect.Value) {
			if v.IsNil() {
				h.int(-1)
				return
			}
			h.int(1)
			once()
			elem(h, v.Elem())
		}
	case reflect.Slice:
		var elem refEncoder
		once := sync.OnceFunc(func() { elem = refEncoderOf(t.Elem(), column{}) })
		optional := c.optional
		return func(h *rowHasher, v reflect.Value) {
			if optional && v.IsNil() {
				h.int(-1)
				return
			}
			h.int(int64(v.Len()))
			once()
			for i := range v.Len() {
				elem(h, v.Index(i))
			}
		}
	case reflect.Struct:
		type field struct {
			index int
			enc   refEncoder
		}
		var fields []field
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("parquet")
			if !f.IsExported() || strings.Split(tag, ",")[0] == "-" {
				continue
			}
			fields = append(fields, field{i, refEncoderOf(f.Type, columnOf(tag))})
		}
		return func(h *rowHasher, v reflect.Value) {
			for _, f := range fields {
				f.enc(h, v.Field(f.index))
			}
		}
	}
	panic(fmt.Sprintf("snapshot.SegmentKey: rows of type %s hold a %s, which it cannot hash", t, t.Kind()))
}

// BenchmarkSegmentKey hashes 2,500 edges (a segment's at 10,000 notes,
// with a sentence, anchors and a property each) with the encoders and by
// reflection, as SegmentKey did before them.
//
//	go test ./snapshot -run '^$' -bench SegmentKey -benchtime 200x
func BenchmarkSegmentKey(b *testing.B) {
	value := "critical"
	edges := make([]format.Edge, 2500)
	for i := range edges {
		edges[i] = format.Edge{Source: fmt.Sprintf("Folder/Note %d.md", i), Target: fmt.Sprintf("Other/Target %d.md", i*7),
			Type: "links_to", Sign: 1, Count: 1, Line: int32(i), Heading: "Section",
			Sentence: fmt.Sprintf("Note %d (Project) links to Target %d (Person)", i, i*7), Anchors: []string{"Section"},
			Properties: []format.Property{{Key: "why", Kind: format.KindString, TextValue: &value}}}
	}
	b.Run("encoders", func(b *testing.B) {
		for b.Loop() {
			SegmentKey(format.EdgesTable, edges)
		}
	})
	b.Run("reflection", func(b *testing.B) {
		for b.Loop() {
			refKey(format.EdgesTable, edges)
		}
	})
}
