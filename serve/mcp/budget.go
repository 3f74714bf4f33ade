package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// The context budget. An agent pays for every byte of an answer in
// context it cannot get back, so every answer fits Options.MaxResultBytes,
// its text and its structured content together. The text is the
// structured content's JSON (as the specification suggests), so a client
// that reads only text misses nothing. A tool whose answer is a list
// pages it: the answer holds as many items as fit, and a next object with
// a cursor and a line saying how to ask for the rest.

// page is the list of an answer that is paged.
type page struct {
	// n is the length of the whole list; show makes the answer hold its
	// items [from, to).
	n    int
	show func(from, to int)
	// noun names the items ("rows", "hits").
	noun string
}

// nextPage is the next member of an answer that did not hold every item.
type nextPage struct {
	Cursor string `json:"cursor"`
	// From and To are the items shown (from 0, To excluded), Of how many
	// there are.
	From int    `json:"from"`
	To   int    `json:"to"`
	Of   int    `json:"of"`
	Hint string `json:"hint"`
}

// cursorArg is the name of the argument that carries a cursor.
const cursorArg = "cursor"

// position is where a call resumes: its cursor, decoded.
type position struct {
	from     int
	args     string
	snapshot string
}

// argsDigest identifies a call's arguments but the cursor, so that a
// cursor is not used with other arguments than those it came from.
func argsDigest(req mcp.CallToolRequest) string {
	args := map[string]any{}
	for k, v := range req.GetArguments() {
		if k != cursorArg {
			args[k] = v
		}
	}
	b, _ := json.Marshal(args) // map keys sorted
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

func (p position) cursor() string {
	return strconv.Itoa(p.from) + "." + p.args + "." + p.snapshot
}

// readCursor decodes the cursor of a call, if any; snapshot is the one
// answering. A cursor from another snapshot or other arguments is refused
// with what to do.
func readCursor(name string, req mcp.CallToolRequest, snapshot string) (position, error) {
	pos := position{args: argsDigest(req), snapshot: snapshot}
	c, _ := req.GetArguments()[cursorArg].(string)
	if c == "" {
		return pos, nil
	}
	parts := strings.SplitN(c, ".", 3)
	from, err := strconv.Atoi(parts[0])
	if len(parts) != 3 || err != nil || from < 0 {
		return pos, agentErrorf("cursor %q is not one this server handed out: pass the next.cursor of the previous answer unchanged", c)
	}
	if parts[1] != pos.args {
		return pos, agentErrorf("the cursor belongs to a %s call with other arguments: repeat that call's arguments with it, or leave cursor out to start again", name)
	}
	if parts[2] != snapshot {
		return pos, agentErrorf("the cursor is from snapshot %s, but snapshot %s is served now: call %s again without cursor", parts[2], snapshot, name)
	}
	pos.from = from
	return pos, nil
}

// answerSize bounds the size of a tool result whose structured content
// is b and whose text is b too, as JSON, the text escaped into a string:
// as the server writes it, or as a Go client encodes it again (which
// escapes <, > and & in both).
func answerSize(b []byte) int {
	// {"content":[{"type":"text","text":…}],"structuredContent":…}, the
	// server's identity in _meta (protocol version 2026-07-28 on), and
	// room for members a client adds.
	const envelope = 512
	n := 2 * len(b)
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			n++
		case c == '<' || c == '>' || c == '&':
			n += 10
		case c < 0x20:
			n += 5
		}
	}
	return envelope + n
}

// encode marshals the answer to fit the budget, paging its list or
// cutting its other lists (shrink), and renders the text.
func (s *Server) encode(name string, a *answer, pos position) (*mcp.CallToolResult, error) {
	var b []byte
	var err error
	var body string
	switch {
	case a.body != nil:
		b, body, err = s.fitBody(a)
	case a.page != nil:
		b, err = s.fitPage(name, a, pos)
	default:
		b, err = s.fitShrink(a, s.opts.MaxResultBytes, func() ([]byte, error) { return marshal(a.out) })
	}
	if err != nil {
		return nil, err
	}
	content := []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: string(b)}}
	if a.body != nil {
		content = append(content, mcp.TextContent{Type: mcp.ContentTypeText, Text: body})
	}
	return &mcp.CallToolResult{Content: content, StructuredContent: json.RawMessage(b)}, nil
}

// fitBody encodes an answer with a body: the structured part cut to half
// the budget at most, the body in the room left.
func (s *Server) fitBody(a *answer) ([]byte, string, error) {
	build := func() ([]byte, error) { return marshal(a.out) }
	b, err := s.fitShrink(a, s.opts.MaxResultBytes/2, build)
	if err != nil {
		return nil, "", err
	}
	// The second content block's envelope, and room for the structured
	// part to grow by the body's end offsets and hint.
	const slack = 48 + 2*200
	body := a.body(s.opts.MaxResultBytes - answerSize(b) - slack)
	b, err = build()
	return b, body, err
}

// fitShrink encodes with build, cutting the answer's lists until it fits
// limit.
func (s *Server) fitShrink(a *answer, limit int, build func() ([]byte, error)) ([]byte, error) {
	b, err := build()
	for i := 0; err == nil && answerSize(b) > limit; i++ {
		if a.shrink == nil || i == 8 || !a.shrink(float64(limit)/float64(answerSize(b))*0.9) {
			return nil, errTooLarge
		}
		b, err = build()
	}
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return b, nil
}

// fitPage encodes as many items of the answer's list from pos as fit,
// at least one (cutting the other lists if it must), and a next object
// when items are left.
func (s *Server) fitPage(name string, a *answer, pos position) ([]byte, error) {
	p := a.page
	if pos.from > p.n || (pos.from == p.n && p.n > 0) {
		return nil, agentErrorf("the cursor is past the end: the answer has %d %s", p.n, p.noun)
	}
	// encode encodes the items shown, items [pos.from, to).
	encode := func(to int) ([]byte, error) {
		b, err := marshal(a.out)
		if err != nil || to >= p.n {
			return b, err
		}
		next := nextPage{From: pos.from, To: to, Of: p.n,
			Cursor: position{from: to, args: pos.args, snapshot: pos.snapshot}.cursor()}
		next.Hint = fmt.Sprintf("%s %d-%d of %d shown; for the rest call %s again with the same arguments and cursor %q",
			p.noun, pos.from+1, to, p.n, name, next.Cursor)
		nb, err := marshal(next)
		if err != nil {
			return nil, err
		}
		return withMember(b, "next", nb), nil
	}
	build := func(to int) ([]byte, error) {
		p.show(pos.from, to)
		return encode(to)
	}
	limit := s.opts.MaxResultBytes
	fits := func(to int) ([]byte, bool, error) {
		b, err := build(to)
		return b, err == nil && answerSize(b) <= limit, err
	}
	b, ok, err := fits(p.n)
	if err != nil || ok {
		return b, err
	}
	// The most items that fit: build(lo) fits or lo is the first, build(hi)
	// does not.
	lo, hi := pos.from+1, p.n
	if _, ok, _ := fits(lo); !ok {
		// One item does not fit: cut the other lists (show would undo
		// the cuts).
		return s.fitShrink(a, limit, func() ([]byte, error) { return encode(lo) })
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if _, ok, _ := fits(mid); ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return build(lo)
}

// withMember adds "name": value to the JSON object obj.
func withMember(obj []byte, name string, value []byte) []byte {
	obj = bytes.TrimRight(obj, " \n")
	if len(obj) < 2 || obj[len(obj)-1] != '}' {
		return obj
	}
	out := append([]byte(nil), obj[:len(obj)-1]...)
	if len(bytes.TrimSpace(obj[1:len(obj)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, name...)
	out = append(out, '"', ':')
	out = append(out, value...)
	return append(out, '}')
}

// compactOutputSchema replaces def's output schema by the names of its
// members, plus next for paged tools: no types, descriptions or nested
// shapes (the tool's description says what matters, and every answer is
// JSON an agent reads as is). Full output schemas were most of
// tools/list.
func compactOutputSchema(def *mcp.Tool, paged bool) error {
	raw := []byte(def.RawOutputSchema)
	if raw == nil {
		if def.OutputSchema.Type == "" {
			return nil
		}
		var err error
		if raw, err = json.Marshal(def.OutputSchema); err != nil {
			return fmt.Errorf("encode %s output schema: %w", def.Name, err)
		}
	}
	var full struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &full); err != nil {
		return fmt.Errorf("decode %s output schema: %w", def.Name, err)
	}
	props := map[string]any{}
	for name := range full.Properties {
		props[name] = map[string]any{}
	}
	if paged {
		props["next"] = map[string]any{}
	}
	schema := map[string]any{"type": "object", "properties": props}
	b, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	def.OutputSchema = mcp.ToolOutputSchema{}
	def.RawOutputSchema = b
	return nil
}

// addCursorArg adds the cursor argument to a paged tool's input schema.
func addCursorArg(def *mcp.Tool) {
	if def.InputSchema.Properties == nil {
		def.InputSchema.Properties = map[string]any{}
	}
	def.InputSchema.Properties[cursorArg] = map[string]any{
		"type": "string", "description": "next.cursor of the previous answer, for the rest.",
	}
}
