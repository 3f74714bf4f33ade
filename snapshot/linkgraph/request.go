package linkgraph

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Actions of Request.Action.
const (
	ActionTraverse     = "traverse"
	ActionNeighbors    = "neighbors"
	ActionPath         = "path"
	ActionStatistics   = "statistics"
	ActionBacklinks    = "backlinks"
	ActionForwardlinks = "forwardlinks"
)

// Actions lists every action, in the order help texts show them.
var Actions = []string{ActionTraverse, ActionNeighbors, ActionPath, ActionStatistics, ActionBacklinks, ActionForwardlinks}

// Defaults and limits of requests. A request asking for more than a limit
// is given the limit (and says so in its message), never refused.
const (
	DefaultMaxDepth  = 3
	DefaultMaxNodes  = 50
	DefaultMaxEdges  = 500
	DefaultMaxPaths  = 10
	DefaultListLimit = 500
	DefaultTimeout   = 2 * time.Second

	MaxDepthLimit   = 10
	MaxNodesLimit   = 10000
	MaxEdgesLimit   = 20000
	MaxPathsLimit   = 1000
	MaxTimeoutLimit = 30 * time.Second
	maxFilterLength = 1000
)

// ErrInvalidRequest is wrapped by errors about a request that cannot be
// answered as asked: an unknown action, a missing sourcePath, a bad
// fileFilter. Servers answer it with 400.
var ErrInvalidRequest = errors.New("invalid graph request")

// Request is one graph query, in the parameter names of the
// obsidian-mcp-plugin's graph tool plus typed-edge extensions. Zero values
// select defaults; followBacklinks and followForwardLinks default to true.
type Request struct {
	// Action is one of the Action constants. Operation is accepted as its
	// older name.
	Action    string `json:"action"`
	Operation string `json:"operation,omitempty"`
	// SourcePath and TargetPath name notes by path, title or alias.
	// Statistics without a sourcePath describe the whole vault.
	SourcePath string `json:"sourcePath,omitempty"`
	TargetPath string `json:"targetPath,omitempty"`
	// MaxDepth is the number of hops a traversal or an all-paths search
	// goes (default 3, at most 10). A shortest path is not limited by it
	// unless set.
	MaxDepth int `json:"maxDepth,omitempty"`
	// MaxNodes bounds the notes of a traversal (default 50) and, when set,
	// the notes listed by neighbors, backlinks, forwardlinks and vault
	// statistics (default 500).
	MaxNodes           int   `json:"maxNodes,omitempty"`
	FollowBacklinks    *bool `json:"followBacklinks,omitempty"`
	FollowForwardLinks *bool `json:"followForwardLinks,omitempty"`
	// FollowTags also connects notes that share a tag (edges of type
	// "tag" whose count is the number of shared tags).
	FollowTags bool `json:"followTags,omitempty"`
	// IncludeUnresolved lets traversals and paths visit stubs, the targets
	// of links to missing notes (default false). Neighbors, backlinks and
	// forwardlinks list stubs unless it is set false, as the plugin's
	// includeUnresolved: false asks.
	IncludeUnresolved *bool `json:"includeUnresolved,omitempty"`
	// FileFilter is a regular expression (RE2) a note's path must match;
	// FolderFilter a folder its path must be in. The source always passes.
	FileFilter   string `json:"fileFilter,omitempty"`
	FolderFilter string `json:"folderFilter,omitempty"`
	// TagFilter keeps only notes with one of these tags ("#project" or
	// "project"; a nested tag project/x counts as project too). The source
	// always passes.
	TagFilter []string `json:"tagFilter,omitempty"`
	// EdgeTypes keeps only edges of these types (link or links_to for plain
	// links, embed or embeds, or a typed edge's name; case-insensitive).
	EdgeTypes []string `json:"edgeTypes,omitempty"`
	// All asks path for every simple path up to maxDepth hops, not only the
	// shortest; MaxPaths bounds them (default 10).
	All      bool `json:"all,omitempty"`
	MaxPaths int  `json:"maxPaths,omitempty"`
	// MaxEdges bounds the edges of a traversal (default 500).
	MaxEdges int `json:"maxEdges,omitempty"`
	// TimeoutMS bounds an all-paths search (default 2000 ms, at most 30 s).
	TimeoutMS int `json:"timeoutMs,omitempty"`
}

// Response is the answer to a Request, in the obsidian-mcp-plugin's shapes
// plus typed-edge fields.
type Response struct {
	Operation  string `json:"operation"`
	Snapshot   string `json:"snapshot,omitempty"`
	SourcePath string `json:"sourcePath,omitempty"`
	TargetPath string `json:"targetPath,omitempty"`
	Nodes      []Node `json:"nodes,omitempty"`
	Edges      []Edge `json:"edges,omitempty"`
	// Found says, for path, whether the notes are connected; Paths lists
	// the paths found as lists of note paths, shortest first, and
	// PathEdges the edges of each hop of each path.
	Found     *bool      `json:"found,omitempty"`
	Paths     [][]string `json:"paths,omitempty"`
	PathEdges [][]Edge   `json:"pathEdges,omitempty"`
	// Statistics describe one note; VaultStatistics the whole vault.
	Statistics      *NoteStatistics  `json:"statistics,omitempty"`
	VaultStatistics *VaultStatistics `json:"vaultStatistics,omitempty"`
	GraphStats      GraphStats       `json:"graphStats"`
	// Truncated is set when more qualified than a bound let through;
	// Stopped names the bound (maxNodes, maxEdges, maxPaths, limit,
	// timeout).
	Truncated bool   `json:"truncated"`
	Stopped   string `json:"stopped,omitempty"`
	Message   string `json:"message"`
}

// Node is a note (type "file") or stub (type "stub") in a response.
type Node struct {
	// Path is the vault path, or a stub's link text.
	Path   string     `json:"path"`
	Title  string     `json:"title"`
	Type   string     `json:"type"`
	Labels []string   `json:"labels,omitempty"`
	Tags   []string   `json:"tags"`
	Links  LinkCounts `json:"links"`
	// Depth is the number of hops from the source.
	Depth int `json:"depth"`
}

// LinkCounts count the distinct notes a note links to (forward, stubs not
// counted) and is linked from (backward), over edges of every type.
type LinkCounts struct {
	Forward  int `json:"forward"`
	Backward int `json:"backward"`
	Total    int `json:"total"`
}

// Edge is an edge in a response. Plain links from one note to another are
// one edge whose Count is the number of links; typed edges are one per
// occurrence, with their sign, properties and sentence.
type Edge struct {
	Source     string     `json:"source"`
	Target     string     `json:"target"`
	Type       string     `json:"type"`
	Count      int        `json:"count"`
	ID         string     `json:"id,omitempty"`
	Sign       int        `json:"sign"`
	Properties Properties `json:"properties,omitempty"`
	Sentence   string     `json:"sentence,omitempty"`
	Unresolved bool       `json:"unresolved,omitempty"`
	// Tags are the shared tags of a "tag" edge.
	Tags []string `json:"tags,omitempty"`
}

// GraphStats summarise a response.
type GraphStats struct {
	TotalNodes      int `json:"totalNodes"`
	TotalEdges      int `json:"totalEdges"`
	MaxDepthReached int `json:"maxDepthReached"`
	// TraversalTime is in milliseconds.
	TraversalTime float64 `json:"traversalTime"`
}

// EdgeTypeTag is the type of the edges FollowTags adds between notes that
// share a tag.
const EdgeTypeTag = "tag"

// Do answers a request of any action.
func (g *Graph) Do(ctx context.Context, req Request) (*Response, error) {
	action := req.Action
	if action == "" {
		action = req.Operation
	}
	switch strings.ToLower(strings.TrimSpace(action)) {
	case ActionTraverse:
		return g.Traverse(ctx, req)
	case ActionNeighbors:
		return g.Neighbors(ctx, req)
	case ActionPath:
		return g.Path(ctx, req)
	case ActionStatistics, "stats":
		return g.Statistics(ctx, req)
	case ActionBacklinks:
		return g.Backlinks(ctx, req)
	case ActionForwardlinks, "forwardLinks":
		return g.Forwardlinks(ctx, req)
	case "":
		return nil, fmt.Errorf("%w: action is required (%s)", ErrInvalidRequest, strings.Join(Actions, ", "))
	}
	return nil, fmt.Errorf("%w: unknown action %q (use %s)", ErrInvalidRequest, action, strings.Join(Actions, ", "))
}

// query is a Request checked and with defaults applied.
type query struct {
	req                         Request
	maxDepth, maxNodes          int
	maxEdges, maxPaths, limit   int
	timeout                     time.Duration
	forward, backward, tags     bool
	unresolved                  bool
	types                       map[string]bool
	file                        *regexp.Regexp
	folder                      string
	tagFilter                   []string
	notes                       []string // what was capped, for the message
	depthSet, nodesSet, pathSet bool
}

func newQuery(req Request) (*query, error) {
	q := &query{req: req, forward: true, backward: true, tags: req.FollowTags, unresolved: req.IncludeUnresolved != nil && *req.IncludeUnresolved}
	if req.FollowForwardLinks != nil {
		q.forward = *req.FollowForwardLinks
	}
	if req.FollowBacklinks != nil {
		q.backward = *req.FollowBacklinks
	}
	if req.MaxDepth < 0 || req.MaxNodes < 0 || req.MaxEdges < 0 || req.MaxPaths < 0 || req.TimeoutMS < 0 {
		return nil, fmt.Errorf("%w: maxDepth, maxNodes, maxEdges, maxPaths and timeoutMs must not be negative", ErrInvalidRequest)
	}
	q.depthSet, q.nodesSet, q.pathSet = req.MaxDepth > 0, req.MaxNodes > 0, req.MaxPaths > 0
	q.maxDepth = q.bound("maxDepth", req.MaxDepth, DefaultMaxDepth, MaxDepthLimit)
	q.maxNodes = q.bound("maxNodes", req.MaxNodes, DefaultMaxNodes, MaxNodesLimit)
	q.limit = DefaultListLimit
	if q.nodesSet {
		q.limit = q.maxNodes
	}
	q.maxEdges = q.bound("maxEdges", req.MaxEdges, DefaultMaxEdges, MaxEdgesLimit)
	q.maxPaths = q.bound("maxPaths", req.MaxPaths, DefaultMaxPaths, MaxPathsLimit)
	q.timeout = time.Duration(req.TimeoutMS) * time.Millisecond
	if q.timeout == 0 {
		q.timeout = DefaultTimeout
	}
	if q.timeout > MaxTimeoutLimit {
		q.timeout = MaxTimeoutLimit
		q.notes = append(q.notes, fmt.Sprintf("timeoutMs capped at %d", MaxTimeoutLimit.Milliseconds()))
	}
	for _, t := range req.EdgeTypes {
		if t = filterType(t); t != "" {
			if q.types == nil {
				q.types = map[string]bool{}
			}
			q.types[t] = true
		}
	}
	for _, t := range req.TagFilter {
		if t = foldTag(t); t != "" {
			q.tagFilter = append(q.tagFilter, t)
		}
	}
	if req.FileFilter != "" {
		if len(req.FileFilter) > maxFilterLength {
			return nil, fmt.Errorf("%w: fileFilter is longer than %d bytes", ErrInvalidRequest, maxFilterLength)
		}
		re, err := regexp.Compile(req.FileFilter)
		if err != nil {
			return nil, fmt.Errorf("%w: fileFilter: %w", ErrInvalidRequest, err)
		}
		q.file = re
	}
	if f := strings.Trim(strings.TrimSpace(req.FolderFilter), "/"); f != "" {
		q.folder = strings.ToLower(f) + "/"
	}
	return q, nil
}

func (q *query) bound(name string, v, def, limit int) int {
	switch {
	case v == 0:
		return def
	case v > limit:
		q.notes = append(q.notes, fmt.Sprintf("%s capped at %d", name, limit))
		return limit
	}
	return v
}

// message appends the caps applied to msg.
func (q *query) message(msg string) string {
	if len(q.notes) == 0 {
		return msg
	}
	return msg + " (" + strings.Join(q.notes, "; ") + ")"
}

// allowEdge reports whether e's type passes the edgeTypes filter.
func (q *query) allowEdge(e *EdgeInfo) bool {
	return q.types == nil || q.types[strings.ToLower(e.Type)]
}

// enter reports whether a walk may step onto note v: a note, or a stub
// with includeUnresolved.
func (q *query) enter(g *Graph, v int32) bool {
	return q.unresolved || !g.notes[v].Stub
}

// keepNote reports whether a note passes fileFilter and folderFilter.
func (q *query) keepNote(n *NoteInfo) bool {
	if q.file != nil && !q.file.MatchString(n.Name()) {
		return false
	}
	if q.folder != "" && !strings.HasPrefix(strings.ToLower(n.Name()), q.folder) {
		return false
	}
	if len(q.tagFilter) > 0 && !hasTag(n.Tags, q.tagFilter) {
		return false
	}
	return true
}

// hasTag reports whether one of tags is, or is nested under, one of want
// (folded by foldTag).
func hasTag(tags, want []string) bool {
	for _, t := range tags {
		t = foldTag(t)
		for _, w := range want {
			if t == w || strings.HasPrefix(t, w+"/") {
				return true
			}
		}
	}
	return false
}

// source resolves the request's sourcePath, which is required.
func (g *Graph) source(req Request, action string) (int32, error) {
	if strings.TrimSpace(req.SourcePath) == "" {
		return 0, fmt.Errorf("%w: %s needs sourcePath (a note's path, title or alias)", ErrInvalidRequest, action)
	}
	return g.Resolve(req.SourcePath)
}

func (g *Graph) node(i int32, depth int) Node {
	n := &g.notes[i]
	typ := "file"
	if n.Stub {
		typ = "stub"
	}
	tags := n.Tags
	if tags == nil {
		tags = []string{}
	}
	return Node{Path: n.Name(), Title: n.Title, Type: typ, Labels: n.Labels, Tags: tags, Links: g.Links(i), Depth: depth}
}

func (g *Graph) edge(e int32) Edge {
	ed := &g.edges[e]
	return Edge{Source: g.notes[ed.Source].Name(), Target: g.notes[ed.Target].Name(), Type: responseType(ed.Type),
		Count: int(ed.Count), ID: ed.ID, Sign: int(ed.Sign), Properties: Properties(ed.Properties),
		Sentence: ed.Sentence, Unresolved: ed.Unresolved}
}

func elapsedMS(start time.Time) float64 {
	return float64(time.Since(start).Microseconds()) / 1000
}

func boolPtr(b bool) *bool { return &b }

// count is n and the noun, plural unless n is 1: "1 hop", "3 hops".
func count(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
