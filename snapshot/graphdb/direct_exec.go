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
	t, tie, ok := g.rows(p)
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
	value := func(it directItem, m directRow) any {
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
	width := len(p.items)
	t := &table{width: width}
	for _, o := range p.order {
		if o.extra {
			t.extras++
		}
	}
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
	cmp := func(a, b int32) int {
		extra := 0
		for _, o := range p.order {
			var x, y any
			if o.extra {
				x, y = t.extra[int(a)*t.extras+extra], t.extra[int(b)*t.extras+extra]
				extra++
			} else {
				x, y = t.vals[int(a)*width+o.col], t.vals[int(b)*width+o.col]
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
	slices.SortStableFunc(t.order, cmp)
	return t, func(i, j int) bool { return cmp(t.order[i], t.order[j]) == 0 }, true
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
