package snapshot

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// SegmentKey returns the key of a table segment's rows
// (format.TableSegment.Key): the sha256 of the table's name, the format
// version and every field of every row that the Parquet writer writes (a
// field tagged parquet:"-" is not), each value length-prefixed, times to the
// nanosecond (finer than any column keeps them: rows with equal keys are
// equal in memory too, so whatever is built from them, such as the graph
// database, is the same). A nil list and an empty one hash alike unless
// the column is optional (the writer writes both as an empty list), since
// a reused row decoded from the parent and the same row parsed again may
// differ just so. Equal keys mean the writer would write the same rows, so an
// indexer links the parent's file instead of encoding them again. Hashing
// rows costs a small part of encoding and compressing them.
func SegmentKey[T any](table string, rows []T) string {
	h := &rowHasher{h: sha256.New()}
	h.str(table)
	h.int(int64(format.Version))
	h.int(int64(len(rows)))
	enc := encoderOf(reflect.TypeFor[T](), column{})
	for i := range rows {
		enc(h, reflect.ValueOf(&rows[i]).Elem())
	}
	return h.sum()
}

// rowHasher buffers the encoded values before hashing them.
type rowHasher struct {
	h   hash.Hash
	buf []byte
}

func (h *rowHasher) flush() {
	h.h.Write(h.buf)
	h.buf = h.buf[:0]
}

func (h *rowHasher) int(v int64) {
	h.buf = binary.LittleEndian.AppendUint64(h.buf, uint64(v))
	if len(h.buf) >= 64<<10 {
		h.flush()
	}
}

func (h *rowHasher) str(s string) {
	h.int(int64(len(s)))
	if len(s) >= 4<<10 {
		h.flush()
		h.h.Write([]byte(s))
		return
	}
	h.buf = append(h.buf, s...)
}

func (h *rowHasher) sum() string {
	h.flush()
	return hex.EncodeToString(h.h.Sum(nil))
}

// encoder writes one value of a type into a rowHasher.
type encoder func(h *rowHasher, v reflect.Value)

// column is what a field's parquet tag says that changes what is
// written: whether it is optional.
type column struct {
	optional bool
}

func columnOf(tag string) column {
	return column{optional: slices.Contains(strings.Split(tag, ",")[1:], "optional")}
}

type encoderKey struct {
	t reflect.Type
	c column
}

var encoders sync.Map // encoderKey -> encoder

var timeType = reflect.TypeFor[time.Time]()

func encoderOf(t reflect.Type, c column) encoder {
	k := encoderKey{t, c}
	if e, ok := encoders.Load(k); ok {
		return e.(encoder)
	}
	e := newEncoder(t, c)
	encoders.Store(k, e)
	return e
}

func newEncoder(t reflect.Type, c column) encoder {
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
		var elem encoder
		once := sync.OnceFunc(func() { elem = encoderOf(t.Elem(), column{}) })
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
		var elem encoder
		once := sync.OnceFunc(func() { elem = encoderOf(t.Elem(), column{}) })
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
			enc   encoder
		}
		var fields []field
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("parquet")
			if !f.IsExported() || strings.Split(tag, ",")[0] == "-" {
				continue
			}
			fields = append(fields, field{i, encoderOf(f.Type, columnOf(tag))})
		}
		return func(h *rowHasher, v reflect.Value) {
			for _, f := range fields {
				f.enc(h, v.Field(f.index))
			}
		}
	}
	panic(fmt.Sprintf("snapshot.SegmentKey: rows of type %s hold a %s, which it cannot hash", t, t.Kind()))
}
