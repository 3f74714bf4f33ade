package graphdb

import (
	"slices"
	"strconv"
	"strings"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

// directRow is one match: the notes bound to the plan's variables and the
// unwound label.
type directRow struct {
	n     [2]int32
	label string
	typ   string // the hop's edge type
}

// answer runs a plan on the copy. It returns false, and the engine
// answers instead, where the engine's result is not certain to be the
// same: a sort key that is null.
func (g *directGraph) answer(p *directPlan, tr *cypher.Translation, c *converter, maxRows int) (*Result, bool) {
	var t *table
	var tie func(i, j int) bool
	var ok bool
	if p.limit >= 0 && p.limit <= topKMax && p.skip <= topKMax && p.skip+p.limit > 0 &&
		len(p.order) > 0 && !p.aggregate && !p.distinct && directTopK {
		t, tie, ok = g.topRows(p, int(p.skip+p.limit))
	} else {
		t, tie, ok = g.rows(p)
	}
	if !ok {
		return nil, false
	}
	start, end := min(int(p.skip), t.len()), t.len()
	if p.limit >= 0 {
		end = min(start+int(p.limit), end)
	}
	res := &Result{Rows: [][]any{}, MaxRows: maxRows, Translated: tr.Query, Direct: true}
	if end-start > maxRows {
		end, res.Truncated = start+maxRows, true
	}
	// Which rows SKIP, LIMIT or the row cap keep is the engine's choice
	// where the order does not fix it: the copy answers only when it is
	// fixed (or the rows it could choose between are equal).
	if ambiguousCut(t, tie, start) || ambiguousCut(t, tie, end) {
		return nil, false
	}
	types := make([][]string, len(tr.Columns))
	for k := start; k < end; k++ {
		// A row of its own: the table's values are garbage once answered.
		r := slices.Clone(t.row(k))
		for i := range r {
			var typ string
			r[i], typ = c.value(r[i])
			types[i] = append(types[i], typ)
		}
		res.Rows = append(res.Rows, r)
	}
	res.Columns = columns(tr.Columns, types, tr.Kinds)
	return res, true
}

// ambiguousCut reports whether cutting t's rows before index b could keep
// other rows in another engine's order: b falls inside a run of rows that
// tie (tie nil: every row ties) and the run's rows are not all equal.
func ambiguousCut(t *table, tie func(i, j int) bool, b int) bool {
	if b <= 0 || b >= t.len() {
		return false
	}
	ties := func(i, j int) bool { return tie == nil || tie(i, j) }
	if !ties(b-1, b) {
		return false
	}
	lo, hi := b-1, b+1
	for lo > 0 && ties(lo-1, b) {
		lo--
	}
	for hi < t.len() && ties(hi, b) {
		hi++
	}
	for i := lo + 1; i < hi; i++ {
		if !slices.Equal(t.row(i), t.row(lo)) {
			return true
		}
	}
	return false
}

// table is the rows of an answer, stored flat: one slice of every row's
// values, the values of the sort keys that are not columns (extra) in
// another, and the rows' order once sorted. A sort over every edge of a
// 10,000-note vault (68,760 matches) held each match in a slice of its
// own, with a header for its sort keys, in a slice grown by appending
// (about 10 MB a request, all garbage once the 20 rows it keeps were
// answered); flat, it is about a third of that in three allocations
// that grow.
type table struct {
	width  int
	vals   []any
	extras int   // extra sort keys per row
	extra  []any // row i's at i*extras
	order  []int32
}

// newTable is an empty table for the rows of plan p.
func newTable(p *directPlan) *table {
	t := &table{width: len(p.items)}
	for _, o := range p.order {
		if o.extra {
			t.extras++
		}
	}
	return t
}

func (t *table) len() int { return len(t.order) }

// row returns the k-th row in order, sharing the table's memory.
func (t *table) row(k int) []any {
	i := int(t.order[k]) * t.width
	return t.vals[i : i+t.width : i+t.width]
}

// rows projects, groups, deduplicates and sorts the matches. tie tells
// whether two of the rows (by position in order) are equal in the sort
// (nil without ORDER BY).
func (g *directGraph) rows(p *directPlan) (*table, func(i, j int) bool, bool) {
	value := g.value
	width := len(p.items)
	t := newTable(p)
	n := 0
	groups := map[string]int{}
	buf := make([]any, width)
	var key []byte
	if counts, ok := g.counted(p); ok {
		for _, row := range counts {
			t.vals = append(t.vals, row...)
			n++
		}
	} else {
		g.matches(p, func(m directRow) {
			for i, it := range p.items {
				buf[i] = value(it, m)
			}
			if p.aggregate || p.distinct {
				key = groupKey(key[:0], p, buf)
				if j, ok := groups[string(key)]; ok {
					for i, it := range p.items {
						if it.kind == itemCount {
							t.vals[j*width+i] = t.vals[j*width+i].(int64) + 1
						}
					}
					return
				}
				groups[string(key)] = n
			}
			t.vals = append(t.vals, buf...)
			for _, o := range p.order {
				if o.extra {
					t.extra = append(t.extra, value(o.item, m))
				}
			}
			n++
		})
	}
	if p.aggregate && n == 0 && !slices.ContainsFunc(p.items, func(it directItem) bool { return it.kind != itemCount }) {
		// An aggregation without keys has one row even over no matches.
		for range width {
			t.vals = append(t.vals, int64(0))
		}
		n++
	}
	t.order = make([]int32, n)
	for i := range t.order {
		t.order[i] = int32(i)
	}
	if len(p.order) == 0 {
		return t, nil, true
	}
	for i := range n {
		for _, o := range p.order {
			if o.col >= 0 && t.vals[i*width+o.col] == nil {
				return nil, nil, false
			}
		}
	}
	if slices.Contains(t.extra, nil) {
		return nil, nil, false
	}
	cmp := func(a, b int32) int { return t.compare(p, int(a), int(b)) }
	slices.SortStableFunc(t.order, cmp)
	return t, func(i, j int) bool { return cmp(t.order[i], t.order[j]) == 0 }, true
}

// value is item it of match m.
func (g *directGraph) value(it directItem, m directRow) any {
	switch it.kind {
	case itemCol:
		return g.cols[it.col][m.n[it.node]]
	case itemUnwound:
		return m.label
	case itemRelType:
		return m.typ
	}
	return int64(1)
}

// compareRows orders two rows by the plan's sort keys: a row's values
// (av, bv) and its extra sort keys (ax, bx).
func compareRows(p *directPlan, av, ax, bv, bx []any) int {
	extra := 0
	for _, o := range p.order {
		var x, y any
		if o.extra {
			x, y = ax[extra], bx[extra]
			extra++
		} else {
			x, y = av[o.col], bv[o.col]
		}
		r := compareValues(x, y)
		if o.desc {
			r = -r
		}
		if r != 0 {
			return r
		}
	}
	return 0
}

// slot returns the values and extra sort keys of the table's i-th stored
// row (not in order).
func (t *table) slot(i int) (vals, extra []any) {
	v := t.vals[i*t.width : (i+1)*t.width : (i+1)*t.width]
	return v, t.extra[i*t.extras : (i+1)*t.extras : (i+1)*t.extras]
}

// compare orders the table's stored rows a and b by the sort keys.
func (t *table) compare(p *directPlan, a, b int) int {
	av, ax := t.slot(a)
	bv, bx := t.slot(b)
	return compareRows(p, av, ax, bv, bx)
}

// directTopK lets answer keep only the rows a sorted query's SKIP and
// LIMIT reach (topRows); the tests turn it off to compare with rows.
var directTopK = true

// topKMax bounds the SKIP and LIMIT topRows takes: beyond, a heap of the
// rows kept costs more than sorting them all.
const topKMax = 1 << 20

// topRows is rows for a sorted query without grouping that keeps at most
// keep rows (SKIP plus LIMIT): the best keep of the matches in a heap, in
// the order the stable sort of every match would give them (ties by match
// order), so that a sort over every edge holds the rows it answers from,
// not every edge. Rows the heap did not keep matter to answer only where
// they tie with its last kept row (ambiguousCut looks past a cut at the
// rows tied with it): those are summed up while the heap fills (the
// first such row, and the first one unequal to it), and appended to the
// table after the kept rows, which gives ambiguousCut the same answer it
// gives on the whole table.
func (g *directGraph) topRows(p *directPlan, keep int) (*table, func(i, j int) bool, bool) {
	width := len(p.items)
	t := newTable(p)
	var (
		heap   []int32 // slots, worst first (a max-heap by compare, then seq)
		seq    []int32 // per slot: the match's place in match order
		null   bool
		n      int32
		tied   [][]any // rows not kept that tie with the worst kept: the first, and the first unlike it
		buf    = make([]any, width)
		bx     = make([]any, t.extras)
		mv, mx = make([]any, width), make([]any, t.extras)
	)
	// worse reports whether slot a comes after slot b in the stable order.
	worse := func(a, b int32) bool {
		if c := t.compare(p, int(a), int(b)); c != 0 {
			return c > 0
		}
		return seq[a] > seq[b]
	}
	siftDown := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(heap) {
				return
			}
			c := l
			if r := l + 1; r < len(heap) && worse(heap[r], heap[l]) {
				c = r
			}
			if !worse(heap[c], heap[i]) {
				return
			}
			heap[i], heap[c] = heap[c], heap[i]
			i = c
		}
	}
	tie := func(v []any) {
		switch {
		case len(tied) == 0:
			tied = append(tied, slices.Clone(v))
		case len(tied) == 1 && !slices.Equal(tied[0], v):
			tied = append(tied, slices.Clone(v))
		}
	}
	g.matches(p, func(m directRow) {
		if null {
			return
		}
		for i, it := range p.items {
			buf[i] = g.value(it, m)
		}
		e := 0
		for _, o := range p.order {
			if o.extra {
				bx[e] = g.value(o.item, m)
				if bx[e] == nil {
					null = true
				}
				e++
			} else if buf[o.col] == nil {
				null = true
			}
		}
		if null {
			return
		}
		k := n
		n++
		if len(heap) < keep {
			s := int32(len(heap))
			t.vals = append(t.vals, buf...)
			t.extra = append(t.extra, bx...)
			seq = append(seq, k)
			heap = append(heap, s)
			for i := len(heap) - 1; i > 0; { // sift up
				parent := (i - 1) / 2
				if !worse(heap[i], heap[parent]) {
					break
				}
				heap[i], heap[parent] = heap[parent], heap[i]
				i = parent
			}
			return
		}
		worst := heap[0]
		wv, wx := t.slot(int(worst))
		c := compareRows(p, buf, bx, wv, wx)
		if c >= 0 {
			// Not better than the worst kept (a tie comes later in match
			// order): left out, remembered if it ties with it.
			if c == 0 {
				tie(buf)
			}
			return
		}
		// The match takes the worst kept row's slot.
		copy(mv, wv)
		copy(mx, wx)
		copy(wv, buf)
		copy(wx, bx)
		seq[worst] = k
		siftDown(0)
		nv, nx := t.slot(int(heap[0]))
		if compareRows(p, mv, mx, nv, nx) != 0 {
			// The new worst kept row comes strictly before the rows left
			// out: none ties with it.
			tied = tied[:0]
			return
		}
		tie(mv)
	})
	if null {
		return nil, nil, false
	}
	t.order = slices.Clone(heap)
	slices.SortFunc(t.order, func(a, b int32) int {
		if c := t.compare(p, int(a), int(b)); c != 0 {
			return c
		}
		return int(seq[a] - seq[b])
	})
	if len(tied) > 0 {
		// The rows left out that tie with the last kept one, with its sort
		// keys: they come right after it in the whole table's order.
		_, lx := t.slot(int(t.order[len(t.order)-1]))
		lx = slices.Clone(lx)
		for _, v := range tied {
			t.order = append(t.order, int32(len(t.vals)/max(width, 1)))
			t.vals = append(t.vals, v...)
			t.extra = append(t.extra, lx...)
		}
	}
	return t, func(i, j int) bool { return t.compare(p, int(t.order[i]), int(t.order[j])) == 0 }, true
}

// counted answers the counts that need no walk: notes by label (MATCH (n)
// UNWIND labels(n) AS x RETURN x, count(*)), and notes with at most one
// label (MATCH (n:L) RETURN count(*)), from the copy's label lists. The
// groups come in the order a scan finds them.
func (g *directGraph) counted(p *directPlan) ([][]any, bool) {
	if p.hop != nil || p.never || len(p.eqs) > 0 || !p.aggregate {
		return nil, false
	}
	for _, it := range p.items {
		if it.kind == itemCol || it.kind == itemRelType || (it.kind == itemUnwound && p.unwind == "") {
			return nil, false
		}
	}
	row := func(label string, n int) []any {
		r := make([]any, len(p.items))
		for i, it := range p.items {
			if it.kind == itemCount {
				r[i] = int64(n)
			} else {
				r[i] = label
			}
		}
		return r
	}
	byLabel := slices.ContainsFunc(p.items, func(it directItem) bool { return it.kind == itemUnwound })
	switch {
	case p.unwind != "" && len(p.labels) == 0 && !byLabel:
		total := 0
		for _, n := range g.labelRows {
			total += n
		}
		return [][]any{row("", total)}, true
	case p.unwind != "" && len(p.labels) == 0:
		var out [][]any
		for _, l := range g.labelOrder {
			out = append(out, row(l, g.labelRows[l]))
		}
		return out, true
	case p.unwind == "" && len(p.labels) == 0:
		return [][]any{row("", len(g.labels))}, true
	case p.unwind == "" && len(p.labels) == 1:
		return [][]any{row("", len(g.byLabel[p.labels[0].label]))}, true
	}
	return nil, false
}

// groupKey appends the text of a row's grouping values to b.
func groupKey(b []byte, p *directPlan, row []any) []byte {
	for i, it := range p.items {
		if it.kind == itemCount {
			continue
		}
		switch v := row[i].(type) {
		case nil:
			b = append(b, 'n')
		case string:
			b = append(b, 's')
			b = strconv.AppendInt(b, int64(len(v)), 10)
			b = append(b, ':')
			b = append(b, v...)
		case bool:
			b = strconv.AppendBool(append(b, 'b'), v)
		}
		b = append(b, 0)
	}
	return b
}

// compareValues orders two non-null values of one column as the engine
// does: strings by bytes, false before true, integers by value.
func compareValues(x, y any) int {
	switch x := x.(type) {
	case string:
		return strings.Compare(x, y.(string))
	case bool:
		yb := y.(bool)
		switch {
		case x == yb:
			return 0
		case !x:
			return -1
		}
		return 1
	case int64:
		yi := y.(int64)
		switch {
		case x < yi:
			return -1
		case x > yi:
			return 1
		}
	}
	return 0
}

// matches calls yield with the plan's matches in the order the engine
// walks them: the first node's candidates, then their edges table by table.
func (g *directGraph) matches(p *directPlan, yield func(directRow)) {
	if p.never {
		return
	}
	if p.hop == nil {
		g.candidates(p, 0, func(i int32) {
			if p.unwind == "" {
				yield(directRow{n: [2]int32{i, 0}})
				return
			}
			for _, l := range g.labels[i] {
				yield(directRow{n: [2]int32{i, 0}, label: l})
			}
		})
		return
	}
	// Walk from the node that has a lookup; from the first otherwise.
	from, to := 0, 1
	if g.lookup(p, 0) == nil && g.lookup(p, 1) != nil {
		from, to = 1, 0
	}
	// outward: the walk follows edges from source to target.
	outward := p.hop.right == (from == 0)
	g.candidates(p, from, func(i int32) {
		for _, name := range p.hop.tables {
			tab := g.tables[name]
			edges := tab.in[i]
			if outward {
				edges = tab.out[i]
			}
			for _, e := range edges {
				if p.relTypes != nil && !slices.Contains(p.relTypes, tab.types[e.typ]) {
					continue
				}
				if !g.passes(p, to, e.note) {
					continue
				}
				r := directRow{typ: tab.types[e.typ]}
				r.n[from], r.n[to] = i, e.note
				yield(r)
			}
		}
	})
}

// lookup returns the notes an equality on id, path or title of node n
// allows, or nil when it has none.
func (g *directGraph) lookup(p *directPlan, n int) []int32 {
	for _, e := range p.eqs {
		if e.node != n || e.op != "=" {
			continue
		}
		s, _ := e.value.(string)
		switch e.col {
		case "id":
			if i, ok := g.byID[s]; ok {
				return []int32{i}
			}
			return []int32{}
		case "path":
			return nonNil(g.byPath[s])
		case "title":
			return nonNil(g.byTitle[s])
		}
	}
	return nil
}

func nonNil(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// candidates calls yield with the notes node n binds: those of its
// lookup, or of its first label, or all, that pass its tests.
func (g *directGraph) candidates(p *directPlan, n int, yield func(int32)) {
	list := g.lookup(p, n)
	if list == nil {
		for _, l := range p.labels {
			if l.node == n {
				list = nonNil(g.byLabel[l.label])
				break
			}
		}
	}
	if list != nil {
		for _, i := range list {
			if g.passes(p, n, i) {
				yield(i)
			}
		}
		return
	}
	for i := range int32(len(g.labels)) {
		if g.passes(p, n, i) {
			yield(i)
		}
	}
}

// passes tests node n's predicates on note i.
func (g *directGraph) passes(p *directPlan, n int, i int32) bool {
	for _, e := range p.eqs {
		if e.node != n {
			continue
		}
		v := g.cols[e.col][i]
		if e.op == "=" {
			if v != e.value {
				return false
			}
			continue
		}
		// A null column makes the test null, which fails it.
		s, ok := v.(string)
		if !ok {
			return false
		}
		sub := e.value.(string)
		switch e.op {
		case "STARTS WITH":
			ok = strings.HasPrefix(s, sub)
		case "ENDS WITH":
			ok = strings.HasSuffix(s, sub)
		case "CONTAINS":
			ok = strings.Contains(s, sub)
		}
		if !ok {
			return false
		}
	}
	for _, l := range p.labels {
		if l.node == n && !slices.Contains(g.labels[i], l.label) {
			return false
		}
	}
	return true
}
