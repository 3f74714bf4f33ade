package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// argsSchema checks a tool's arguments against its input schema before the
// tool runs, and says what is wrong in words an agent can act on. (mcp-go
// can validate too, but renders violations as Go structs.)
type argsSchema struct {
	tool   string
	schema *jsonschema.Schema
}

var english = message.NewPrinter(language.English)

// compileArgs compiles the input schema of def, which refuses arguments it
// does not name.
func compileArgs(def *mcp.Tool) (*argsSchema, error) {
	def.InputSchema.AdditionalProperties = false
	raw, err := json.Marshal(def.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("encode %s input schema: %w", def.Name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("decode %s input schema: %w", def.Name, err)
	}
	url := "mem:///vaultgraph/" + def.Name + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s input schema: %w", def.Name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile %s input schema: %w", def.Name, err)
	}
	return &argsSchema{tool: def.Name, schema: s}, nil
}

// check returns an agentError listing every violation, nil when the
// arguments fit.
func (a *argsSchema) check(req mcp.CallToolRequest) error {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(req.Params.Arguments); err != nil {
			return agentErrorf("the arguments of %s are not a JSON object", a.tool)
		}
	}
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = []byte("{}")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return agentErrorf("the arguments of %s are not valid JSON: %s", a.tool, err)
	}
	err = a.schema.Validate(v)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return agentErrorf("invalid arguments for %s: %s", a.tool, err)
	}
	var problems []string
	leaves(verr, &problems)
	return agentErrorf("invalid arguments for %s: %s. tools/list has its input schema", a.tool, strings.Join(problems, "; "))
}

// leaves renders the leaf violations of a validation error as
// "argument: problem".
func leaves(e *jsonschema.ValidationError, out *[]string) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			leaves(c, out)
		}
		return
	}
	where := strings.Join(e.InstanceLocation, ".")
	msg := e.ErrorKind.LocalizedString(english)
	if where == "" {
		*out = append(*out, msg)
		return
	}
	*out = append(*out, where+": "+msg)
}
