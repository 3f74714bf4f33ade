package cypher

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// aggregates are the aggregating functions; they are never folded on null.
var aggregates = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "collect": true}

// renamed are openCypher functions whose Kuzu equivalent only differs in
// name.
var renamed = map[string]string{
	"toupper": "upper", "tolower": "lower", "split": "string_split", "log": "ln",
	"relationships": "rels", "startnode": "start_node", "endnode": "end_node",
	"datetime": "timestamp", "localdatetime": "timestamp",
}

// function translates a function call. openCypher functions that Kuzu names
// or defines differently are rewritten; others go to Kuzu as written, so
// Kuzu's own functions (list_contains, date_part, ...) work too.
func (t *translator) function(f *FuncCall, sc *scope) (Expr, kind) {
	name := strings.ToLower(f.Name)
	if f.Star {
		return &FuncCall{P: f.P, Name: f.Name, Star: true}, scalar("INT64")
	}
	if out, k, ok := t.patternFunction(f, name, sc); ok {
		return out, k
	}
	args := make([]Expr, len(f.Args))
	kinds := make([]kind, len(f.Args))
	for i, a := range f.Args {
		args[i], kinds[i] = t.expr(a, sc)
	}
	if aggregates[name] {
		return aggregate(f, name, args, kinds)
	}
	if name == "coalesce" {
		return coalesce(f, args, kinds)
	}
	for _, a := range args {
		if isNull(a) {
			// Every scalar function of openCypher returns null on a null
			// argument.
			return nullLit(f.P), nullKind
		}
	}
	c := &fcall{t: t, f: f, args: args, kinds: kinds}
	if out, k, ok := c.graphFunction(name); ok {
		return out, k
	}
	if out, k, ok := c.valueFunction(name); ok {
		return out, k
	}
	if to, ok := renamed[name]; ok {
		return &FuncCall{P: f.P, Name: to, Args: args}, unknownKind
	}
	if !validFunctionName(f.Name) {
		t.fail(KindSyntax, f.P, "unknown function %s()", f.Name)
	}
	return &FuncCall{P: f.P, Name: f.Name, Distinct: f.Distinct, Args: args}, unknownKind
}

// patternFunction handles the calls that need their argument untranslated:
// exists(pattern), size(pattern) and the path functions of an OPTIONAL
// MATCH path.
func (t *translator) patternFunction(f *FuncCall, name string, sc *scope) (Expr, kind, bool) {
	switch name {
	case "exists":
		out, k := t.exists(f, sc)
		return out, k, true
	case "size":
		if len(f.Args) == 1 {
			if pp, ok := f.Args[0].(*PatternPred); ok {
				return t.subquery(&Subquery{P: f.P, Count: true, Pattern: []*PatternPart{pp.Part}}, sc), scalar("INT64"), true
			}
		}
	case "nodes", "relationships", "rels", "length":
		// Of a path an OPTIONAL MATCH did not match, these are null; the
		// CASE goes around the call because Kuzu's functions take only a
		// path variable.
		if len(f.Args) != 1 {
			return nil, kind{}, false
		}
		v, ok := f.Args[0].(*Var)
		if !ok {
			return nil, kind{}, false
		}
		if k, _ := sc.lookup(v.Name); k.tag == kPath && k.nullVar != "" {
			plain := newScope(sc)
			plain.bind(v.Name, k.settled(), true)
			out, ok := t.function(&FuncCall{P: f.P, Name: f.Name, Args: []Expr{v}}, plain)
			return ifNotNull(&Var{Name: k.nullVar}, out), ok, true
		}
	}
	return nil, kind{}, false
}

// aggregate translates count, sum, avg, min, max and collect.
func aggregate(f *FuncCall, name string, args []Expr, kinds []kind) (Expr, kind) {
	for i, a := range args {
		if isNull(a) {
			// count(null) is 0 and sum(null) null in Kuzu too, but only
			// once the null has a type.
			args[i] = &Cast{X: a, Type: "INT64"}
		}
	}
	k := unknownKind
	switch name {
	case "count":
		k = scalar("INT64")
	case "collect":
		if len(kinds) == 1 {
			k = listOf(kinds[0])
		}
	case "min", "max":
		if len(kinds) == 1 {
			k = kinds[0]
		}
	}
	agg := &FuncCall{P: f.P, Name: f.Name, Distinct: f.Distinct, Args: args}
	// openCypher's sum of no values is 0 and collect of none is []; Kuzu's
	// are null.
	switch name {
	case "sum":
		return call("coalesce", agg, intLit(0)), k
	case "collect":
		return call("coalesce", agg, &ListLit{}), k
	}
	return agg, k
}

// fcall is a scalar function call with translated arguments.
type fcall struct {
	t     *translator
	f     *FuncCall
	args  []Expr
	kinds []kind
}

func (c *fcall) arity(min, max int) {
	if len(c.args) < min || len(c.args) > max {
		c.t.fail(KindSyntax, c.f.P, "%s() takes %s", c.f.Name, arityText(min, max))
	}
}

func (c *fcall) x() Expr { return c.args[0] }

// graphFunction translates the functions on nodes, relationships and paths.
func (c *fcall) graphFunction(name string) (Expr, kind, bool) {
	t, f := c.t, c.f
	switch name {
	case "id", "elementid":
		c.arity(1, 1)
		if c.kinds[0].tag == kRel {
			return t.edgeID(c.x(), f.P), scalar("STRING"), true
		}
		return &Prop{P: f.P, X: c.x(), Key: "id"}, scalar("STRING"), true
	case "type":
		c.arity(1, 1)
		return &Prop{P: f.P, X: c.x(), Key: format.GraphTypeColumn}, scalar("STRING"), true
	case "labels":
		c.arity(1, 1)
		return &Prop{P: f.P, X: c.x(), Key: "labels"}, listOf(scalar("STRING")), true
	case "label":
		// Kuzu's label() is the storage table's name (Note,
		// e_mentored_by_93c49ec0), not a name of the vault.
		t.fail(KindUnsupported, f.P, "label() is not supported: use type(r) for a relationship's type or labels(n) for a note's labels")
	case "keys":
		c.arity(1, 1)
		out, k := t.keysOf(c.x(), c.kinds[0], f.P)
		return out, k, true
	case "properties":
		c.arity(1, 1)
		out, k := t.properties(c.x(), c.kinds[0], f.P)
		return out, k, true
	case "nodes":
		c.arity(1, 1)
		t.needPath(f, c.kinds[0])
		return call("nodes", c.x()), listOf(nodeKind), true
	case "relationships", "rels":
		c.arity(1, 1)
		t.needPath(f, c.kinds[0])
		return call("rels", c.x()), listOf(relKind(nil)), true
	case "startnode", "endnode":
		c.arity(1, 1)
		// Kuzu returns a node for a null relationship.
		return t.bindOnce(c.x(), func(r Expr) Expr { return ifNotNull(r, call(renamed[name], r)) }), nodeKind, true
	case "length":
		c.arity(1, 1)
		if c.kinds[0].tag == kPath {
			// Kuzu's length() takes only a path bound by MATCH, not one
			// carried by WITH.
			return call("size", call("rels", c.x())), scalar("INT64"), true
		}
		return call("size", c.x()), scalar("INT64"), true
	}
	return nil, kind{}, false
}

// valueFunction translates the list, string, number and time functions
// that Kuzu names or defines differently.
func (c *fcall) valueFunction(name string) (Expr, kind, bool) {
	if out, k, ok := c.listOrString(name); ok {
		return out, k, true
	}
	t, f, args := c.t, c.f, c.args
	switch name {
	case "tostring":
		c.arity(1, 1)
		return toString(c.x(), c.kinds[0]), scalar("STRING"), true
	case "tointeger":
		c.arity(1, 1)
		if c.kinds[0].tag == kScalar && c.kinds[0].typ == "DOUBLE" {
			// openCypher truncates toward zero; Kuzu's cast rounds.
			return t.bindOnce(c.x(), func(x Expr) Expr {
				trunc := &Case{Whens: []When{{Cond: &Binary{Op: ">=", L: x, R: intLit(0)}, Then: call("floor", x)}}, Else: call("ceil", x)}
				return &Cast{P: f.P, X: trunc, Type: "INT64"}
			}), scalar("INT64"), true
		}
		return &Cast{P: f.P, X: c.x(), Type: "INT64"}, scalar("INT64"), true
	case "tofloat":
		c.arity(1, 1)
		return &Cast{P: f.P, X: c.x(), Type: "DOUBLE"}, scalar("DOUBLE"), true
	case "toboolean":
		c.arity(1, 1)
		return &Cast{P: f.P, X: c.x(), Type: "BOOL"}, scalar("BOOL"), true
	case "round":
		c.arity(1, 2)
		if len(args) == 1 {
			args = append(args, intLit(0))
		}
		return call("round", args...), scalar("DOUBLE"), true
	case "e":
		c.arity(0, 0)
		return &Literal{P: f.P, Kind: LitFloat, Float: 2.718281828459045}, scalar("DOUBLE"), true
	case "exp":
		c.arity(1, 1)
		return call("pow", &Literal{Kind: LitFloat, Float: 2.718281828459045}, c.x()), scalar("DOUBLE"), true
	case "rand":
		t.fail(KindUnsupported, f.P, "rand() is not available in the graph engine")
	case "timestamp":
		if len(args) == 0 {
			return call("to_epoch_ms", call("current_timestamp")), scalar("INT64"), true
		}
		return call("timestamp", args...), scalar("TIMESTAMP"), true
	case "date":
		if len(args) == 0 {
			return call("current_date"), scalar("DATE"), true
		}
		return call("date", args...), scalar("DATE"), true
	case "datetime", "localdatetime":
		if len(args) == 0 {
			return call("current_timestamp"), scalar("TIMESTAMP"), true
		}
		return call("timestamp", args...), scalar("TIMESTAMP"), true
	case "duration":
		c.arity(1, 1)
		return t.duration(f, c.x()), scalar("INTERVAL"), true
	}
	return nil, kind{}, false
}

// listOrString translates the list and string functions.
func (c *fcall) listOrString(name string) (Expr, kind, bool) {
	t, f, args := c.t, c.f, c.args
	switch name {
	case "isempty":
		c.arity(1, 1)
		return &Binary{P: f.P, Op: "=", L: call("size", c.x()), R: intLit(0)}, scalar("BOOL"), true
	case "head", "last":
		c.arity(1, 1)
		pos := intLit(1)
		if name == "last" {
			pos = intLit(-1)
		}
		return t.elementAt(c.x(), pos), elemKind(c.kinds[0]), true
	case "tail":
		c.arity(1, 1)
		return call("list_slice", c.x(), intLit(2), intLit(-1)), c.kinds[0], true
	case "reverse":
		c.arity(1, 1)
		if c.kinds[0].tag == kList {
			return call("list_reverse", c.x()), c.kinds[0], true
		}
		return call("reverse", c.x()), c.kinds[0], true
	case "substring":
		c.arity(2, 3)
		start := t.bindOnce(args[1], func(i Expr) Expr { return oneBased(i, false) })
		length := Expr(call("size", c.x()))
		if len(args) == 3 {
			length = args[2]
		}
		return call("substring", c.x(), start, length), scalar("STRING"), true
	case "replace":
		c.arity(3, 3)
		return t.replace(f, args), scalar("STRING"), true
	case "range":
		c.arity(2, 3)
		return t.rangeCall(f, args), listOf(scalar("INT64")), true
	case "repeat", "lpad", "rpad":
		return t.sizedString(f, name, args), scalar("STRING"), true
	}
	return nil, kind{}, false
}

func arityText(min, max int) string {
	switch {
	case min == max && min == 1:
		return "one argument"
	case min == max:
		return strconv.Itoa(min) + " arguments"
	}
	return strconv.Itoa(min) + " to " + strconv.Itoa(max) + " arguments"
}

// validFunctionName accepts Kuzu function names; namespaced names
// (apoc.*) do not exist in Kuzu.
func validFunctionName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func (t *translator) needPath(f *FuncCall, k kind) {
	if k.tag != kPath && k.tag != kUnknown {
		t.fail(KindSyntax, f.P, "%s() takes a path (MATCH p = ...)", f.Name)
	}
}

// exists translates exists(pattern) and the older exists(n.prop).
func (t *translator) exists(f *FuncCall, sc *scope) (Expr, kind) {
	if len(f.Args) != 1 {
		t.fail(KindSyntax, f.P, "exists() takes one argument")
	}
	if pp, ok := f.Args[0].(*PatternPred); ok {
		return t.subquery(&Subquery{P: f.P, Pattern: []*PatternPart{pp.Part}}, sc), scalar("BOOL")
	}
	x, _ := t.expr(f.Args[0], sc)
	if isNull(x) {
		return &Literal{P: f.P, Kind: LitBool, Bool: false}, scalar("BOOL")
	}
	return &IsNull{P: f.P, X: x, Not: true}, scalar("BOOL")
}

// coalesce drops null literals: Kuzu cannot type them.
func coalesce(f *FuncCall, args []Expr, kinds []kind) (Expr, kind) {
	var kept []Expr
	k := nullKind
	for i, a := range args {
		if !isNull(a) {
			kept = append(kept, a)
			if k.tag == kNull {
				k = kinds[i]
			}
		}
	}
	switch len(kept) {
	case 0:
		return nullLit(f.P), nullKind
	case 1:
		return kept[0], k
	}
	return &FuncCall{P: f.P, Name: "coalesce", Args: kept}, k
}

// replace translates replace(s, from, to): Kuzu has only regexp_replace,
// so from must be a literal string, which is quoted as a regular
// expression.
func (t *translator) replace(f *FuncCall, args []Expr) Expr {
	from, ok1 := args[1].(*Literal)
	to, ok2 := args[2].(*Literal)
	if !ok1 || !ok2 || from.Kind != LitString || to.Kind != LitString {
		t.fail(KindUnsupported, f.P, "replace() needs literal strings (or parameters) as its second and third arguments")
	}
	if from.Str == "" {
		return args[0]
	}
	repl := strings.ReplaceAll(to.Str, `\`, `\\`)
	return call("regexp_replace", args[0], strLit(regexp.QuoteMeta(from.Str)), strLit(repl), strLit("g"))
}

var isoDuration = regexp.MustCompile(`^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// duration translates duration('P1DT2H') into Kuzu's interval('1 days 2
// hours'); a map argument is not supported.
func (t *translator) duration(f *FuncCall, x Expr) Expr {
	l, ok := x.(*Literal)
	if !ok || l.Kind != LitString {
		return call("interval", x)
	}
	m := isoDuration.FindStringSubmatch(strings.ToUpper(l.Str))
	if m == nil || l.Str == "P" || strings.HasSuffix(strings.ToUpper(l.Str), "T") {
		return call("interval", x)
	}
	units := []string{"years", "months", "weeks", "days", "hours", "minutes", "seconds"}
	var parts []string
	for i, u := range units {
		if v := m[i+1]; v != "" {
			parts = append(parts, v+" "+u)
		}
	}
	return call("interval", strLit(strings.Join(parts, " ")))
}

// MaxGenerated bounds the lists and strings a function may build from a
// small input (range, repeat, lpad, rpad). Kuzu allocates them outside its
// buffer pool and cannot interrupt one function call, so an unbounded
// range(1, 1e9) would exhaust the machine's memory before any timeout.
const MaxGenerated = 1_000_000

// rangeCall checks range() with constant bounds here and guards the others
// at run time.
func (t *translator) rangeCall(f *FuncCall, args []Expr) Expr {
	lits := make([]int64, len(args))
	constant := true
	for i, a := range args {
		l, ok := a.(*Literal)
		if !ok || l.Kind != LitInt {
			constant = false
			break
		}
		lits[i] = l.Int
	}
	if constant {
		step := int64(1)
		if len(lits) == 3 {
			step = lits[2]
		}
		if step == 0 {
			t.fail(KindSyntax, f.P, "range() step must not be 0")
		}
		if n := (float64(lits[1])-float64(lits[0]))/float64(step) + 1; n > MaxGenerated {
			t.fail(KindUnsupported, f.P, "range() would make %.0f items; at most %d are allowed", n, MaxGenerated)
		}
		return call("range", args...)
	}
	return t.bindOnce(args[0], func(from Expr) Expr {
		return t.bindOnce(args[1], func(to Expr) Expr {
			span := call("abs", &Binary{Op: "-", L: to, R: from})
			tooBig := &Binary{Op: ">", L: span, R: intLit(MaxGenerated)}
			guarded := append([]Expr{from, to}, args[2:]...)
			guarded[1] = &Binary{Op: "+", L: to, R: guard(tooBig, fmt.Sprintf("range() would make more than %d items", MaxGenerated))}
			return call("range", guarded...)
		})
	})
}

// sizedString guards repeat(s, n), lpad(s, n, p) and rpad(s, n, p).
func (t *translator) sizedString(f *FuncCall, name string, args []Expr) Expr {
	if len(args) < 2 {
		t.fail(KindSyntax, f.P, "%s() takes at least 2 arguments", f.Name)
	}
	size := args[1]
	if name == "repeat" {
		size = &Binary{Op: "*", L: args[1], R: call("size", args[0])}
		s, ok1 := args[0].(*Literal)
		n, ok2 := args[1].(*Literal)
		if ok1 && ok2 && s.Kind == LitString && n.Kind == LitInt {
			size = intLit(n.Int * int64(len([]rune(s.Str))))
		}
	}
	if l, ok := size.(*Literal); ok && l.Kind == LitInt {
		if l.Int > MaxGenerated {
			t.fail(KindUnsupported, f.P, "%s() would make a string of %d characters; at most %d are allowed", f.Name, l.Int, MaxGenerated)
		}
		return call(name, args...)
	}
	return t.bindOnce(args[0], func(str Expr) Expr {
		return t.bindOnce(args[1], func(n Expr) Expr {
			size := n
			if name == "repeat" {
				size = &Binary{Op: "*", L: n, R: call("size", str)}
			}
			tooBig := &Binary{Op: ">", L: size, R: intLit(MaxGenerated)}
			guarded := append([]Expr{str, n}, args[2:]...)
			guarded[1] = &Binary{Op: "+", L: n, R: guard(tooBig, fmt.Sprintf("%s() would make more than %d characters", name, MaxGenerated))}
			return call(name, guarded...)
		})
	})
}

// guard is 0 when cond is false or null and fails the query with msg when
// it is true. Kuzu evaluates every branch of CASE, so the failure hides in
// a lambda over a list that is empty unless cond holds; the lambda reads its
// parameter so that Kuzu cannot fold it into a constant.
func guard(cond Expr, msg string) Expr {
	c := "_vg_guard"
	filtered := call("list_filter", &ListLit{Items: []Expr{cond}}, &Lambda{Params: []string{c}, Body: &Var{Name: c}})
	empty := call("substring", &Cast{X: &Var{Name: c}, Type: "STRING"}, intLit(1), intLit(0))
	fail := &Lambda{Params: []string{c}, Body: call("error", &Binary{Op: "+", L: strLit(msg), R: empty})}
	return call("size", call("list_transform", filtered, fail))
}

// toString casts to a string, writing booleans and floats the way
// openCypher does ("true", "1.5") where Kuzu writes "True" and
// "1.500000"; that needs the argument's type to be known.
func toString(x Expr, k kind) Expr {
	cast := &Cast{X: x, Type: "STRING"}
	if k.tag != kScalar {
		return cast
	}
	switch k.typ {
	case "BOOL", "BOOLEAN":
		return call("lower", cast)
	case "DOUBLE":
		trimmed := call("regexp_replace", cast, strLit(`(\.[0-9]*?)0+$`), strLit(`\1`))
		return call("regexp_replace", trimmed, strLit(`\.$`), strLit(".0"))
	}
	return cast
}
