package cypher

// The AST covers the openCypher read grammar plus the Kuzu extensions a
// translated query needs (lambdas, CAST, recursive-relationship semantics
// and filters). The parser builds it from vault-level text, the translator
// rewrites a copy in terms of the database schema, and the printer renders
// either.

// Query is one or more single queries joined by UNION or UNION ALL.
type Query struct {
	Parts []*SingleQuery
	// UnionAll[i] tells whether Parts[i] and Parts[i+1] are joined by
	// UNION ALL (true) or UNION.
	UnionAll []bool
	// names holds every name written in the query text (set by Parse), so
	// that names the translator generates never clash with one.
	names map[string]bool
}

// SingleQuery is a sequence of clauses ending in RETURN, or a standalone
// CALL.
type SingleQuery struct {
	Clauses []Clause
}

// Clause is one of *Match, *Unwind, *With, *Return, *CallClause.
type Clause interface {
	clausePos() Pos
}

// Match is MATCH or OPTIONAL MATCH.
type Match struct {
	P        Pos
	Optional bool
	Pattern  []*PatternPart
	Where    Expr
}

// Unwind is UNWIND expr AS var.
type Unwind struct {
	P    Pos
	Expr Expr
	Var  string
}

// With is WITH projection [WHERE].
type With struct {
	P     Pos
	Proj  *Projection
	Where Expr
}

// Return is RETURN projection.
type Return struct {
	P    Pos
	Proj *Projection
}

// CallClause is CALL proc(args) [YIELD items [WHERE]]. Standalone is set
// when the CALL is the whole query.
type CallClause struct {
	P          Pos
	Proc       string
	Args       []Expr
	Yield      []YieldItem
	YieldStar  bool
	Where      Expr
	Standalone bool
}

// YieldItem is one name yielded by a procedure, optionally renamed.
type YieldItem struct {
	Name, Alias string
}

func (c *Match) clausePos() Pos      { return c.P }
func (c *Unwind) clausePos() Pos     { return c.P }
func (c *With) clausePos() Pos       { return c.P }
func (c *Return) clausePos() Pos     { return c.P }
func (c *CallClause) clausePos() Pos { return c.P }

// Projection is the body of WITH and RETURN.
type Projection struct {
	Distinct bool
	Star     bool
	Items    []*ProjItem
	Order    []*SortItem
	Skip     Expr
	Limit    Expr
}

// ProjItem is one projected expression. Text is the expression as written,
// which names the column when there is no alias.
type ProjItem struct {
	Expr  Expr
	Alias string
	Text  string
}

// SortItem is one ORDER BY key.
type SortItem struct {
	Expr Expr
	Desc bool
}

// Shortest kinds of a pattern part.
const (
	ShortestNone = iota
	ShortestOne  // shortestPath(...)
	ShortestAll  // allShortestPaths(...)
)

// PatternPart is a path pattern, optionally named (p = ...).
type PatternPart struct {
	P        Pos
	Var      string
	Shortest int
	Nodes    []*NodePattern
	Rels     []*RelPattern // len(Rels) == len(Nodes)-1
}

// NodePattern is (var:Labels {props}).
type NodePattern struct {
	P      Pos
	Var    string
	Labels LabelExpr
	Props  Expr // *MapLit or *Param, nil when absent
}

// LabelExpr is a disjunction of conjunctions of labels: :A:B is
// [[A B]], :A|B is [[A] [B]]. Empty means no label constraint.
type LabelExpr [][]string

// Directions of a relationship pattern.
const (
	DirBoth  = iota // -[]-
	DirRight        // -[]->
	DirLeft         // <-[]-
)

// Recursive-relationship semantics (Kuzu keywords after '*').
const (
	SemDefault     = ""
	SemWalk        = "WALK"
	SemTrail       = "TRAIL"
	SemAcyclic     = "ACYCLIC"
	SemShortest    = "SHORTEST"
	SemAllShortest = "ALL SHORTEST"
)

// RelPattern is -[var:T1|T2*min..max {props}]->.
type RelPattern struct {
	P         Pos
	Var       string
	Types     []string
	Dir       int
	VarLength bool
	Semantics string
	// Min and Max are the bounds of a variable-length relationship; nil
	// when not written.
	Min, Max *int64
	Props    Expr
	// Filter is Kuzu's recursive filter (r, n | WHERE expr): FilterRel and
	// FilterNode name each relationship and node of the path.
	FilterRel, FilterNode string
	Filter                Expr
}

// Expr is an expression node.
type Expr interface {
	exprPos() Pos
}

// Literal kinds.
const (
	LitNull = iota
	LitBool
	LitInt
	LitFloat
	LitString
)

// Literal is null, a boolean, a number or a string.
type Literal struct {
	P     Pos
	Kind  int
	Bool  bool
	Int   int64
	Float float64
	Str   string
}

// Param is $name.
type Param struct {
	P    Pos
	Name string
}

// Var is a variable reference.
type Var struct {
	P    Pos
	Name string
}

// Prop is X.Key.
type Prop struct {
	P   Pos
	X   Expr
	Key string
}

// HasLabels is X:Label..., a label predicate.
type HasLabels struct {
	P      Pos
	X      Expr
	Labels LabelExpr
}

// Binary is a binary operator: OR XOR AND = <> < <= > >= + - * / % ^ IN
// "STARTS WITH" "ENDS WITH" CONTAINS =~.
type Binary struct {
	P    Pos
	Op   string
	L, R Expr
}

// Unary is NOT, - or +.
type Unary struct {
	P  Pos
	Op string
	X  Expr
}

// IsNull is X IS [NOT] NULL.
type IsNull struct {
	P   Pos
	X   Expr
	Not bool
}

// Index is X[I].
type Index struct {
	P    Pos
	X, I Expr
}

// Slice is X[From..To]; either bound may be nil.
type Slice struct {
	P        Pos
	X        Expr
	From, To Expr
}

// FuncCall is name(args), count(*) when Star is set.
type FuncCall struct {
	P        Pos
	Name     string
	Distinct bool
	Star     bool
	Args     []Expr
}

// Case is CASE [subject] WHEN ... THEN ... [ELSE ...] END.
type Case struct {
	P       Pos
	Subject Expr
	Whens   []When
	Else    Expr
}

// When is one WHEN ... THEN ... arm.
type When struct {
	Cond, Then Expr
}

// ListLit is [a, b, c].
type ListLit struct {
	P     Pos
	Items []Expr
}

// MapLit is {k: v, ...}; Keys are property names as written.
type MapLit struct {
	P      Pos
	Keys   []string
	Values []Expr
}

// ListComp is [var IN list WHERE pred | expr].
type ListComp struct {
	P     Pos
	Var   string
	List  Expr
	Where Expr
	Map   Expr
}

// Quantified is ALL/ANY/NONE/SINGLE(var IN list WHERE pred).
type Quantified struct {
	P     Pos
	Kind  string
	Var   string
	List  Expr
	Where Expr
}

// Reduce is reduce(acc = init, var IN list | expr).
type Reduce struct {
	P    Pos
	Acc  string
	Init Expr
	Var  string
	List Expr
	Expr Expr
}

// PatternPred is a path pattern used as a predicate: WHERE (a)-->(b).
type PatternPred struct {
	P    Pos
	Part *PatternPart
}

// Subquery is EXISTS { MATCH ... } or COUNT { MATCH ... }.
type Subquery struct {
	P       Pos
	Count   bool
	Pattern []*PatternPart
	Where   Expr
}

// PatternComp is a pattern comprehension [(a)-->(b) WHERE ... | expr],
// parsed so that it can be refused with a precise message.
type PatternComp struct {
	P Pos
}

// MapProjection is var {.key, key: expr, .*, other}.
type MapProjection struct {
	P     Pos
	Var   string
	Items []MapProjItem
}

// Map projection item kinds.
const (
	MapProjProp    = iota // .key
	MapProjAll            // .*
	MapProjLiteral        // key: expr
	MapProjVar            // var (key and value are the variable)
)

// MapProjItem is one item of a map projection.
type MapProjItem struct {
	Kind int
	Key  string
	Expr Expr
}

// Lambda is x -> expr or (x, y) -> expr, the argument form of Kuzu's list
// functions.
type Lambda struct {
	P      Pos
	Params []string
	Body   Expr
}

// Cast is CAST(x AS TYPE).
type Cast struct {
	P    Pos
	X    Expr
	Type string
}

func (e *Literal) exprPos() Pos       { return e.P }
func (e *Param) exprPos() Pos         { return e.P }
func (e *Var) exprPos() Pos           { return e.P }
func (e *Prop) exprPos() Pos          { return e.P }
func (e *HasLabels) exprPos() Pos     { return e.P }
func (e *Binary) exprPos() Pos        { return e.P }
func (e *Unary) exprPos() Pos         { return e.P }
func (e *IsNull) exprPos() Pos        { return e.P }
func (e *Index) exprPos() Pos         { return e.P }
func (e *Slice) exprPos() Pos         { return e.P }
func (e *FuncCall) exprPos() Pos      { return e.P }
func (e *Case) exprPos() Pos          { return e.P }
func (e *ListLit) exprPos() Pos       { return e.P }
func (e *MapLit) exprPos() Pos        { return e.P }
func (e *ListComp) exprPos() Pos      { return e.P }
func (e *Quantified) exprPos() Pos    { return e.P }
func (e *Reduce) exprPos() Pos        { return e.P }
func (e *PatternPred) exprPos() Pos   { return e.P }
func (e *Subquery) exprPos() Pos      { return e.P }
func (e *PatternComp) exprPos() Pos   { return e.P }
func (e *MapProjection) exprPos() Pos { return e.P }
func (e *Lambda) exprPos() Pos        { return e.P }
func (e *Cast) exprPos() Pos          { return e.P }

// PosOf returns the position of an expression.
func PosOf(e Expr) Pos { return e.exprPos() }
