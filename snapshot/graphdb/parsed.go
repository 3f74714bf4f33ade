package graphdb

import (
	"container/list"
	"sync"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

// parsed keeps the syntax trees of recent query texts, so that a query
// sent again with other parameters (the same shape for another note) is
// not lexed and parsed again: parsing was most of what a simple query
// allocated. A tree depends on the text alone, and translation reads it
// without changing it, so one tree serves every request of its text at
// once. Texts that fail to parse are not kept, so their errors are always
// made anew.
type parsed struct {
	mu    sync.Mutex
	order *list.List // of *parsedQuery, most recently used first
	bySrc map[string]*list.Element
}

type parsedQuery struct {
	src string
	q   *cypher.Query
}

// Bounds of the parse cache: entries, and the length of a text it keeps.
const (
	parsedEntries = 256
	parsedMaxSrc  = 4 << 10
)

func newParsed() *parsed {
	return &parsed{order: list.New(), bySrc: map[string]*list.Element{}}
}

// parse returns the tree of src, from the cache or parsed now.
func (p *parsed) parse(src string) (*cypher.Query, error) {
	if len(src) > parsedMaxSrc {
		return cypher.Parse(src)
	}
	p.mu.Lock()
	if e, ok := p.bySrc[src]; ok {
		p.order.MoveToFront(e)
		q := e.Value.(*parsedQuery).q
		p.mu.Unlock()
		return q, nil
	}
	p.mu.Unlock()
	q, err := cypher.Parse(src)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.bySrc[src]; !ok {
		p.bySrc[src] = p.order.PushFront(&parsedQuery{src: src, q: q})
		if p.order.Len() > parsedEntries {
			last := p.order.Back()
			p.order.Remove(last)
			delete(p.bySrc, last.Value.(*parsedQuery).src)
		}
	}
	return q, nil
}
