package serve

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// openAPISpec is the OpenAPI 3 document of the routes registered in
// server.go. TestOpenAPIMatchesRoutes keeps the two in step.
//
//go:embed openapi.json
var openAPISpec []byte

// fiberParam matches fiber's path parameters (:name and the wildcard *),
// written {name} in OpenAPI; the wildcard of /notes/* is {path}.
var fiberParam = regexp.MustCompile(`:([A-Za-z0-9_]+)|\*`)

// openAPIPath converts a fiber route pattern to an OpenAPI path.
func openAPIPath(route string) string {
	return fiberParam.ReplaceAllStringFunc(route, func(m string) string {
		if m == "*" {
			return "{path}"
		}
		return "{" + m[1:] + "}"
	})
}

// openAPIDocument returns the document with the server's version, the
// vaults it serves as the values of the /v/{vault} server's variable (the
// default vault its default, so that a generated client that keeps the
// default asks a vault that exists), and the operations of the mounts
// added; a mount that takes a JSON body is documented with the 415 that
// requireJSON answers.
func openAPIDocument(version string, vaults []string, mounts []Mount) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(openAPISpec, &doc); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	if info, ok := doc["info"].(map[string]any); ok {
		info["version"] = version
	}
	if servers, _ := doc["servers"].([]any); len(vaults) > 0 {
		for _, sv := range servers {
			vars, _ := sv.(map[string]any)["variables"].(map[string]any)
			if v, ok := vars["vault"].(map[string]any); ok {
				v["default"] = vaults[0]
				v["enum"] = vaults
			}
		}
	}
	paths, _ := doc["paths"].(map[string]any)
	for _, m := range mounts {
		var op map[string]any
		if err := json.Unmarshal(m.Operation, &op); err != nil {
			return nil, fmt.Errorf("mount %s %s: OpenAPI operation: %w", m.Method, m.Path, err)
		}
		if takesJSON(m.Operation) {
			addResponse(op, "415", map[string]any{"$ref": "#/components/responses/Error"})
		}
		p := openAPIPath(m.Path)
		item, _ := paths[p].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[p] = item
		}
		item[strings.ToLower(m.Method)] = op
	}
	return encodeJSON(doc)
}

// addResponse adds a response to an operation that documents none for the
// status.
func addResponse(op map[string]any, status string, response any) {
	responses, _ := op["responses"].(map[string]any)
	if responses == nil {
		responses = map[string]any{}
		op["responses"] = responses
	}
	if _, ok := responses[status]; !ok {
		responses[status] = response
	}
}

// withSnapshotField adds "x-snapshot": id at the root of a JSON object,
// null when no snapshot is served.
func withSnapshotField(doc []byte, id string) []byte {
	v := []byte("null")
	if id != "" {
		v, _ = json.Marshal(id)
	}
	out := make([]byte, 0, len(doc)+len(v)+16)
	out = append(out, `{"x-snapshot":`...)
	out = append(out, v...)
	out = append(out, ',')
	return append(out, bytes.TrimPrefix(bytes.TrimSpace(doc), []byte("{"))...)
}

// takesJSON reports whether an OpenAPI operation declares a JSON request
// body, for which the server checks the Content-Type (requireJSON).
func takesJSON(op []byte) bool {
	var o struct {
		RequestBody struct {
			Content map[string]json.RawMessage `json:"content"`
		} `json:"requestBody"`
	}
	if json.Unmarshal(op, &o) != nil {
		return false
	}
	_, ok := o.RequestBody.Content[fiber.MIMEApplicationJSON]
	return ok
}
