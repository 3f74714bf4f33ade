package cypher

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

func nullLit(p Pos) *Literal { return &Literal{P: p, Kind: LitNull} }

func isNull(e Expr) bool {
	l, ok := e.(*Literal)
	return ok && l.Kind == LitNull
}

func intLit(n int64) *Literal { return &Literal{Kind: LitInt, Int: n} }

func strLit(s string) *Literal { return &Literal{Kind: LitString, Str: s} }

func call(name string, args ...Expr) *FuncCall { return &FuncCall{Name: name, Args: args} }

// expr translates an expression and reports its kind. Kuzu crashes or
// fails on several functions given an untyped null (see doc.go), so the
// translator folds every operation on the null literal to what openCypher
// defines it to be, which is nearly always null; an unknown property or
// parameter set to null therefore never reaches Kuzu as an argument.
func (t *translator) expr(e Expr, sc *scope) (Expr, kind) {
	switch e := e.(type) {
	case *Literal:
		if e.Kind == LitNull {
			return e, nullKind
		}
		return e, literalKind(e)
	case *Param:
		v, ok := t.params[e.Name]
		if !ok {
			t.fail(KindParameter, e.P, "parameter $%s is not set", e.Name)
		}
		return t.literal(v, e.P)
	case *Var:
		k, ok := sc.lookup(e.Name)
		if !ok {
			t.fail(KindSyntax, e.P, "variable `%s` is not defined", e.Name)
		}
		switch {
		case k.tag == kVarLen:
			// openCypher binds a variable-length relationship to the
			// list of its relationships.
			rels := Expr(call("rels", e))
			if k.optional {
				rels = ifNotNull(e, rels)
			}
			return rels, listOf(relKind(k.tables))
		case k.tag == kPath && k.nullVar != "":
			return ifNotNull(&Var{Name: k.nullVar}, e), k.settled()
		}
		return e, k
	case *Prop:
		x, k := t.expr(e.X, sc)
		return t.property(x, k, e.Key, e.P)
	case *HasLabels:
		x, k := t.expr(e.X, sc)
		switch k.tag {
		case kNull:
			return nullLit(e.P), nullKind
		case kRel:
			return t.typePredicate(x, e.Labels), scalar("BOOL")
		}
		return t.labelPredicate(x, e.Labels), scalar("BOOL")
	case *Binary:
		return t.binary(e, sc)
	case *Unary:
		return t.unary(e, sc)
	case *IsNull:
		x, _ := t.expr(e.X, sc)
		if isNull(x) {
			return &Literal{P: e.P, Kind: LitBool, Bool: !e.Not}, scalar("BOOL")
		}
		return &IsNull{P: e.P, X: x, Not: e.Not}, scalar("BOOL")
	case *Index:
		return t.index(e, sc)
	case *Slice:
		return t.slice(e, sc)
	case *FuncCall:
		return t.function(e, sc)
	case *Case:
		return t.caseExpr(e, sc)
	case *ListLit:
		return t.listLit(e, sc)
	case *MapLit:
		out := &MapLit{P: e.P}
		for i, key := range e.Keys {
			x, _ := t.expr(e.Values[i], sc)
			out.Keys = append(out.Keys, key)
			out.Values = append(out.Values, x)
		}
		return out, kind{tag: kMap, keys: append([]string(nil), e.Keys...)}
	case *ListComp:
		return t.listComp(e, sc)
	case *Quantified:
		list, k := t.expr(e.List, sc)
		if isNull(list) {
			return nullLit(e.P), nullKind
		}
		inner := newScope(sc)
		inner.bind(e.Var, elemKind(k), false)
		where := t.predicate(e.Where, inner)
		return t.overList(list, func(l Expr) Expr {
			return &Quantified{P: e.P, Kind: e.Kind, Var: e.Var, List: l, Where: where}
		}), scalar("BOOL")
	case *Reduce:
		return t.reduce(e, sc)
	case *PatternPred:
		return t.subquery(&Subquery{P: e.P, Pattern: []*PatternPart{e.Part}}, sc), scalar("BOOL")
	case *Subquery:
		k := scalar("BOOL")
		if e.Count {
			k = scalar("INT64")
		}
		return t.subquery(e, sc), k
	case *PatternComp:
		t.fail(KindUnsupported, e.P, "pattern comprehensions are not supported")
	case *MapProjection:
		return t.mapProjection(e, sc)
	case *Lambda:
		inner := newScope(sc)
		for _, p := range e.Params {
			inner.bind(p, unknownKind, false)
		}
		body, _ := t.expr(e.Body, inner)
		return &Lambda{P: e.P, Params: e.Params, Body: body}, unknownKind
	case *Cast:
		x, _ := t.expr(e.X, sc)
		for _, r := range e.Type {
			if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '[' || r == ']') {
				t.fail(KindSyntax, e.P, "invalid type name %q", e.Type)
			}
		}
		return &Cast{P: e.P, X: x, Type: e.Type}, kindOfType(e.Type)
	}
	t.fail(KindUnsupported, PosOf(e), "unsupported expression")
	return nil, unknownKind
}

func (t *translator) unary(e *Unary, sc *scope) (Expr, kind) {
	x, k := t.expr(e.X, sc)
	switch {
	case isNull(x):
		return nullLit(e.P), nullKind
	case e.Op == "+":
		// Kuzu has no unary plus.
		return x, k
	case e.Op == "-":
		if l, ok := x.(*Literal); ok && l.Kind == LitInt && l.Int != math.MinInt64 {
			return &Literal{P: e.P, Kind: LitInt, Int: -l.Int}, k
		}
		if l, ok := x.(*Literal); ok && l.Kind == LitFloat {
			return &Literal{P: e.P, Kind: LitFloat, Float: -l.Float}, k
		}
	}
	return &Unary{P: e.P, Op: e.Op, X: x}, k
}

func (t *translator) listLit(e *ListLit, sc *scope) (Expr, kind) {
	out := &ListLit{P: e.P}
	var ek kind
	for i, it := range e.Items {
		x, k := t.expr(it, sc)
		out.Items = append(out.Items, x)
		if i == 0 {
			ek = k
		} else if k.tag != ek.tag {
			ek = unknownKind
		}
	}
	return out, listOf(ek)
}

func literalKind(l *Literal) kind {
	switch l.Kind {
	case LitBool:
		return scalar("BOOL")
	case LitInt:
		return scalar("INT64")
	case LitFloat:
		return scalar("DOUBLE")
	case LitString:
		return scalar("STRING")
	}
	return nullKind
}

// property translates x.key by the kind of x: a note's built-in or
// property column, a relationship's column when one of its tables has the
// key, a date part, a map field, or null when the key exists nowhere, as in
// openCypher.
func (t *translator) property(x Expr, k kind, key string, p Pos) (Expr, kind) {
	if key == "" {
		// No property has an empty name (and no engine can spell one).
		return nullLit(p), nullKind
	}
	switch k.tag {
	case kNull:
		return nullLit(p), nullKind
	case kNode:
		if e, ck, ok := t.noteAccess(x, key, p); ok {
			return e, ck
		}
		t.unknownNoteProperty(key)
		return nullLit(p), nullKind
	case kRel:
		if e, ck, ok := t.edgeAccess(x, key, k.tables, p); ok {
			return e, ck
		}
		t.unknownEdgeProperty(key, k.tables)
		return nullLit(p), nullKind
	case kMap:
		if k.keys != nil && !contains(k.keys, key) {
			return nullLit(p), nullKind
		}
		if prop, ok := t.s.tailProperty(k.tail, key); ok {
			return t.tailLookup(x, prop, p), kindOfType(prop.Type)
		}
		return &Prop{P: p, X: x, Key: key}, unknownKind
	case kScalar:
		if k.isTemporal() {
			if part, ok := temporalParts[strings.ToLower(key)]; ok {
				return call("date_part", strLit(part), x), scalar("INT64")
			}
		}
	case kUnknown:
		// A node or relationship that came through a list: the same
		// name has the same column on every table, so the lookup is
		// right whichever it is.
		if e, ck, ok := t.noteAccess(x, key, p); ok {
			return e, ck
		}
		if e, ck, ok := t.edgeAccess(x, key, nil, p); ok {
			return e, ck
		}
	}
	return &Prop{P: p, X: x, Key: key}, unknownKind
}

var temporalParts = map[string]string{
	"year": "year", "quarter": "quarter", "month": "month", "week": "week", "day": "day",
	"hour": "hour", "minute": "minute", "second": "second", "millisecond": "millisecond",
	"microsecond": "microsecond", "dayofweek": "dayofweek", "dayofyear": "dayofyear",
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// binary translates a binary operator, folding the null literal.
func (t *translator) binary(e *Binary, sc *scope) (Expr, kind) {
	l, lk := t.expr(e.L, sc)
	r, rk := t.expr(e.R, sc)
	out := &Binary{P: e.P, Op: e.Op, L: l, R: r}
	k := scalar("BOOL")
	if comparisonOps[e.Op] && !isNull(l) && !isNull(r) {
		if neverEqual(l, lk, r, rk) {
			return incomparable(e, l, r), k
		}
	}
	if e.Op == "IN" {
		if _, lit := r.(*ListLit); !lit && rk.tag == kList && rk.elem != nil && !isNull(l) {
			// A value of another family than the list's items is in no
			// such list ($year IN n.tags); Kuzu would fail to bind it.
			if lf, ef := family(lk), family(*rk.elem); lf != "" && ef != "" && lf != ef && lf != "list" && lf != "map" {
				return unlessNull(e.P, &Literal{P: e.P, Kind: LitBool, Bool: false}, l, r), k
			}
		}
		if list, ok := r.(*ListLit); ok && len(list.Items) > 0 {
			// Items of another family than x never equal it: they are no
			// match (not a null), and Kuzu, which casts no list, could
			// not build the list or bind x IN it.
			kept := &ListLit{P: list.P}
			xf := family(lk)
			for _, it := range list.Items {
				if lit, ok := it.(*Literal); ok && lit.Kind != LitNull {
					if f := family(literalKind(lit)); xf != "" && f != "" && f != xf {
						continue
					}
				}
				kept.Items = append(kept.Items, it)
			}
			if len(kept.Items) == 0 {
				return unlessNull(e.P, &Literal{P: e.P, Kind: LitBool, Bool: false}, l), k
			}
			out.R = kept
		}
	}
	switch e.Op {
	case "+", "-", "*", "/", "%", "^":
		k = unknownKind
		if lk.tag == kList {
			k = lk
		} else if lk.tag == kScalar && rk.tag == kScalar && lk.typ == rk.typ {
			k = lk
		}
	}
	return foldBinary(out), k
}

// family names the kinds of values that compare with each other: two
// values of different families are never equal and have no order. ""
// when k does not say.
func family(k kind) string {
	switch k.tag {
	case kList:
		return "list"
	case kMap:
		return "map"
	case kScalar:
		switch k.typ {
		case "STRING":
			return "string"
		case "BOOL", "BOOLEAN":
			return "boolean"
		case "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8", "INT128", "SERIAL", "DOUBLE", "FLOAT":
			return "number"
		case "DATE", "TIMESTAMP":
			return "temporal"
		}
	}
	return ""
}

// neverEqual reports whether values l and r, of kinds lk and rk, are of
// families that never compare (a list and a string, a string and a
// number, a date and a number) where Kuzu would fail instead of
// answering: it casts one side to the other's type, and a string that is
// not a number does not convert. A string literal that converts is left
// to Kuzu (n.budget = '1200000' keeps working), and so is every
// comparison of a date with a string (p.started = '2022-01-10').
func neverEqual(l Expr, lk kind, r Expr, rk kind) bool {
	lf, rf := family(lk), family(rk)
	if lf == "" || rf == "" || lf == rf {
		return false
	}
	if lf == "temporal" || rf == "temporal" {
		// A date against a string is Kuzu's (it reads the string as a
		// date); against anything else it never compares.
		return lf != "string" && rf != "string"
	}
	if lf == "list" || lf == "map" || rf == "list" || rf == "map" {
		return true
	}
	if rf == "string" {
		l, r, lf, rf = r, l, rf, lf
	}
	if lf != "string" {
		return true // a number and a boolean
	}
	lit, ok := l.(*Literal)
	if !ok || lit.Kind != LitString {
		return true
	}
	switch rf {
	case "number":
		_, err := strconv.ParseFloat(strings.TrimSpace(lit.Str), 64)
		return err != nil
	case "boolean":
		_, err := strconv.ParseBool(strings.TrimSpace(lit.Str))
		return err != nil
	}
	return true
}

// incomparable is a comparison of values of two families, as openCypher
// answers it: = is false, <> true, an order null; and null wherever either
// side is null. (Kuzu would cast one side to the other's type and fail
// on the first value that does not convert.)
func incomparable(e *Binary, l, r Expr) Expr {
	var then Expr = nullLit(e.P)
	switch e.Op {
	case "=":
		then = &Literal{P: e.P, Kind: LitBool, Bool: false}
	case "<>":
		then = &Literal{P: e.P, Kind: LitBool, Bool: true}
	default:
		return nullLit(e.P)
	}
	return unlessNull(e.P, then, l, r)
}

// unlessNull is value, or null where any of probes is null:
// CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE value END.
func unlessNull(p Pos, value Expr, probes ...Expr) Expr {
	var cond Expr
	for _, x := range probes {
		var isNull Expr = &IsNull{P: p, X: x}
		if cond != nil {
			isNull = &Binary{P: p, Op: "OR", L: cond, R: isNull}
		}
		cond = isNull
	}
	return &Case{P: p, Whens: []When{{Cond: cond, Then: nullLit(p)}}, Else: value}
}

// foldBinary applies openCypher's null rules to operators on the null
// literal: AND, OR and XOR keep three-valued logic and go to Kuzu, which
// handles a null operand there; every other operator yields null.
func foldBinary(b *Binary) Expr {
	switch b.Op {
	case "AND":
		if isFalse(b.L) || isFalse(b.R) {
			return &Literal{P: b.P, Kind: LitBool, Bool: false}
		}
		if isNull(b.L) && isNull(b.R) {
			return nullLit(b.P)
		}
		return b
	case "OR":
		if isNull(b.L) && isNull(b.R) {
			return nullLit(b.P)
		}
		return b
	case "XOR":
		if isNull(b.L) || isNull(b.R) {
			return nullLit(b.P)
		}
		return b
	case "IN":
		if isNull(b.R) {
			return nullLit(b.P)
		}
		if isNull(b.L) {
			// null IN [] is false, null IN [x, ...] is null.
			if l, ok := b.R.(*ListLit); ok && len(l.Items) == 0 {
				return &Literal{P: b.P, Kind: LitBool, Bool: false}
			}
			return nullLit(b.P)
		}
		return b
	}
	if isNull(b.L) || isNull(b.R) {
		return nullLit(b.P)
	}
	return b
}

func isFalse(e Expr) bool {
	l, ok := e.(*Literal)
	return ok && l.Kind == LitBool && !l.Bool
}

// index translates x[i]. openCypher counts from 0 and returns null out of
// range; Kuzu counts from 1 and fails out of range, and CASE does not
// guard it (Kuzu evaluates every branch). A one-element slice never fails,
// so x[i] becomes list_any_value(list_slice(x, k, k)) with k the 1-based
// position.
func (t *translator) index(e *Index, sc *scope) (Expr, kind) {
	x, k := t.expr(e.X, sc)
	i, ik := t.expr(e.I, sc)
	if isNull(x) || isNull(i) {
		return nullLit(e.P), nullKind
	}
	if s, ok := i.(*Literal); ok && s.Kind == LitString {
		// map['key'] and node['key'] are property lookups.
		return t.property(x, k, s.Str, e.P)
	}
	if l, ok := i.(*Literal); ok && l.Kind == LitInt {
		return t.elementAt(x, oneBased(l, false)), elemKind(k)
	}
	switch {
	case k.tag == kMap || k.tag == kNode || k.tag == kRel:
		t.fail(KindUnsupported, e.P, "a map, node or relationship subscript needs a literal key (x['name'] or x.name); the engine cannot look up a key computed by the query")
	case family(ik) == "string":
		t.fail(KindUnsupported, e.P, "a subscript by a string needs a map, node or relationship and a literal key (x['name']); the engine cannot look up a key computed by the query")
	}
	return t.bindOnce(i, func(i Expr) Expr { return t.elementAt(x, oneBased(i, false)) }), elemKind(k)
}

// elementAt is the item at 1-based position pos of list x, or null when
// there is none. Kuzu's list_extract fails out of range, and CASE cannot
// guard it (Kuzu evaluates every branch); list_any_value never fails but
// returns a zero value, not null, for a list with no non-null item, so the
// CASE only masks that value:
//
//	CASE WHEN size(list_filter(coalesce(s, []), e -> e IS NOT NULL)) = 0
//	THEN NULL ELSE list_any_value(s) END, s = list_slice(x, pos, pos)
func (t *translator) elementAt(x, pos Expr) Expr {
	return t.bindOnce(call("list_slice", x, pos, pos), func(s Expr) Expr {
		e := t.newName("e")
		present := call("list_filter", call("coalesce", s, &ListLit{}), &Lambda{Params: []string{e}, Body: &IsNull{X: &Var{Name: e}, Not: true}})
		return &Case{
			Whens: []When{{Cond: &Binary{Op: "=", L: call("size", present), R: intLit(0)}, Then: nullLit(Pos{})}},
			Else:  call("list_any_value", s),
		}
	})
}

// oneBased converts a 0-based openCypher position to Kuzu's 1-based one;
// negative positions count from the end in both. An exclusive end (of a
// slice) maps non-negative positions to themselves and -n to -n-1.
func oneBased(i Expr, end bool) Expr {
	if l, ok := i.(*Literal); ok && l.Kind == LitInt {
		switch {
		case end && l.Int < 0:
			return intLit(l.Int - 1)
		case end:
			return l
		case l.Int >= 0:
			return intLit(l.Int + 1)
		}
		return l
	}
	pos, neg := Expr(&Binary{Op: "+", L: i, R: intLit(1)}), Expr(i)
	if end {
		pos, neg = i, &Binary{Op: "-", L: i, R: intLit(1)}
	}
	return &Case{Whens: []When{{Cond: &Binary{Op: ">=", L: i, R: intLit(0)}, Then: pos}}, Else: neg}
}

func (t *translator) slice(e *Slice, sc *scope) (Expr, kind) {
	x, k := t.expr(e.X, sc)
	if isNull(x) {
		return nullLit(e.P), nullKind
	}
	from, to := Expr(intLit(1)), Expr(intLit(-1))
	if e.From != nil {
		f, _ := t.expr(e.From, sc)
		if isNull(f) {
			return nullLit(e.P), nullKind
		}
		from = t.bindOnce(f, func(f Expr) Expr { return oneBased(f, false) })
	}
	if e.To != nil {
		tt, _ := t.expr(e.To, sc)
		if isNull(tt) {
			return nullLit(e.P), nullKind
		}
		to = t.bindOnce(tt, func(tt Expr) Expr { return oneBased(tt, true) })
	}
	return call("list_slice", x, from, to), k
}

func (t *translator) caseExpr(e *Case, sc *scope) (Expr, kind) {
	out := &Case{P: e.P}
	if e.Subject != nil {
		out.Subject, _ = t.expr(e.Subject, sc)
	}
	var k kind
	allNull := true
	for i, w := range e.Whens {
		cond, _ := t.expr(w.Cond, sc)
		if e.Subject == nil {
			// Kuzu 0.11.3 mis-evaluates CASE WHEN on a bare boolean
			// column (every row takes ELSE, and rows get mixed up); an
			// explicit comparison is evaluated correctly, and a null
			// condition still falls through as openCypher requires.
			cond = foldBinary(&Binary{Op: "=", L: cond, R: &Literal{Kind: LitBool, Bool: true}})
		}
		then, tk := t.expr(w.Then, sc)
		out.Whens = append(out.Whens, When{Cond: cond, Then: then})
		if !isNull(then) {
			allNull = false
			if i == 0 || k.tag == kNull {
				k = tk
			}
		}
	}
	if e.Else != nil {
		out.Else, _ = t.expr(e.Else, sc)
		if !isNull(out.Else) {
			allNull = false
		}
	}
	if allNull {
		// Kuzu cannot type a CASE whose every result is null.
		return nullLit(e.P), nullKind
	}
	return out, k
}

// listComp translates [x IN list WHERE p | m] into Kuzu's list_filter and
// list_transform with lambdas.
func (t *translator) listComp(e *ListComp, sc *scope) (Expr, kind) {
	list, k := t.expr(e.List, sc)
	if isNull(list) {
		return nullLit(e.P), nullKind
	}
	inner := newScope(sc)
	inner.bind(e.Var, elemKind(k), false)
	var where, mapped Expr
	if e.Where != nil {
		where = t.predicate(e.Where, inner)
	}
	if e.Map != nil {
		var mk kind
		mapped, mk = t.expr(e.Map, inner)
		k = listOf(mk)
	}
	return t.overList(list, func(l Expr) Expr {
		out := l
		if where != nil {
			out = call("list_filter", out, &Lambda{Params: []string{e.Var}, Body: where})
		}
		if mapped != nil {
			out = call("list_transform", out, &Lambda{Params: []string{e.Var}, Body: mapped})
		}
		return out
	}), k
}

// overList applies build to a list that may be null. Kuzu 0.11.3's list
// lambdas (list_filter, list_transform) return null for every row when the
// list argument is a column holding nulls, and its quantifiers read a null
// list as empty; openCypher's answer for a null list is null. So build gets
// coalesce(l, []) and the null comes back through CASE:
// CASE WHEN l IS NULL THEN NULL ELSE build(coalesce(l, [])) END.
func (t *translator) overList(list Expr, build func(Expr) Expr) Expr {
	if neverNull(list) {
		return build(list)
	}
	return t.bindOnce(list, func(l Expr) Expr {
		return &Case{
			Whens: []When{{Cond: &IsNull{X: l}, Then: nullLit(Pos{})}},
			Else:  build(call("coalesce", l, &ListLit{})),
		}
	})
}

// neverNull reports lists the translator knows are not null: literals,
// the built-in list columns and functions that always return a list.
func neverNull(e Expr) bool {
	switch e := e.(type) {
	case *ListLit:
		return true
	case *Prop:
		switch e.Key {
		case "labels", "tags", "aliases", "anchors", format.GraphKeysColumn:
			return true
		}
	case *FuncCall:
		switch e.Name {
		case "range", "coalesce", "nodes", "rels":
			return true
		}
	}
	return false
}

// reduce translates reduce(acc = init, x IN list | e) into
// list_reduce([init] + list, (acc, x) -> e); the initial value must have the
// list's item type.
func (t *translator) reduce(e *Reduce, sc *scope) (Expr, kind) {
	init, ik := t.expr(e.Init, sc)
	list, k := t.expr(e.List, sc)
	if isNull(list) {
		return nullLit(e.P), nullKind
	}
	inner := newScope(sc)
	inner.bind(e.Acc, ik, false)
	inner.bind(e.Var, elemKind(k), false)
	body, _ := t.expr(e.Expr, inner)
	return call("list_reduce", call("list_concat", &ListLit{Items: []Expr{init}}, list),
		&Lambda{Params: []string{e.Acc, e.Var}, Body: body}), ik
}

// subquery translates a pattern predicate, EXISTS { } or COUNT { } with
// its own variables, which do not leak out.
func (t *translator) subquery(e *Subquery, sc *scope) Expr {
	inner := newScope(sc)
	// A subquery can sit inside a property map of an enclosing MATCH, whose
	// state must survive it.
	savedNames, savedPreds, savedOptional := t.nameRels, t.propPreds, t.optional
	t.propPreds = nil
	m := t.match(&Match{P: e.P, Pattern: e.Pattern, Where: e.Where}, inner)
	t.nameRels, t.propPreds, t.optional = savedNames, savedPreds, savedOptional
	return &Subquery{P: e.P, Count: e.Count, Pattern: m.Pattern, Where: m.Where}
}

// mapProjection translates n {.a, .*, k: e, v} into a struct literal.
func (t *translator) mapProjection(e *MapProjection, sc *scope) (Expr, kind) {
	x, k := t.expr(&Var{P: e.P, Name: e.Var}, sc)
	if isNull(x) {
		return nullLit(e.P), nullKind
	}
	out := &MapLit{P: e.P}
	all := false               // the projection has .*
	named := map[string]bool{} // keys whose last item names them
	set := func(key string, v Expr, byName bool) {
		named[key] = byName
		for i, existing := range out.Keys {
			if existing == key {
				out.Values[i] = v
				return
			}
		}
		out.Keys = append(out.Keys, key)
		out.Values = append(out.Values, v)
	}
	for _, it := range e.Items {
		switch it.Kind {
		case MapProjProp:
			v, _ := t.property(x, k, it.Key, e.P)
			set(it.Key, v, true)
		case MapProjAll:
			all = true
			names, vals := t.allProps(x, k, e.P)
			for i := range names {
				set(names[i], vals[i], false)
			}
		default:
			v, _ := t.expr(it.Expr, sc)
			set(it.Key, v, true)
		}
	}
	keys := append([]string(nil), out.Keys...)
	if !all {
		return out, kind{tag: kMap, keys: keys}
	}
	// .* lists the properties the value has, as properties() does: the
	// result reader drops the null fields .* put in, keeps those named,
	// and adds the tail's properties (see ProjectionMarker).
	var kept []string
	for _, key := range out.Keys {
		if named[key] {
			kept = append(kept, key)
		}
	}
	marker, _ := json.Marshal(kept)
	out.Keys = append([]string{ProjectionMarker}, out.Keys...)
	out.Values = append([]Expr{strLit(string(marker))}, out.Values...)
	mk := kind{tag: kMap, keys: keys, sparse: true, kept: kept}
	if t.s.hasTail(k.tag == kNode) {
		out.Keys = append(out.Keys, format.GraphTailKeysColumn, format.GraphTailValuesColumn)
		out.Values = append(out.Values, &Prop{X: x, Key: format.GraphTailKeysColumn}, &Prop{X: x, Key: format.GraphTailValuesColumn})
		for _, name := range t.s.tailNames(k.tag == kNode) {
			if !named[name] {
				mk.keys = append(mk.keys, name)
			}
		}
		mk.tail = k.tag
	}
	return out, mk
}

// allProps lists the property names and lookups of a node or relationship.
func (t *translator) allProps(x Expr, k kind, p Pos) ([]string, []Expr) {
	if k.tag != kNode && k.tag != kRel {
		t.fail(KindUnsupported, p, "properties of this value cannot be listed; use it on a node or relationship variable")
	}
	names, cols := t.s.allProperties(k.tag == kNode, k.tables)
	vals := make([]Expr, len(cols))
	for i, c := range cols {
		vals[i] = &Prop{X: x, Key: c}
	}
	return names, vals
}

// allPropsStruct is the struct literal of properties(x); x is bound once
// when it is not a plain variable.
func (t *translator) allPropsStruct(x Expr, k kind, p Pos) Expr {
	build := func(x Expr) Expr {
		names, vals := t.allProps(x, k, p)
		out := &MapLit{P: p, Keys: []string{PropertiesMarker}, Values: []Expr{&Literal{Kind: LitBool, Bool: true}}}
		out.Keys = append(out.Keys, names...)
		out.Values = append(out.Values, vals...)
		if t.s.hasTail(k.tag == kNode) {
			// The result reader adds the tail's properties.
			out.Keys = append(out.Keys, format.GraphTailKeysColumn, format.GraphTailValuesColumn)
			out.Values = append(out.Values, &Prop{X: x, Key: format.GraphTailKeysColumn}, &Prop{X: x, Key: format.GraphTailValuesColumn})
		}
		return out
	}
	if k.tag != kNode && k.tag != kRel {
		t.fail(KindUnsupported, p, "properties of this value cannot be listed; use it on a node or relationship variable")
	}
	return t.bindOnce(x, build)
}

// literal turns a parameter value into a literal expression.
func (t *translator) literal(v any, p Pos) (Expr, kind) {
	switch v := v.(type) {
	case nil:
		return nullLit(p), nullKind
	case bool:
		return &Literal{P: p, Kind: LitBool, Bool: v}, scalar("BOOL")
	case string:
		return &Literal{P: p, Kind: LitString, Str: v}, scalar("STRING")
	case float64:
		return t.floatLit(v, p)
	case float32:
		return t.floatLit(float64(v), p)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return &Literal{P: p, Kind: LitInt, Int: n}, scalar("INT64")
		}
		f, err := v.Float64()
		if err != nil {
			t.fail(KindParameter, p, "parameter number %s is out of range", v)
		}
		return t.floatLit(f, p)
	case time.Time:
		return call("timestamp", strLit(v.UTC().Format("2006-01-02 15:04:05.999999"))), scalar("TIMESTAMP")
	case []any:
		out := &ListLit{P: p}
		for _, it := range v {
			x, _ := t.literal(it, p)
			out.Items = append(out.Items, x)
		}
		return out, listOf(unknownKind)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := &MapLit{P: p}
		for _, k := range keys {
			if k == "" {
				t.fail(KindParameter, p, "a map parameter has an empty key")
			}
			x, _ := t.literal(v[k], p)
			out.Keys = append(out.Keys, k)
			out.Values = append(out.Values, x)
		}
		if len(keys) == 0 {
			t.fail(KindParameter, p, "an empty map cannot be passed as a parameter")
		}
		return out, kind{tag: kMap, keys: keys}
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &Literal{P: p, Kind: LitInt, Int: rv.Int()}, scalar("INT64")
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if rv.Uint() > math.MaxInt64 {
			t.fail(KindParameter, p, "parameter value %d does not fit in a 64-bit integer", rv.Uint())
		}
		return &Literal{P: p, Kind: LitInt, Int: int64(rv.Uint())}, scalar("INT64")
	case reflect.Slice, reflect.Array:
		items := make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
		return t.literal(items, p)
	case reflect.Map:
		if rv.Type().Key().Kind() == reflect.String {
			m := make(map[string]any, rv.Len())
			for _, k := range rv.MapKeys() {
				m[k.String()] = rv.MapIndex(k).Interface()
			}
			return t.literal(m, p)
		}
	}
	t.fail(KindParameter, p, "parameter value of type %T cannot be passed to a query", v)
	return nil, unknownKind
}

// floatLit keeps integral JSON numbers integers: JSON has one number type,
// and $limit or $index must stay integers.
func (t *translator) floatLit(f float64, p Pos) (Expr, kind) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		t.fail(KindParameter, p, "parameter value %v cannot be passed to a query", f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return &Literal{P: p, Kind: LitInt, Int: int64(f)}, scalar("INT64")
	}
	return &Literal{P: p, Kind: LitFloat, Float: f}, scalar("DOUBLE")
}

// rewrite helpers shared with functions.go.

func (t *translator) keysOf(x Expr, k kind, p Pos) (Expr, kind) {
	switch k.tag {
	case kNull:
		return nullLit(p), nullKind
	case kNode, kRel, kUnknown:
		return &Prop{P: p, X: x, Key: format.GraphKeysColumn}, listOf(scalar("STRING"))
	case kMap:
		if k.sparse {
			return t.presentKeys(x, k, p), listOf(scalar("STRING"))
		}
		if k.keys != nil {
			l := &ListLit{P: p}
			for _, key := range k.keys {
				l.Items = append(l.Items, strLit(key))
			}
			return l, listOf(scalar("STRING"))
		}
	}
	t.fail(KindUnsupported, p, "keys() takes a node, a relationship or a map literal")
	return nil, unknownKind
}

// presentKeys is keys(m) of a sparse map (properties(x), x {.*}): the keys
// whose fields have a value, those the projection names, and the keys of
// the tail the row has.
func (t *translator) presentKeys(m Expr, k kind, p Pos) Expr {
	return t.bindOnce(m, func(m Expr) Expr {
		var tail []string
		if k.tail != 0 {
			tail = t.s.tailNames(k.tail == kNode)
		}
		items := &ListLit{P: p}
		for _, key := range k.keys {
			switch {
			case contains(k.kept, key):
				items.Items = append(items.Items, strLit(key))
			case !contains(tail, key):
				items.Items = append(items.Items, ifNotNull(&Prop{P: p, X: m, Key: key}, strLit(key)))
			}
		}
		v := t.newName("k")
		var out Expr = call("list_filter", items, &Lambda{Params: []string{v}, Body: &IsNull{X: &Var{Name: v}, Not: true}})
		if len(items.Items) == 0 {
			out = call("list_filter", &ListLit{Items: []Expr{strLit("")}}, &Lambda{Params: []string{v}, Body: &Literal{Kind: LitBool, Bool: false}})
		}
		if k.tail != 0 {
			// The tail's keys the row has, but those the projection
			// names (listed already).
			var has Expr = &Prop{P: p, X: m, Key: format.GraphTailKeysColumn}
			var named []string
			for _, key := range k.kept {
				if contains(tail, key) {
					named = append(named, key)
				}
			}
			if len(named) > 0 {
				w := t.newName("k")
				has = call("list_filter", has, &Lambda{Params: []string{w}, Body: notIn(&Var{Name: w}, named)})
			}
			out = call("list_concat", out, has)
		}
		if len(k.kept) == 0 {
			// Every note and edge has built-in properties with values:
			// no key is the map of a null node (OPTIONAL MATCH), and
			// keys(null) is null.
			out = &Case{Whens: []When{{Cond: &Binary{Op: "=", L: call("size", out), R: intLit(0)}, Then: nullLit(p)}}, Else: out}
		}
		return out
	})
}

// notIn is NOT x IN names (true for no names).
func notIn(x Expr, names []string) Expr {
	if len(names) == 0 {
		return &Literal{Kind: LitBool, Bool: true}
	}
	l := &ListLit{}
	for _, n := range names {
		l.Items = append(l.Items, strLit(n))
	}
	return &Unary{Op: "NOT", X: &Binary{Op: "IN", L: x, R: l}}
}

// properties builds properties(x) as a struct literal whose first field,
// vg_properties, marks it for the result reader, which drops the marker and
// the null fields: a property without a value does not exist in openCypher.
func (t *translator) properties(x Expr, k kind, p Pos) (Expr, kind) {
	switch k.tag {
	case kNull:
		return nullLit(p), nullKind
	case kMap:
		return x, k
	}
	names, _ := t.s.allProperties(k.tag == kNode, k.tables)
	mk := kind{tag: kMap, keys: names, sparse: true}
	if t.s.hasTail(k.tag == kNode) {
		mk.keys = append(mk.keys, t.s.tailNames(k.tag == kNode)...)
		mk.tail = k.tag
	}
	return t.allPropsStruct(x, k, p), mk
}

// PropertiesMarker is the first field of the struct that properties(x)
// returns; readers of results drop it and the struct's null fields.
const PropertiesMarker = "vg_properties"

// ProjectionMarker is the first field of the struct of a map projection
// with .* (x {.*, .a, b: 1}): a JSON list of the keys an item names. Readers
// of results drop the marker and the null fields of the other keys (those
// .* listed), and add the properties of the tail columns the struct then
// ends with, where no item names them.
const ProjectionMarker = "vg_projection"

// bindOnce applies f to x, which f may use several times. A cheap x is
// repeated as it is; any other is bound once to a lambda parameter, so that
// nested rewrites cannot double the query's size at every level:
// list_extract(list_transform([x], v -> f(v)), 1).
func (t *translator) bindOnce(x Expr, f func(Expr) Expr) Expr {
	if cheap(x) {
		return f(x)
	}
	v := t.newName("v")
	body := f(&Var{Name: v})
	// list_extract on a one-item list cannot fail; list_any_value would
	// turn a null result into a zero value.
	return call("list_extract", call("list_transform", &ListLit{Items: []Expr{x}}, &Lambda{Params: []string{v}, Body: body}), intLit(1))
}

// cheap reports expressions that may be repeated: simple ones, and calls
// whose arguments are simple, which cannot nest.
func cheap(x Expr) bool {
	if simple(x) {
		return true
	}
	f, ok := x.(*FuncCall)
	if !ok {
		return false
	}
	for _, a := range f.Args {
		if !simple(a) {
			return false
		}
	}
	return true
}

// ifNotNull is CASE WHEN probe IS NULL THEN NULL ELSE x END.
func ifNotNull(probe, x Expr) Expr {
	return &Case{Whens: []When{{Cond: &IsNull{X: probe}, Then: nullLit(Pos{})}}, Else: x}
}
