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
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
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
	// CodeLinks are the note's links to code (at most 200), when a
	// repository is indexed: the files and symbols it points at, for
	// retrieve_context's anchor.
	CodeLinks []codecontext.CodeLink `json:"code_links,omitempty"`
	// The note's text from byte ContentOffset to ContentEnd is the
	// answer's second content block, given once and not here;
	// ContentBytes is the whole note's length, and NextOffset where the
	// next part starts when ContentTruncated, which Hint says.
	ContentOffset    int    `json:"content_offset"`
	ContentEnd       int    `json:"content_end"`
	ContentBytes     int    `json:"content_bytes"`
	ContentTruncated bool   `json:"content_truncated"`
	NextOffset       int    `json:"next_offset,omitempty"`
	Hint             string `json:"hint,omitempty"`
	// Cut says what was cut to fit the answer, and how to get it.
	Cut    string `json:"cut,omitempty"`
	Notice string `json:"notice"`
}

// notePart is read_note's structured content for a part of the text after
// the first (offset > 0): the metadata came with the first part, so this
// says only which note and which bytes (the members of noteOutput's of
// the same names).
type notePart struct {
	Snapshot         string `json:"snapshot"`
	Path             string `json:"path"`
	ContentOffset    int    `json:"content_offset"`
	ContentEnd       int    `json:"content_end"`
	ContentBytes     int    `json:"content_bytes"`
	ContentTruncated bool   `json:"content_truncated"`
	NextOffset       int    `json:"next_offset,omitempty"`
	Hint             string `json:"hint,omitempty"`
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
		mcp.WithDescription(`Read a note by path, title or alias: metadata, properties, headings and links as JSON, then its markdown text once, as a second content block, paged by bytes (offset; the hint says where the rest starts; parts after the first hold only path, offsets and text). Use it to read and cite a note you found with another tool.`),
		readOnly("Read a note"),
		mcp.WithString("path", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(4096), mcp.Description(noteName)),
		mcp.WithInteger("offset", mcp.Min(0), mcp.DefaultNumber(0),
			mcp.Description("Byte to read from: next_offset of the previous part.")),
		mcp.WithInteger("max_bytes", mcp.Min(1), mcp.Max(maxNoteBytes), mcp.DefaultNumber(defaultNoteBytes),
			mcp.Description("Most bytes of text (the answer's budget may allow fewer).")),
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
		limit = maxNoteBytes
	}
	if args.Offset > len(n.Content) {
		return nil, agentErrorf("offset %d is past the end of %s, which has %d bytes", args.Offset, n.ID, len(n.Content))
	}
	start := runeStart(n.Content, args.Offset)
	// part says which bytes the answer holds: out's, or only that after
	// the first part.
	part := &notePart{Snapshot: snap.ID, Path: n.ID, ContentOffset: start, ContentEnd: start, ContentBytes: len(n.Content),
		Notice: serve.VaultTextNotice}
	fit := func(room int) string {
		end := textEnd(n.Content, start, min(limit, maxNoteBytes), room)
		part.ContentEnd, part.ContentTruncated, part.NextOffset, part.Hint = end, false, 0, ""
		if end < len(n.Content) {
			part.ContentTruncated, part.NextOffset = true, end
			part.Hint = fmt.Sprintf("bytes %d-%d of %d shown; for the rest call read_note again with offset %d", start, end, len(n.Content), end)
		}
		return n.Content[start:end]
	}
	if args.Offset > 0 {
		return &answer{out: part, body: fit}, nil
	}
	out := noteOutputOf(snap, n, s.resourceVault(s.callVault(ctx).Name))
	out.ContentOffset, out.ContentEnd, out.ContentBytes = start, start, len(n.Content)
	shrink := func(frac float64) bool {
		cut := cutList(&out.Outgoing, frac, 0)
		cut = cutList(&out.Incoming, frac, 0) || cut
		if cut {
			out.Cut = fmt.Sprintf("%d of %d links out and %d of %d links in shown; the graph tool lists them all (action forwardlinks or backlinks)",
				len(out.Outgoing), out.OutgoingTotal, len(out.Incoming), out.IncomingTotal)
		}
		// Headings go last: they are the note's map, and the text has them.
		if !cut && cutList(&out.Headings, frac, 0) {
			out.Cut, cut = fmt.Sprintf("the first %d headings shown; the text has them all", len(out.Headings)), true
		}
		return cut
	}
	first := func(room int) string {
		text := fit(room)
		out.ContentEnd, out.ContentTruncated, out.NextOffset, out.Hint = part.ContentEnd, part.ContentTruncated, part.NextOffset, part.Hint
		return text
	}
	return &answer{out: out, shrink: shrink, body: first}, nil
}

// textEnd is where a page of text that starts at start ends: after at
// most max bytes and at most room bytes once escaped into JSON, at a line
// end when one is near, never inside a rune.
func textEnd(text string, start, max, room int) int {
	cost, end := 0, start
	for end < len(text) && end-start < max {
		c := text[end]
		n := 1
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r':
			n = 2
		case c < 0x20:
			n = 6
		}
		if cost+n > room {
			break
		}
		cost += n
		end++
	}
	if end == len(text) {
		return end
	}
	for end > start && !isRuneStart(text[end]) {
		end--
	}
	if nl := strings.LastIndexByte(text[start:end], '\n'); nl >= 0 && start+nl+1 > start+(end-start)*4/5 {
		end = start + nl + 1
	}
	return end
}

// findNote finds a note by path (any Unicode form, .md optional), else by
// title or alias; an ambiguous name is an error listing the candidates.
func findNote(snap *store.Snapshot, name string) (*format.Note, error) {
	if n, ok := snap.Notes.Lookup(name); ok {
		return n, nil
	}
	i, err := snap.Links.Resolve(name)
	if err != nil {
		if strings.HasPrefix(name, "code:") {
			// An id retrieve_context gave: code is not a note.
			return nil, agentErrorf("%s is code, not a note: read the file in its repository (the path after code:REPO/ is relative to the repository's root); retrieve_context with anchor %s lists what changes with it, its tests and the notes about it", name, name)
		}
		if w, ok := format.Skipped(snap.Manifest.Warnings, name); ok {
			return nil, agentErrorf("no note %q in snapshot %s: the file was skipped (%s: %s)", name, snap.ID, w.Kind, w.Message)
		}
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
	if snap.Code != nil {
		links := snap.Code.CodeLinks(n.ID)
		out.CodeLinks = links[:min(len(links), maxNoteEdges)]
	}
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
