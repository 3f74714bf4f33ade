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
	if err := checkArgsSize(a.tool, raw); err != nil {
		return err
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

// Bounds on a tool call's arguments as a whole, checked on the raw JSON
// before anything decodes them further; package cypher bounds query
// parameters more tightly (cypher.CheckParams).
const (
	// maxArgsBytes bounds the arguments' JSON text.
	maxArgsBytes = 2 << 20
	// maxArgsDepth bounds the nesting of objects and lists; the arguments
	// object is depth 1, so params values get the 32 levels cypher allows.
	maxArgsDepth = 34
	// maxArgsValues bounds the values (scalars, list items, object
	// members) in the arguments.
	maxArgsValues = 50_000
)

// checkArgsSize refuses arguments longer, deeper or with more values than
// the bounds above, naming the bound.
func checkArgsSize(tool string, raw []byte) error {
	if len(raw) > maxArgsBytes {
		return agentErrorf("the arguments of %s are %d bytes, more than the %d MiB a call may send; send less", tool, len(raw), maxArgsBytes>>20)
	}
	depth, values := 0, 0
	inString, escaped, inValue := false, false, false
	for _, c := range raw {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			if !inValue {
				values++
			}
			inValue = true
		case '[', '{':
			depth++
			values++
			inValue = false
			if depth > maxArgsDepth {
				return agentErrorf("the arguments of %s are nested more than %d lists or objects deep; flatten them", tool, maxArgsDepth)
			}
		case ']', '}':
			depth--
			inValue = true
		case ',', ':':
			inValue = false
		case ' ', '\t', '\n', '\r':
		default:
			if !inValue {
				values++
			}
			inValue = true
		}
		if values > maxArgsValues {
			return agentErrorf("the arguments of %s hold more than %d values; send fewer", tool, maxArgsValues)
		}
	}
	return nil
}
