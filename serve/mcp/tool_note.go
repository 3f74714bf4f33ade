package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
)

// Bounds of read_note.
const (
	defaultNoteBytes = 32 << 10
	maxNoteBytes     = 256 << 10
	// maxNoteEdges bounds each of a note's edge lists; a hub's thousands
	// of backlinks are the graph tool's job.
	maxNoteEdges = 200
	// maxTextEdges bounds the edges shown in the text rendering.
	maxTextEdges = 40
)

type noteArgs struct {
	Path     string `json:"path"`
	Offset   int    `json:"offset"`
	MaxBytes int    `json:"max_bytes"`
}

// noteOutput is read_note's structured content.
type noteOutput struct {
	Snapshot string `json:"snapshot"`
	// Path is the note's vault path, or a stub's link text.
	Path       string         `json:"path"`
	Title      string         `json:"title"`
	Stub       bool           `json:"stub"`
	Folder     string         `json:"folder"`
	Labels     []string       `json:"labels"`
	Tags       []string       `json:"tags"`
	Aliases    []string       `json:"aliases"`
	Properties map[string]any `json:"properties"`
	Modified   string         `json:"modified,omitempty"`
	Size       int64          `json:"size"`
	// Resource is the note's MCP resource URI.
	Resource string `json:"resource,omitempty"`
	// Headings are the note's sections as chunked, with their lines.
	Headings []noteHeading `json:"headings"`
	// Outgoing and Incoming are the note's edges (at most 200 each);
	// the totals count them all.
	Outgoing      []noteEdge `json:"outgoing"`
	Incoming      []noteEdge `json:"incoming"`
	OutgoingTotal int        `json:"outgoing_total"`
	IncomingTotal int        `json:"incoming_total"`
	// Content is the note's text from byte ContentOffset, at most
	// max_bytes of it; ContentBytes is the whole note's length, and
	// NextOffset where the next part starts when ContentTruncated.
	Content          string `json:"content"`
	ContentOffset    int    `json:"content_offset"`
	ContentBytes     int    `json:"content_bytes"`
	ContentTruncated bool   `json:"content_truncated"`
	NextOffset       int    `json:"next_offset,omitempty"`
	Notice           string `json:"notice"`
}

type noteHeading struct {
	Heading string `json:"heading"`
	Line    int    `json:"line"`
}

// noteEdge is an edge seen from one of its notes: Note is the other end.
type noteEdge struct {
	Type       string         `json:"type"`
	Note       string         `json:"note"`
	Sign       int            `json:"sign"`
	Count      int            `json:"count"`
	Line       int            `json:"line"`
	Properties map[string]any `json:"properties,omitempty"`
	Unresolved bool           `json:"unresolved,omitempty"`
}

func (s *Server) readNoteTool() *tool {
	def := mcp.NewTool(toolReadNote,
		mcp.WithDescription(`Read one note from the snapshot: its markdown text (paged by bytes for long notes), title, labels, tags, aliases, frontmatter and inline properties, headings with lines, and its typed and plain links in both directions.
Use it once you know which note you need (from vector_search, graphrag_retrieve, the graph tool or a query) to read it in full and cite it. Name the note by path, title or alias; an ambiguous name lists the candidates. To find notes you cannot name use vector_search; for a note's links beyond the first 200 use the graph tool (action backlinks or forwardlinks).`),
		readOnly("Read a note"),
		mcp.WithString("path", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(4096), mcp.Description(noteName)),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0),
			mcp.Description("Byte offset to read from: the next_offset of the previous part of a long note.")),
		mcp.WithInteger("max_bytes", mcp.Min(1), mcp.Max(maxNoteBytes), mcp.DefaultNumber(defaultNoteBytes),
			mcp.Description("Most bytes of text to return; the rest is one call with offset away.")),
		mcp.WithOutputSchema[noteOutput](),
	)
	return &tool{def: def, run: s.runReadNote}
}

func (s *Server) runReadNote(ctx context.Context, snap *store.Snapshot, req mcp.CallToolRequest) (*answer, error) {
	var args noteArgs
	if err := bind(req, &args); err != nil {
		return nil, err
	}
	n, err := findNote(snap, args.Path)
	if err != nil {
		return nil, err
	}
	limit := args.MaxBytes
	if limit <= 0 {
		limit = defaultNoteBytes
	}
	out := noteOutputOf(snap, n, s.resourceVault(s.callVault(ctx).Name))
	if args.Offset > len(n.Content) {
		return nil, agentErrorf("offset %d is past the end of %s, which has %d bytes", args.Offset, n.ID, len(n.Content))
	}
	start := runeStart(n.Content, args.Offset)
	end := min(start+min(limit, maxNoteBytes), len(n.Content))
	for end < len(n.Content) && end > start && !isRuneStart(n.Content[end]) {
		end--
	}
	out.Content, out.ContentOffset, out.ContentBytes = n.Content[start:end], start, len(n.Content)
	if end < len(n.Content) {
		out.ContentTruncated, out.NextOffset = true, end
	}
	shrink := func(frac float64) bool {
		cut := cutList(&out.Outgoing, frac, 0)
		cut = cutList(&out.Incoming, frac, 0) || cut
		keep := int(float64(len(out.Content)) * frac)
		for keep > 0 && !isRuneStart(out.Content[keep]) {
			keep--
		}
		if keep > 0 && keep < len(out.Content) {
			out.Content = out.Content[:keep]
			out.ContentTruncated, out.NextOffset = true, out.ContentOffset+keep
			cut = true
		}
		return cut
	}
	return &answer{out: out, shrink: shrink, text: func() string { return noteText(out) }}, nil
}

// findNote finds a note by path (any Unicode form, .md optional), else by
// title or alias; an ambiguous name is an error listing the candidates.
func findNote(snap *store.Snapshot, name string) (*format.Note, error) {
	if n, ok := snap.Notes.Lookup(name); ok {
		return n, nil
	}
	i, err := snap.Links.Resolve(name)
	if err != nil {
		return nil, err
	}
	id := snap.Links.Note(i).ID
	n, ok := snap.Notes.Lookup(id)
	if !ok {
		return nil, fmt.Errorf("note %q resolved by the link graph is missing from the note index", id)
	}
	return n, nil
}

// runeStart moves i forward to the start of a rune of s.
func runeStart(s string, i int) int {
	for i < len(s) && !isRuneStart(s[i]) {
		i++
	}
	return i
}

// noteOutputOf is read_note's answer for n; vault names the vault in the
// note's resource URI ("" with one vault).
func noteOutputOf(snap *store.Snapshot, n *format.Note, vault string) *noteOutput {
	out := &noteOutput{Snapshot: snap.ID, Path: n.ID, Title: n.Title, Stub: n.Stub, Folder: n.Folder,
		Labels: nonNil(n.Labels), Tags: nonNil(n.Tags), Aliases: nonNil(n.Aliases), Properties: map[string]any{},
		Size: n.Size, Headings: []noteHeading{}, Notice: serve.VaultTextNotice}
	if !n.Stub {
		out.Modified = n.Modified.UTC().Format(time.RFC3339)
		out.Resource = noteURI(vault, n.Path)
	}
	for _, p := range n.Properties {
		v, err := p.Decode()
		if err != nil {
			v = p.Text()
		}
		out.Properties[p.Key] = v
	}
	seen := map[string]bool{}
	for _, c := range snap.Notes.Chunks(n.ID) {
		if c.Heading != "" && !seen[c.Heading] {
			seen[c.Heading] = true
			out.Headings = append(out.Headings, noteHeading{Heading: c.Heading, Line: int(c.Line)})
		}
	}
	outgoing, incoming := snap.Notes.Outgoing(n.ID), snap.Notes.Incoming(n.ID)
	out.OutgoingTotal, out.IncomingTotal = len(outgoing), len(incoming)
	out.Outgoing = noteEdges(outgoing, func(e *format.Edge) string { return e.Target })
	out.Incoming = noteEdges(incoming, func(e *format.Edge) string { return e.Source })
	return out
}

// noteEdges lists edges, typed ones first, at most maxNoteEdges.
func noteEdges(edges []*format.Edge, other func(*format.Edge) string) []noteEdge {
	sorted := append([]*format.Edge(nil), edges...)
	sort.SliceStable(sorted, func(i, j int) bool { return typed(sorted[i]) && !typed(sorted[j]) })
	out := make([]noteEdge, 0, min(len(sorted), maxNoteEdges))
	for _, e := range sorted[:min(len(sorted), maxNoteEdges)] {
		ne := noteEdge{Type: e.Type, Note: other(e), Sign: int(e.Sign), Count: int(e.Count), Line: int(e.Line), Unresolved: e.Unresolved}
		if len(e.Properties) > 0 {
			ne.Properties = map[string]any{}
			for _, p := range e.Properties {
				v, err := p.Decode()
				if err != nil {
					v = p.Text()
				}
				ne.Properties[p.Key] = v
			}
		}
		out = append(out, ne)
	}
	return out
}

func typed(e *format.Edge) bool { return e.Type != format.TypeLinksTo && e.Type != format.TypeEmbeds }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func noteText(out *noteOutput) string {
	var b strings.Builder
	b.WriteString(heading(out.Snapshot, true))
	b.WriteString(out.Path)
	if out.Title != "" && !strings.EqualFold(out.Title+".md", pathBase(out.Path)) {
		b.WriteString(" — " + out.Title)
	}
	if len(out.Labels) > 0 {
		b.WriteString(" :" + strings.Join(out.Labels, ":"))
	}
	if len(out.Tags) > 0 {
		b.WriteString(" #" + strings.Join(out.Tags, " #"))
	}
	b.WriteString("\n")
	if out.Stub {
		b.WriteString("A stub: notes link to it but no such note exists in the vault.\n")
	}
	if len(out.Aliases) > 0 {
		b.WriteString("aliases: " + strings.Join(out.Aliases, ", ") + "\n")
	}
	if len(out.Properties) > 0 {
		p, _ := marshal(out.Properties)
		b.WriteString("properties: " + string(p) + "\n")
	}
	edgeLines(&b, "links out", out.Outgoing, out.OutgoingTotal, "->")
	edgeLines(&b, "links in", out.Incoming, out.IncomingTotal, "<-")
	if out.Stub {
		return b.String()
	}
	fmt.Fprintf(&b, "--- text, bytes %d–%d of %d ---\n", out.ContentOffset, out.ContentOffset+len(out.Content), out.ContentBytes)
	b.WriteString(out.Content)
	if !strings.HasSuffix(out.Content, "\n") {
		b.WriteString("\n")
	}
	if out.ContentTruncated {
		fmt.Fprintf(&b, "--- continues: call read_note with offset %d ---\n", out.NextOffset)
	} else {
		b.WriteString("--- end ---\n")
	}
	return b.String()
}

func edgeLines(b *strings.Builder, what string, edges []noteEdge, total int, arrow string) {
	if total == 0 {
		return
	}
	parts := make([]string, 0, min(len(edges), maxTextEdges))
	for _, e := range edges[:min(len(edges), maxTextEdges)] {
		s := signed(e.Type, e.Sign) + " " + arrow + " " + e.Note
		if len(e.Properties) > 0 {
			p, _ := marshal(e.Properties)
			s += " " + string(p)
		}
		parts = append(parts, s)
	}
	more := ""
	if total > len(parts) {
		more = fmt.Sprintf("; … %d more", total-len(parts))
	}
	fmt.Fprintf(b, "%s (%d): %s%s\n", what, total, strings.Join(parts, "; "), more)
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
