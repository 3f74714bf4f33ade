package indexer

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/vaultgraph/vaultgraph/format"
)

// graph is the resolved result of every link in the vault.
type graph struct {
	edges      []format.Edge
	stubs      []format.Note
	unresolved int // link occurrences that point to no note
	warnings   []format.Warning
}

// edgeKey identifies the edges that share an ordinal sequence.
type edgeKey struct{ source, typ, target string }

// edgeSeq is an ordinal sequence: the next edge's ordinal, and the plain
// edge that the sequence's body links merge into (its index in the edges
// plus one; 0 before the first).
type edgeSeq struct{ next, merged int }

// buildGraph resolves links (in note order, then written order) into edges.
// Plain links and embeds from one note to one target merge into a single
// edge with a count; typed edges stay one per occurrence, numbered by their
// ordinal among duplicates. A link to no note points to a stub keyed by the
// link text, created once per distinct text (ignoring case).
func buildGraph(links []format.Link, r *resolver) graph {
	// Sized for every link: growing these maps and the edges was a third
	// of resolving a 10,000-note vault's links.
	g := graph{edges: make([]format.Edge, 0, len(links))}
	stubByKey := make(map[string]string)
	pinned := make(map[string]string)
	// The tables list links note by note, so a source's sequences are
	// done when its links are: the map then holds one source's at a time,
	// keyed without it (a map of every link's was a third of resolving).
	// Links whose sources are not together keep every source's.
	together := sourcesTogether(links)
	var seqs map[edgeKey]edgeSeq
	if !together {
		seqs = make(map[edgeKey]edgeSeq, len(links))
	} else {
		seqs = make(map[edgeKey]edgeSeq)
	}
	targets := resolveAll(links, r)
	for k, l := range links {
		if together && k > 0 && l.Source != links[k-1].Source {
			clear(seqs)
		}
		target, ok := targets[k].id, targets[k].ok
		if !ok {
			g.unresolved++
			k := fold(l.Target)
			if id, seen := stubByKey[k]; seen {
				target = id
			} else {
				target = l.Target
				stubByKey[k] = target
				g.stubs = append(g.stubs, stubNote(target))
			}
		}
		key := edgeKey{typ: l.Type, target: target}
		if !together {
			key.source = l.Source
		}
		seq := seqs[key]
		if l.Origin == format.OriginBody {
			if seq.merged > 0 {
				e := &g.edges[seq.merged-1]
				e.Count++
				e.Anchors = appendDistinct(e.Anchors, l.Anchor)
				continue
			}
			seq.merged = len(g.edges) + 1
		}
		n := seq.next
		seq.next++
		seqs[key] = seq
		e := format.Edge{
			ID:         format.EdgeID(l.Source, l.Type, target, n),
			Source:     l.Source,
			Target:     target,
			Type:       l.Type,
			Sign:       l.Sign,
			Properties: l.Properties,
			Count:      1,
			Origin:     l.Origin,
			Anchors:    appendDistinct(nil, l.Anchor),
			Heading:    l.Heading,
			Line:       l.Line,
			Unresolved: !ok,
		}
		if e.Sign == 0 {
			e.Sign = 1
		}
		if id, ok := pinnedID(l.Properties); ok {
			if first, dup := pinned[id]; dup {
				g.warnings = append(g.warnings, format.Warning{File: l.Source, Line: int(l.Line), Kind: format.WarnDuplicateEdgeID,
					Message: fmt.Sprintf("edge id %q is already pinned by an edge of %s; this edge keeps its derived id %s", id, first, e.ID)})
			} else {
				pinned[id] = l.Source
				e.ID = id
			}
		}
		g.edges = append(g.edges, e)
	}
	return g
}

// resolved is the note a link resolves to, if any.
type resolved struct {
	id string
	ok bool
}

// parallelLinks is the number of links above which resolveAll looks them
// up on every core.
const parallelLinks = 4096

// resolveAll resolves every link with r. Many links are looked up on
// every core, each part with a resolver of its own memory (r.fork):
// what a link resolves to depends only on the link and the notes, so the
// result is the same. Resolving was the longest step an edit takes on
// one core while the other has nothing to do.
func resolveAll(links []format.Link, r *resolver) []resolved {
	out := make([]resolved, len(links))
	parts := 1
	if len(links) > parallelLinks {
		parts = runtime.GOMAXPROCS(0)
	}
	if parts <= 1 {
		for k, l := range links {
			out[k].id, out[k].ok = r.resolve(l)
		}
		return out
	}
	var wg sync.WaitGroup
	size := (len(links) + parts - 1) / parts
	for start := 0; start < len(links); start += size {
		end := min(start+size, len(links))
		rp := r
		if start > 0 {
			rp = r.fork()
		}
		wg.Go(func() {
			for k := start; k < end; k++ {
				out[k].id, out[k].ok = rp.resolve(links[k])
			}
		})
	}
	wg.Wait()
	return out
}

// sourcesTogether reports whether each source's links are next to each
// other in links.
func sourcesTogether(links []format.Link) bool {
	done := make(map[string]bool)
	for k := 1; k < len(links); k++ {
		if links[k].Source != links[k-1].Source {
			done[links[k-1].Source] = true
			if done[links[k].Source] {
				return false
			}
		}
	}
	return true
}

func stubNote(id string) format.Note {
	return format.Note{ID: id, Title: format.NoteTitleFromPath(id), Folder: format.NoteFolder(id), Stub: true}
}

// pinnedID returns the author's "id" edge property, if it is a string.
func pinnedID(props []format.Property) (string, bool) {
	p, ok := format.Lookup(props, "id")
	if !ok || p.Kind != format.KindString {
		return "", false
	}
	id := strings.TrimSpace(p.Text())
	return id, id != ""
}

func appendDistinct(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
