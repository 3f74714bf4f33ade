package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// requireJSON refuses a request whose Content-Type is not application/json
// (a charset, when given, must be UTF-8, as JSON is) with 415. Besides
// naming the format, the check keeps web pages from sending these
// requests across origins unasked: a page may POST text/plain or a form
// to a loopback server without a CORS preflight, but not
// application/json.
//
// Programs that are no browser often send JSON without saying so: curl -d
// (application/x-www-form-urlencoded), fetch and undici with a string body
// (text/plain), clients that send no Content-Type at all, as the Typed
// Graph sidecar's documented examples do. Such a body is read as JSON when
// nothing marks the request as a browser's: no Origin header (browsers
// send one with every cross-origin POST, and authenticate refuses other
// origins anyway) and no Sec-Fetch-Site other than "none".
func requireJSON(h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ct := c.Get(fiber.HeaderContentType)
		mt, params, err := mime.ParseMediaType(ct)
		got := "none was sent"
		if ct != "" {
			got = fmt.Sprintf("not %q", ct)
		}
		switch {
		case ct == "" && notBrowser(c), err == nil && untypedJSON[mt] && utf8Charset(params) && notBrowser(c):
			return h(c)
		case err != nil || mt != fiber.MIMEApplicationJSON:
			return newError(http.StatusUnsupportedMediaType, KindUnsupportedMT,
				`the request body must be JSON, sent with the header "Content-Type: application/json" (%s)`, got)
		case !utf8Charset(params):
			return newError(http.StatusUnsupportedMediaType, KindUnsupportedMT,
				`JSON bodies are UTF-8: send "Content-Type: application/json" or "application/json; charset=utf-8" (%s)`, got)
		}
		return h(c)
	}
}

// untypedJSON are the media types programs send JSON under when they do
// not name it (see requireJSON).
var untypedJSON = map[string]bool{"text/plain": true, "application/x-www-form-urlencoded": true}

func utf8Charset(params map[string]string) bool {
	cs := params["charset"]
	return cs == "" || strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8")
}

// notBrowser reports whether nothing marks the request as sent by a web
// browser for a page.
func notBrowser(c *fiber.Ctx) bool {
	site := c.Get("Sec-Fetch-Site")
	return c.Get(fiber.HeaderOrigin) == "" && (site == "" || strings.EqualFold(site, "none"))
}

// bodyFields are the members of a request's JSON object as sent, for the
// checks that must tell a field left out (which takes its default) from
// one set to zero.
type bodyFields map[string]json.RawMessage

// has reports whether the request sets name to something other than null.
func (f bodyFields) has(name string) bool {
	raw, ok := f[name]
	return ok && !bytes.Equal(raw, []byte("null"))
}

// atLeast refuses a field the request sets below min; left out, the field
// takes the default the OpenAPI document names.
func (f bodyFields) atLeast(name string, value, min int) error {
	if f.has(name) && value < min {
		return badRequest("%s must be at least %d, not %d; leave it out for the default", name, min, value)
	}
	return nil
}

// decodeBody decodes the request's JSON body, an object, into v, a pointer
// to a struct, and returns the members it holds. It reads the raw body:
// fiber's Ctx.Body would inflate a gzip or brotli body without bound, so
// compressed bodies are refused. Numbers decode as json.Number, so that an
// integer parameter stays an integer. A member that is not a field of v
// (matched exactly, not ignoring case as encoding/json would) is refused,
// naming the field meant when one is close: a misspelt filter silently
// ignored would answer a different question than the one asked. Syntax
// errors and unknown fields report their line and column in the body.
func decodeBody(c *fiber.Ctx, v any) (bodyFields, error) {
	if enc := strings.TrimSpace(c.Get(fiber.HeaderContentEncoding)); enc != "" && !strings.EqualFold(enc, "identity") {
		return nil, newError(http.StatusUnsupportedMediaType, KindUnsupportedMT, "compressed request bodies (Content-Encoding %s) are not accepted", enc)
	}
	return decodeJSON(c.Request().Body(), v)
}

// decodeJSON is decodeBody after the body is read.
func decodeJSON(body []byte, v any) (bodyFields, error) {
	// A byte-order mark, as Windows tools write UTF-8 files (PowerShell
	// 5's Out-File), is not JSON; RFC 8259 lets a reader ignore it.
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, badRequest("the request body is empty; send a JSON object")
	}
	var fields bodyFields
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&fields); err != nil {
		return nil, jsonError(body, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, badRequest("the request body holds more than one JSON value")
	}
	if err := checkDuplicates(body); err != nil {
		return nil, err
	}
	t := reflect.TypeOf(v).Elem()
	body, fields, err := applyAliases(body, fields, FieldAliases[t])
	if err != nil {
		return nil, err
	}
	if err := checkFields(body, fields, t); err != nil {
		return nil, err
	}
	dec = json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return nil, jsonError(body, err)
	}
	return fields, nil
}

// checkFields refuses the first member of the body, in the body's order,
// that is not a field of t.
func checkFields(body []byte, fields bodyFields, t reflect.Type) error {
	known := jsonFields(t)
	name, unknown := "", false
	for n := range fields {
		if !known.has(n) {
			name, unknown = n, true
			break
		}
	}
	if !unknown {
		return nil
	}
	var at *member
	for _, m := range members(body) {
		if !known.has(m.name) {
			at = &m
			break
		}
	}
	if at != nil {
		name = at.name
	}
	e := badRequest("%s", known.unknownField(t, name))
	if at != nil {
		e.Line, e.Column = position(body, at.offset)
	}
	return e
}

// checkDuplicates refuses a body, valid JSON, in which an object (the body
// or one nested in it, params say) names a member twice: decoding keeps
// the last copy and drops the first without a word, so the request would
// be answered with a value its sender may not have meant.
func checkDuplicates(body []byte) error {
	if !mayRepeatMember(body) {
		return nil
	}
	return duplicateIn(json.NewDecoder(bytes.NewReader(body)), body, "")
}

// mayRepeatMember reports whether body, JSON that decoded, could name a
// member twice: a string appears twice as written, or one holds an escape
// (two spellings of one name), or there are too many to compare. Most
// bodies hold a few distinct strings, and skip duplicateIn's token walk,
// which costs as much as decoding the body again.
func mayRepeatMember(body []byte) bool {
	var buf [32][]byte
	seen := buf[:0]
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(body) && body[j] != '"' {
			if body[j] == '\\' {
				return true
			}
			j++
		}
		s := body[i+1 : j]
		for _, t := range seen {
			if bytes.Equal(s, t) {
				return true
			}
		}
		if len(seen) == len(buf) {
			return true
		}
		seen = append(seen, s)
		i = j
	}
	return false
}

// duplicateIn reads one value from dec, refusing the first member name
// an object of it repeats; path names the value's place ("params.").
// Depth is bounded: the body decoded once already, within encoding/json's
// nesting limit.
func duplicateIn(dec *json.Decoder, body []byte, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return nil // cannot happen for a body that decoded
	}
	switch tok {
	case json.Delim('{'):
		names := map[string]bool{}
		for dec.More() {
			start := dec.InputOffset()
			tok, err := dec.Token()
			name, ok := tok.(string)
			if err != nil || !ok {
				return nil
			}
			if names[name] {
				for start < int64(len(body)) && strings.IndexByte(" \t\r\n,", body[start]) >= 0 {
					start++
				}
				e := badRequest("the request body sends %s%s twice; send each member once (JSON readers disagree on which copy counts)", path, name)
				e.Line, e.Column = position(body, start)
				return e
			}
			names[name] = true
			if err := duplicateIn(dec, body, path+name+"."); err != nil {
				return err
			}
		}
		dec.Token() // }
	case json.Delim('['):
		for dec.More() {
			if err := duplicateIn(dec, body, path); err != nil {
				return err
			}
		}
		dec.Token() // ]
	}
	return nil
}

// member is a member name of the body's object and the offset of its
// opening quote.
type member struct {
	name   string
	offset int64
}

// members lists the member names of body, a JSON object that decoded
// without error, in order.
func members(body []byte) []member {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // {
		return nil
	}
	var out []member
	for dec.More() {
		start := dec.InputOffset()
		for start < int64(len(body)) && strings.IndexByte(" \t\r\n,", body[start]) >= 0 {
			start++
		}
		tok, err := dec.Token()
		name, ok := tok.(string)
		if err != nil || !ok {
			return out
		}
		out = append(out, member{name: name, offset: start})
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return out
		}
	}
	return out
}

func jsonError(body []byte, err error) *apiError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		e := badRequest("the request body is not valid JSON: %s", syn.Error())
		e.Line, e.Column = position(body, syn.Offset-1)
		return e
	case errors.As(err, &typ):
		e := badRequest("%s", typeMessage(typ))
		e.Line, e.Column = position(body, typ.Offset-1)
		return e
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("the request body ends in the middle of a JSON value")
	}
	return badRequest("the request body is not a JSON object: %s", err.Error())
}

// typeMessage says what a field must be and what it was given: "k must be
// an integer, not 2.5".
func typeMessage(typ *json.UnmarshalTypeError) string {
	field := typ.Field
	if field == "" {
		field = "the body"
	}
	want := jsonKind(typ.Type)
	number, isNumber := strings.CutPrefix(typ.Value, "number ")
	switch {
	case !isNumber:
		return fmt.Sprintf("%s must be %s, not a JSON %s", field, want, typ.Value)
	case want == "an integer" && strings.Trim(number, "-0123456789") == "":
		return fmt.Sprintf("%s must be an integer of at most 64 bits, not %s", field, number)
	}
	return fmt.Sprintf("%s must be %s, not %s", field, want, number)
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + t.Kind().String()
}

// position converts a byte offset in body to a 1-based line and column.
// The decoder's offsets count the bytes read up to and including the one
// in error, so callers pass offset-1 to point at it.
func position(body []byte, offset int64) (line, col int) {
	offset = max(offset, 0)
	if offset > int64(len(body)) {
		offset = int64(len(body))
	}
	line, col = 1, 1
	for _, b := range body[:offset] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// RenameAliases renames the members of fields (a JSON object's) that
// aliases names, older names of a field, to the field's own name, and
// reports whether it renamed any; an object that sends both names of one
// field is refused. REST bodies and MCP arguments share it.
func RenameAliases(fields map[string]json.RawMessage, aliases map[string]string) (bool, error) {
	renamed := false
	for alias, name := range aliases {
		raw, ok := fields[alias]
		if !ok {
			continue
		}
		if _, both := fields[name]; both {
			return false, fmt.Errorf("send %s or its older name %s, not both", name, alias)
		}
		delete(fields, alias)
		fields[name] = raw
		renamed = true
	}
	return renamed, nil
}

// applyAliases renames the members of the body that aliases names (an
// older name of a field) to the field's own name, refusing a body that
// sends both.
func applyAliases(body []byte, fields bodyFields, aliases map[string]string) ([]byte, bodyFields, error) {
	renamed, err := RenameAliases(fields, aliases)
	if err != nil {
		return nil, nil, badRequest("%s", err)
	}
	if !renamed {
		return body, fields, nil
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return nil, nil, fmt.Errorf("re-encode request body: %w", err)
	}
	return b, fields, nil
}
