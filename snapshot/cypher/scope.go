package cypher

import "sort"

// kindTag is what the translator knows statically about an expression: it
// decides how a property lookup, an index or a function is rewritten.
type kindTag int

const (
	kUnknown kindTag = iota
	kNull            // the null literal
	kNode            // a note
	kRel             // a relationship of one of kind.tables
	kVarLen          // a variable-length relationship variable (Kuzu RECURSIVE_REL)
	kPath            // a named path
	kList            // a list of elem
	kMap             // a map (Kuzu STRUCT)
	kScalar          // a value of Kuzu type typ ("" when unknown)
)

type kind struct {
	tag kindTag
	// tables are the relationship tables of a kRel or kVarLen; nil means
	// every table.
	tables []string
	elem   *kind
	typ    string
	// keys are the keys of a kMap built from a map literal, when known.
	keys []string
	// tail, for a kMap that ends with the tail columns of a note (kNode)
	// or relationship (kRel), says whose: properties(x) and x {.*}.
	tail kindTag
	// sparse marks a kMap whose null fields do not exist (properties(x)
	// and x {.*}; the result reader drops them), but those of kept,
	// which a projection names.
	sparse bool
	kept   []string
	// nullVar, for a path bound by OPTIONAL MATCH, names a relationship
	// of the path: Kuzu's unmatched optional path is not null but a path
	// of the bound nodes, while its relationships are null. optional marks
	// a variable-length relationship bound by OPTIONAL MATCH.
	nullVar  string
	optional bool
}

// settled is k for a value computed by a projection, which Kuzu holds as
// a true null when it is null.
func (k kind) settled() kind {
	k.nullVar, k.optional = "", false
	return k
}

var (
	unknownKind = kind{}
	nodeKind    = kind{tag: kNode}
	nullKind    = kind{tag: kNull}
)

func listOf(k kind) kind { return kind{tag: kList, elem: &k} }

func scalar(typ string) kind { return kind{tag: kScalar, typ: typ} }

func relKind(tables []string) kind { return kind{tag: kRel, tables: tables} }

// elemKind is the kind of the items of a list of kind k.
func elemKind(k kind) kind {
	if k.tag == kList && k.elem != nil {
		return *k.elem
	}
	return unknownKind
}

func (k kind) isTemporal() bool {
	return k.tag == kScalar && (k.typ == "DATE" || k.typ == "TIMESTAMP")
}

// scope holds the variables visible at a point of the query.
type scope struct {
	parent *scope
	vars   map[string]kind
	hidden map[string]bool
	order  []string
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, vars: map[string]kind{}, hidden: map[string]bool{}}
}

func (s *scope) bind(name string, k kind, hidden bool) {
	if _, ok := s.vars[name]; !ok {
		s.order = append(s.order, name)
	}
	s.vars[name] = k
	if hidden {
		s.hidden[name] = true
	}
}

func (s *scope) lookup(name string) (kind, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		if k, ok := sc.vars[name]; ok {
			return k, true
		}
	}
	return kind{}, false
}

// visible returns the user's variables (not generated ones), sorted by
// name, as RETURN * lists them.
func (s *scope) visible() []string {
	seen := map[string]bool{}
	var names []string
	for sc := s; sc != nil; sc = sc.parent {
		for _, n := range sc.order {
			if !sc.hidden[n] && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}
