package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// Bounds of cypher_query.
const (
	defaultCypherRows = 100
	maxQueryBytes     = 64 << 10
)

// cypherOutput is cypher_query's structured content.
type cypherOutput struct {
	Snapshot string           `json:"snapshot"`
	Columns  []graphdb.Column `json:"columns"`
	// Rows hold one value per column: scalars, lists, maps, and nodes,
	// relationships and paths as _type-tagged objects.
	Rows     [][]any `json:"rows"`
	RowCount int     `json:"row_count"`
	// Truncated is set when rows were cut: past max_rows ("rows") or past
	// the result size cap ("bytes").
	Truncated   bool    `json:"truncated"`
	TruncatedBy string  `json:"truncated_by,omitempty"`
	MaxRows     int     `json:"max_rows"`
	ElapsedMS   float64 `json:"elapsed_ms"`
	Message     string  `json:"message,omitempty"`
	// Notices name the labels and relationship types the query wrote that
	// the snapshot lacks (they match nothing), with the name probably
	// meant.
	Notices []string `json:"notices,omitempty"`
	Notice  string   `json:"notice"`
}

func (s *Server) cypherTool() *tool {
	def := mcp.NewTool(toolCypher,
		mcp.WithDescription(`Read-only openCypher over the vault's graph: typed columns and rows. Use it for exact filters, joins, counts and multi-hop patterns over typed links and properties. Notes are nodes labelled by their frontmatter type (:Person) with path, title, folder, tags, aliases, frontmatter and inline fields; typed links are relationships named as written ([:depends_on] with their properties, backquote `+"`odd names`"+`), plain links [:links_to], embeds [:embeds]; id(n) is the path. vault_status lists this snapshot's schema. Not for finding notes by topic (vector_search) or walking links (graph). Rows page (next.cursor).`),
		readOnly("Cypher query"),
		mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxQueryBytes),
			mcp.Description("e.g. MATCH (p:Person)-[c:contributes]->(x:Project) WHERE c.hours >= 100 RETURN p.title, c.hours, x.title")),
		mcp.WithObject("params", mcp.AdditionalProperties(true),
			mcp.Description("Values of the query's $parameters by name.")),
		mcp.WithInteger("max_rows", mcp.Min(1), mcp.Max(s.opts.MaxRows), mcp.DefaultNumber(min(defaultCypherRows, s.opts.MaxRows)),
			mcp.Description("Most rows the query may return.")),
		mcp.WithInteger("timeout_ms", mcp.Min(1), mcp.Max(int(s.opts.QueryTimeout.Milliseconds())),
			mcp.DefaultNumber(int(s.opts.QueryTimeout.Milliseconds())), mcp.Description("Time limit.")),
		mcp.WithString("backend", mcp.Enum("builtin", "ladybug"), mcp.Description("The Typed Graph sidecar's engine; both run on this graph.")),
		mcp.WithOutputSchema[cypherOutput](),
	)
	return &tool{def: def, needs: func(snap *store.Snapshot) error {
		if snap.Graph != nil {
			return nil
		}
		if snap.GraphErr != nil {
			return snap.GraphErr
		}
		return errors.New("the snapshot has no graph database")
	}, run: s.runCypher, paged: true}
}

func (s *Server) runCypher(ctx context.Context, snap *store.Snapshot, req mcp.CallToolRequest) (*answer, error) {
	var args serve.QueryRequest
	if err := bind(req, &args); err != nil {
		return nil, err
	}
	if strings.TrimSpace(args.Query) == "" {
		return nil, agentErrorf("query is empty: pass an openCypher query, e.g. MATCH (n:Person) RETURN n.title LIMIT 10")
	}
	maxRows := args.MaxRows
	if maxRows <= 0 {
		maxRows = min(defaultCypherRows, s.opts.MaxRows)
	}
	timeout := s.opts.QueryTimeout
	if t := time.Duration(args.TimeoutMS) * time.Millisecond; t > 0 && t < timeout {
		timeout = t
	}
	res, err := snap.Graph.Run(ctx, graphdb.Request{Query: args.Query, Params: args.Params, MaxRows: min(maxRows, s.opts.MaxRows), Timeout: timeout})
	var ce *cypher.Error
	if errors.As(err, &ce) {
		return nil, &agentError{msg: s.cypherMessage(snap, args.Query, ce)}
	}
	if err != nil {
		return nil, err
	}
	out := &cypherOutput{Snapshot: snap.ID, Columns: res.Columns, Rows: res.Rows, RowCount: len(res.Rows),
		Truncated: res.Truncated, MaxRows: res.MaxRows, ElapsedMS: res.ElapsedMS, Notices: res.Notices, Notice: serve.VaultTextNotice}
	if out.Columns == nil {
		out.Columns = []graphdb.Column{}
	}
	if out.Rows == nil {
		out.Rows = [][]any{}
	}
	if res.Truncated {
		out.TruncatedBy = "rows"
		out.Message = fmt.Sprintf("the query has more than %d rows; raise max_rows (at most %d) or page with SKIP and LIMIT", res.MaxRows, s.opts.MaxRows)
	}
	rows := out.Rows
	pg := &page{n: len(rows), noun: "rows", show: func(from, to int) {
		out.Rows, out.RowCount = rows[from:to], to-from
	}}
	return &answer{out: out, page: pg}, nil
}

// cypherMessage explains a query error: package cypher's message, which
// says how to fix what the parser can tell (a name that needs backquotes, a
// procedure that cannot be called), the query line with a caret under the
// column, and a hint with what this tool and snapshot add: the labels and
// relationship types to write, the argument to change. The hint never
// repeats the query language's advice, which the message has already.
func (s *Server) cypherMessage(snap *store.Snapshot, query string, e *cypher.Error) string {
	var b strings.Builder
	b.WriteString(e.Error())
	if e.Line > 0 {
		lines := strings.Split(query, "\n")
		if e.Line <= len(lines) {
			line, col := window([]rune(lines[e.Line-1]), e.Column)
			fmt.Fprintf(&b, "\n  %s\n  %s^", line, strings.Repeat(" ", col))
		}
	}
	if hint := s.cypherHint(snap, e.Kind); hint != "" {
		b.WriteString("\nHint: " + hint)
	}
	return b.String()
}

// cypherHint is what cypher_query adds to an error of kind k, or "".
func (s *Server) cypherHint(snap *store.Snapshot, k cypher.Kind) string {
	switch k {
	case cypher.KindSyntax:
		return "fix the query at the caret." + schemaHint(snap)
	case cypher.KindUnsupported:
		return "rewrite the query without that construct; " + toolStatus + " lists this snapshot's labels, relationship types and property names."
	case cypher.KindReadOnly:
		return toolCypher + " only reads: a snapshot changes when the vault is edited and indexed again."
	case cypher.KindParameter:
		return `pass every $name the query uses in params, e.g. {"params": {"name": "Alice"}}.`
	case cypher.KindTimeout:
		return fmt.Sprintf("timeout_ms sets the limit, at most %s.", s.opts.QueryTimeout)
	case cypher.KindCanceled:
		return "the call was canceled; run it again."
	case cypher.KindRuntime:
		return "the graph engine refused the query; check function names and property types." + schemaHint(snap)
	case graphdb.KindOutOfMemory:
		return "the engine's memory is shared by every query running now: try again in a few seconds, or ask less at once (a shorter variable-length range, a LIMIT)."
	}
	return ""
}

// window returns at most 100 runes of line around column (1-based), and
// the caret's offset in what it returns.
func window(line []rune, column int) (string, int) {
	col := max(column-1, 0)
	start := max(col-60, 0)
	end := min(start+100, len(line))
	prefix := ""
	if start > 0 {
		prefix = "…"
	}
	if start > len(line) {
		start = len(line)
	}
	return prefix + string(line[start:end]), col - start + len([]rune(prefix))
}

// schemaHint lists the snapshot's labels and relationship types (at most
// 30 of each, in the manifest's order).
func schemaHint(snap *store.Snapshot) string {
	g := snap.Manifest.Graph
	if g == nil {
		return ""
	}
	labels := make([]string, 0, len(g.Labels))
	for _, l := range g.Labels {
		labels = append(labels, l.Name)
	}
	types := make([]string, 0, len(g.EdgeTypes))
	for _, t := range g.EdgeTypes {
		name := t.Name
		if strings.ContainsAny(name, " -") {
			name = "`" + name + "`"
		}
		types = append(types, name)
	}
	return fmt.Sprintf(" Labels: %s. Relationship types: %s.", firstN(labels, 30), firstN(types, 30))
}

func firstN(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(", … (%d more; vault_status lists all)", len(names)-n)
}
