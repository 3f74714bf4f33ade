package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// tool is one MCP tool: its definition, the capability it needs and what
// it does.
type tool struct {
	def mcp.Tool
	// needs says why a snapshot cannot answer the tool, nil when it can;
	// nil for tools every snapshot answers.
	needs func(snap *store.Snapshot) error
	// run answers a call on snap, which it must not use after returning
	// except through the answer (which the handler encodes before
	// releasing snap).
	run func(ctx context.Context, snap *store.Snapshot, req mcp.CallToolRequest) (*answer, error)
	// bare tools also run while no snapshot is served, with snap nil.
	bare bool
	// paged tools take a cursor and page their answers' lists.
	paged bool
	// args checks arguments against def's input schema.
	args *argsSchema
	// aliases are older names of arguments (serve.FieldAliases), renamed
	// to their own before the check.
	aliases map[string]string
}

func (t *tool) unavailable(snap *store.Snapshot) error {
	if t.needs == nil || snap == nil {
		return nil
	}
	return t.needs(snap)
}

// answer is a tool's result before encoding.
type answer struct {
	// out is the structured content: a pointer to the tool's output
	// struct, whose type is the tool's output schema.
	out any
	// page is out's list that pages, nil when nothing does.
	page *page
	// body, when set, gives text that the answer carries once, in a
	// content block of its own after the JSON (a note's text), not in
	// out: the most that fits room bytes once escaped into JSON; it
	// updates out to say where the text ends.
	body func(room int) string
	// shrink cuts out's other lists to about frac of their length and
	// marks out truncated, saying how to get the rest, reporting whether
	// it cut anything; nil when out is bounded otherwise.
	shrink func(frac float64) bool
}

// agentError is an error whose message says what the agent can do about
// it; it becomes the tool error's text unchanged.
type agentError struct{ msg string }

func (e *agentError) Error() string { return e.msg }

func agentErrorf(format string, args ...any) error {
	return &agentError{msg: fmt.Sprintf(format, args...)}
}

// narrowHint names the arguments of tool name that make its answer
// smaller.
func narrowHint(name string) string {
	switch name {
	case toolContext:
		return "a smaller k, a shorter question"
	case toolCypher:
		return "a smaller max_rows or LIMIT, fewer columns"
	case toolSearch:
		return "a smaller k, a shorter query"
	case toolRetrieve:
		return "a smaller k, chunk_cap or neighbor_cap, a smaller depth, fewer types"
	case toolGraph:
		return "a smaller maxNodes, maxEdges or maxDepth, a filter"
	case toolReadNote:
		return "a smaller max_bytes"
	}
	return "fewer results"
}

// errTooLarge is returned when a result does not fit MaxResultBytes even
// paged and cut down.
var errTooLarge = errors.New("result too large")

// handler runs t on one snapshot, held from the start of the call to its
// end, and encodes the answer before releasing it.
func (s *Server) handler(t *tool) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, id, outcome := s.call(ctx, t, req)
		d := time.Since(start)
		s.metrics.observe(t.def.Name, outcome, d)
		s.log.Debug("MCP tool call", "tool", t.def.Name, "snapshot", id, "outcome", outcome,
			"ms", float64(d.Microseconds())/1000)
		return res, nil
	}
}

// call runs t on one snapshot, held from the start of the call to its
// end, and encodes the answer before releasing it. It returns the id of
// the snapshot that answered and the call's outcome.
func (s *Server) call(ctx context.Context, t *tool, req mcp.CallToolRequest) (*mcp.CallToolResult, string, string) {
	req, err := t.aliased(req)
	if err != nil {
		return toolError("", err.Error()), "", outcomeError
	}
	if err := t.args.check(req); err != nil {
		return toolError("", err.Error()), "", outcomeError
	}
	v, err := s.vaultOf(req)
	if err != nil {
		return toolError("", err.Error()), "", outcomeError
	}
	ctx = context.WithValue(ctx, vaultKey{}, v)
	snap, release := v.Store.Acquire()
	defer release()
	id := ""
	switch {
	case snap != nil:
		id = snap.ID
	case !t.bare:
		return toolError("", s.noSnapshot(v)), "", outcomeUnavailable
	}
	if err := t.unavailable(snap); err != nil {
		return toolError(id, fmt.Sprintf("%s is not available for this snapshot: %s", t.def.Name, err)), id, outcomeUnavailable
	}
	// Only paged tools take a cursor (the others' schemas refuse one) or
	// hand one out, which needs the digest of the call's arguments.
	var pos position
	if t.paged {
		var err error
		if pos, err = readCursor(t.def.Name, req, id); err != nil {
			return toolError(id, err.Error()), id, outcomeError
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.QueryTimeout)
	defer cancel()
	a, err := t.run(ctx, snap, req)
	var res *mcp.CallToolResult
	if err == nil {
		res, err = s.encode(t.def.Name, a, pos)
	}
	if err != nil {
		msg, outcome := s.describe(ctx, t.def.Name, snap, err)
		return toolError(id, msg), id, outcome
	}
	return res, id, outcomeOK
}

// bind decodes a call's arguments into args. The input schema has been
// checked already; this only fails on types the schema cannot express.
func bind(req mcp.CallToolRequest, args any) error {
	if req.Params.Arguments == nil && len(req.Params.RawArguments) == 0 {
		return nil
	}
	if err := req.BindArguments(args); err != nil {
		return agentErrorf("the arguments do not fit the tool's input schema: %s", err)
	}
	return nil
}

// marshal is encoding/json without HTML escaping: results are read by
// programs and models, not pasted into pages.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// toolError is a tool error (isError) naming the snapshot that answered.
func toolError(snapshot, msg string) *mcp.CallToolResult {
	if snapshot != "" {
		msg += " [snapshot " + snapshot + "]"
	}
	return mcp.NewToolResultError(msg)
}

// describe turns a failed call into a message the agent can act on.
// Errors that are not the agent's are logged and described without detail.
// The outcome is the call's label in vaultgraph_mcp_tool_calls_total.
func (s *Server) describe(ctx context.Context, name string, snap *store.Snapshot, err error) (string, string) {
	var ae *agentError
	var ce *cypher.Error
	switch {
	case errors.As(err, &ae):
		return ae.msg, outcomeError
	case errors.As(err, &ce):
		if ce.Kind == cypher.KindTimeout {
			return s.cypherMessage(snap, "", ce), outcomeTimeout
		}
		return s.cypherMessage(snap, "", ce), outcomeError
	case errors.Is(err, linkgraph.ErrAmbiguous):
		return err.Error(), outcomeError
	case errors.Is(err, linkgraph.ErrNotFound):
		return err.Error() + ". Names are a note's vault path (People/Alice.md), title or alias; " +
			"find notes by meaning with vector_search, or list paths with cypher_query (MATCH (n) RETURN n.path)", outcomeError
	case errors.Is(err, linkgraph.ErrInvalidRequest), errors.Is(err, retrieve.ErrInvalidRequest):
		return err.Error(), outcomeError
	case errors.Is(err, embed.ErrModelMismatch):
		return err.Error(), outcomeUnavailable
	case errors.Is(err, errTooLarge):
		return fmt.Sprintf("the result of %s is larger than %d KiB even cut down; narrow the request (%s)",
			name, s.opts.MaxResultBytes>>10, narrowHint(name)), outcomeError
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("%s ran past its time limit of %s; narrow the request", name, s.opts.QueryTimeout), outcomeTimeout
	case snap != nil && snap.Embedder != nil && snap.Embedder.Info().Provider != "builtin" && (name == toolSearch || name == toolRetrieve):
		return fmt.Sprintf("embedding the query with %s failed, try again shortly: %s", snap.Embedder.Info().Provider, err), outcomeUnavailable
	}
	id := ""
	if snap != nil {
		id = snap.ID
	}
	s.log.Error("MCP tool call failed", "tool", name, "snapshot", id, "err", err)
	return fmt.Sprintf("internal error in %s; the server log has the details", name), outcomeInternal
}

// noSnapshot is the error of a call that needs a snapshot while none is
// served yet; vault_status answers with the details (data directory,
// rejected snapshots).
func (s *Server) noSnapshot(v store.Vault) string {
	what := "no snapshot yet"
	if s.vaults.Len() > 1 {
		what = "vault " + v.Name + " has no snapshot yet"
	}
	publish := "run vaultgraph index --vault VAULT --data " + v.Store.DataDir()
	if src := v.Store.Source(); bucket.IsURL(src) {
		// Served from a bucket: the cache is not where snapshots are made.
		publish = "push one: vaultgraph index --vault VAULT --data DATA --push " + src
	}
	return what + ": " + publish + "; vault_status shows progress"
}

// vaultArg is the argument naming the vault a call is for, which every
// tool takes when several vaults are served.
const vaultArg = "vault"

// vaultKey keys, in a tool call's context, the vault the call is for.
type vaultKey struct{}

// vaultOf is the vault a call names, the default when it names none.
func (s *Server) vaultOf(req mcp.CallToolRequest) (store.Vault, error) {
	name, _ := req.GetArguments()[vaultArg].(string)
	v, err := s.vaults.Lookup(name)
	if err != nil {
		return v, agentErrorf("%s; leave %s out for the default vault (%s); vault_status lists the vaults", err, vaultArg, s.vaults.Default().Name)
	}
	return v, nil
}

// callVault is the vault of the call whose context ctx is.
func (s *Server) callVault(ctx context.Context) store.Vault {
	if v, ok := ctx.Value(vaultKey{}).(store.Vault); ok {
		return v
	}
	return s.vaults.Default()
}

// readOnly annotates a tool as the read-only, closed-world query it is.
func readOnly(title string) mcp.ToolOption {
	t, f := true, false
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{Title: title, ReadOnlyHint: &t, DestructiveHint: &f, IdempotentHint: &t, OpenWorldHint: &f})
}

// cutList keeps about frac of list (at least keepMin), reporting whether
// it cut.
func cutList[T any](list *[]T, frac float64, keepMin int) bool {
	n := len(*list)
	keep := max(int(float64(n)*frac), keepMin)
	if keep >= n {
		return false
	}
	*list = (*list)[:keep]
	return true
}

// snippet shortens s to at most n bytes at a rune boundary, with an
// ellipsis, reporting whether it cut.
func snippet(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && n < len(s) && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…", true
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// plural is n and the noun, plural unless n is 1: "1 row", "3 rows".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// aliased renames the arguments of req that t.aliases names (older names
// of its arguments) to their own names; a call naming both is refused.
func (t *tool) aliased(req mcp.CallToolRequest) (mcp.CallToolRequest, error) {
	if len(t.aliases) == 0 {
		return req, nil
	}
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		raw, _ = json.Marshal(req.Params.Arguments)
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || args == nil {
		return req, nil // the schema check says what is wrong
	}
	changed, err := serve.RenameAliases(args, t.aliases)
	if err != nil {
		return req, agentErrorf("%s", err)
	}
	if !changed {
		return req, nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return req, fmt.Errorf("re-encode arguments: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return req, fmt.Errorf("re-decode arguments: %w", err)
	}
	req.Params.RawArguments, req.Params.Arguments = b, m
	return req, nil
}
