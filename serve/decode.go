package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// decodeBody decodes the request's JSON body into v. It reads the raw
// body: fiber's Ctx.Body would inflate a gzip or brotli body without
// bound, so compressed bodies are refused. Numbers decode as json.Number,
// so that an integer parameter stays an integer. Unknown fields are
// ignored, as clients of the Typed Graph sidecar may send more than this
// server reads. A syntax error reports its line and column in the body.
func decodeBody(c *fiber.Ctx, v any) error {
	if enc := strings.TrimSpace(c.Get(fiber.HeaderContentEncoding)); enc != "" && !strings.EqualFold(enc, "identity") {
		return newError(http.StatusUnsupportedMediaType, KindUnsupportedMT, "compressed request bodies (Content-Encoding %s) are not accepted", enc)
	}
	body := c.Request().Body()
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequest("the request body is empty; send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return jsonError(body, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("the request body holds more than one JSON value")
	}
	return nil
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
		field := typ.Field
		if field == "" {
			field = "the body"
		}
		e := badRequest("%s must be %s, not a JSON %s", field, jsonKind(typ.Type.Kind().String()), typ.Value)
		e.Line, e.Column = position(body, typ.Offset-1)
		return e
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("the request body ends in the middle of a JSON value")
	}
	return badRequest("the request body is not a JSON object: %s", err.Error())
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return fmt.Sprintf("a %s", goKind)
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
