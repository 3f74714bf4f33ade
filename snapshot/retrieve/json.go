package retrieve

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
)

// errNotFinite is AppendJSON's error for a NaN or infinite score, which
// JSON cannot carry.
var errNotFinite = errors.New("retrieve: a score is not a finite number")

// AppendJSON appends the result's JSON to dst: byte for byte what
// encoding/json's Encoder with SetEscapeHTML(false) writes for it, without
// the trailing newline, at a fraction of the reflection's cost (a
// retrieval's answer is tens of kilobytes of quoted chunk text). It fails
// only for a score that is not finite, as encoding/json does.
func (r *Result) AppendJSON(dst []byte) ([]byte, error) {
	if need := r.jsonSize(); cap(dst)-len(dst) < need {
		dst = append(make([]byte, 0, len(dst)+need), dst...)
	}
	e := jsonWriter{b: dst}
	e.raw(`{"snapshot":`)
	e.str(r.Snapshot)
	e.raw(`,"question":`)
	e.str(r.Question)
	e.raw(`,"notice":`)
	e.str(r.Notice)
	e.raw(`,"chunks":`)
	if r.Chunks == nil {
		e.raw("null")
	} else {
		e.b = append(e.b, '[')
		for i := range r.Chunks {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.chunk(&r.Chunks[i])
		}
		e.b = append(e.b, ']')
	}
	e.raw(`,"edges":`)
	if r.Edges == nil {
		e.raw("null")
	} else {
		e.b = append(e.b, '[')
		for i := range r.Edges {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.edge(&r.Edges[i])
		}
		e.b = append(e.b, ']')
	}
	e.raw(`,"notes":`)
	if r.Notes == nil {
		e.raw("null")
	} else {
		e.b = append(e.b, '[')
		for i := range r.Notes {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.note(&r.Notes[i])
		}
		e.b = append(e.b, ']')
	}
	e.raw(`,"truncated":`)
	e.bool(r.Truncated)
	e.raw(`,"rank":`)
	e.str(r.Rank)
	e.raw(`,"depth":`)
	e.int(r.Depth)
	e.raw(`,"embedder":`)
	e.str(r.Embedder)
	e.raw(`,"embedder_kind":`)
	e.str(r.EmbedderKind)
	if len(r.Warnings) > 0 {
		e.raw(`,"warnings":`)
		e.strs(r.Warnings)
	}
	e.raw(`,"elapsed_ms":`)
	e.float(r.ElapsedMS)
	e.b = append(e.b, '}')
	if e.err != nil {
		return dst, e.err
	}
	return e.b, nil
}

// jsonSize estimates the length of the result's JSON, so that it is
// written into one buffer.
func (r *Result) jsonSize() int {
	n := 512 + len(r.Question) + len(r.Notice)
	for i := range r.Chunks {
		c := &r.Chunks[i]
		n += 200 + len(c.ID) + len(c.Node) + len(c.Path) + len(c.Title) + len(c.Heading) + len(c.Text) + len(c.Via)
	}
	for i := range r.Edges {
		x := &r.Edges[i]
		n += 120 + len(x.ID) + len(x.Source) + len(x.Target) + len(x.Type) + len(x.Sentence) + 32*len(x.Properties)
	}
	for i := range r.Notes {
		n += 80 + len(r.Notes[i].Path) + len(r.Notes[i].Title)
	}
	return n + n/16
}

func (e *jsonWriter) chunk(c *Chunk) {
	e.raw(`{"id":`)
	e.str(c.ID)
	e.raw(`,"node":`)
	e.str(c.Node)
	e.raw(`,"path":`)
	e.str(c.Path)
	e.raw(`,"title":`)
	e.str(c.Title)
	if c.Heading != "" {
		e.raw(`,"heading":`)
		e.str(c.Heading)
	}
	e.raw(`,"line":`)
	e.int(c.Line)
	e.raw(`,"start":`)
	e.int(c.Start)
	e.raw(`,"end":`)
	e.int(c.End)
	e.raw(`,"text":`)
	e.str(c.Text)
	e.raw(`,"score":`)
	e.float(c.Score)
	if c.PPR != 0 {
		e.raw(`,"ppr":`)
		e.float(c.PPR)
	}
	e.raw(`,"role":`)
	e.str(c.Role)
	e.raw(`,"distance":`)
	e.int(c.Hops)
	if c.Via != "" {
		e.raw(`,"via":`)
		e.str(c.Via)
	}
	e.b = append(e.b, '}')
}

func (e *jsonWriter) edge(x *Edge) {
	e.raw(`{"id":`)
	e.str(x.ID)
	e.raw(`,"source":`)
	e.str(x.Source)
	e.raw(`,"target":`)
	e.str(x.Target)
	e.raw(`,"type":`)
	e.str(x.Type)
	e.raw(`,"sign":`)
	e.int(x.Sign)
	e.raw(`,"properties":`)
	e.props(x.Properties)
	e.raw(`,"sentence":`)
	e.str(x.Sentence)
	e.raw(`,"role":`)
	e.str(x.Role)
	if x.Score != 0 {
		e.raw(`,"score":`)
		e.float(x.Score)
	}
	e.b = append(e.b, '}')
}

func (e *jsonWriter) note(n *Note) {
	e.raw(`{"path":`)
	e.str(n.Path)
	e.raw(`,"title":`)
	e.str(n.Title)
	if len(n.Labels) > 0 {
		e.raw(`,"labels":`)
		e.strs(n.Labels)
	}
	if n.Stub {
		e.raw(`,"stub":true`)
	}
	e.raw(`,"role":`)
	e.str(n.Role)
	e.raw(`,"distance":`)
	e.int(n.Hops)
	e.raw(`,"chunks":`)
	e.int(n.Chunks)
	e.b = append(e.b, '}')
}

// jsonWriter appends JSON values to b; err is the first value that could
// not be written.
type jsonWriter struct {
	b   []byte
	err error
}

func (e *jsonWriter) raw(s string) { e.b = append(e.b, s...) }

func (e *jsonWriter) bool(v bool) {
	if v {
		e.raw("true")
	} else {
		e.raw("false")
	}
}

func (e *jsonWriter) int(v int) { e.b = strconv.AppendInt(e.b, int64(v), 10) }

func (e *jsonWriter) strs(ss []string) {
	e.b = append(e.b, '[')
	for i, s := range ss {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(s)
	}
	e.b = append(e.b, ']')
}

// props writes edge properties as encoding/json does: their MarshalJSON,
// compacted.
func (e *jsonWriter) props(p linkgraph.Properties) {
	if len(p) == 0 {
		e.raw("{}")
		return
	}
	m, err := p.MarshalJSON()
	if err == nil {
		buf := bytes.NewBuffer(e.b)
		if err = json.Compact(buf, m); err == nil {
			e.b = buf.Bytes()
			return
		}
	}
	if e.err == nil {
		e.err = err
	}
}

// float writes a float64 as encoding/json does (ES6 number formatting).
func (e *jsonWriter) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		if e.err == nil {
			e.err = errNotFinite
		}
		e.b = append(e.b, '0')
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.b = strconv.AppendFloat(e.b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9
		if n := len(e.b); n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
}

// plain8 reports whether none of the eight bytes of x needs escaping or
// decoding: each is ASCII, at least 0x20, and neither '"' nor '\\'.
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs } // a byte of v is 0
	return (x&highs)|((x-0x20*ones)&^x&highs)|zero(x^'"'*ones)|zero(x^'\\'*ones) == 0
}

const hexDigits = "0123456789abcdef"

// str writes a JSON string as encoding/json does without HTML escaping:
// control characters, quotes and backslashes escaped, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped.
func (e *jsonWriter) str(s string) {
	b := append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip eight plain bytes at a time: ASCII from 0x20 up, neither
		// a quote nor a backslash.
		for i+8 <= len(s) && plain8(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	e.b = append(b, '"')
}
