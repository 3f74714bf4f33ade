// Package cypher owns the query language: a hand-written lexer and
// recursive-descent parser of the openCypher read grammar (plus the Kuzu
// extensions a query may use), its AST, a printer, and the translation of a
// query written in vault names into a query on a snapshot's Kuzu database
// (see format/graph.go for that database's layout and naming rules).
//
// It does no I/O and does not run queries; package graphdb does. Parse,
// Translate and Compile are safe for concurrent use. A Schema (NewSchema)
// holds a graph's names prepared once, for the translations of many
// queries; a Translation carries its translated tree beside the text.
//
// # Errors
//
// Every error is an *Error with a Kind. Syntax errors carry the line and
// column (1-based, in characters) of the first token that does not fit.
// A syntax error that looks like a vault name written without the
// backquotes it needs (a space: [r:mentored by]; punctuation:
// [r:depends-on]; quotes: [r:'mentored by']; a keyword as a variable:
// (order:Project)) says in its message how to write it, so that every
// surface shows the same advice. Write and side-effect clauses (CREATE,
// MERGE, SET, DELETE, DETACH DELETE, REMOVE, FOREACH, LOAD CSV / LOAD FROM,
// COPY, INSTALL, LOAD EXTENSION, ATTACH, EXPORT / IMPORT DATABASE, CREATE /
// DROP / ALTER TABLE, USE, transactions, CALL name = value) are refused
// with KindReadOnly by the parser.
//
// # Procedures
//
// CALL may name only these procedures; any other is refused with
// KindReadOnly, since the translator cannot tell which procedures write:
//
//	db.labels()             column label: the snapshot's labels
//	db.relationshipTypes()  column relationshipType: its edge types, as written
//	db.propertyKeys()       column propertyKey: the property keys of notes and edges
//	show_functions()        columns name, type, signature: the engine's functions
//
// The db.* procedures are answered from the snapshot's schema (the
// manifest), in the vault's names, sorted, and take YIELD with one column
// (YIELD label AS l) and WHERE. show_functions() runs in Kuzu; function
// names are the same in every database. Kuzu's catalog procedures
// show_tables(), table_info() and show_connection() are refused with
// KindUnsupported, naming the db.* procedure to use instead: they would
// answer with the database's storage names (tables such as
// e_mentored_by_93c49ec0, columns such as p_role), which no query can use,
// since queries are written in vault names.
//
// # Translation
//
// Translate rewrites the AST, then prints it with every name backquoted:
//
//   - Labels. A note can carry several labels while a Kuzu node has one
//     table, so (p:Person) becomes (p) with list_contains(p.labels,
//     'Person') in the clause's WHERE (inside OPTIONAL MATCH, where
//     openCypher evaluates it). (p:A:B) means A and B, as in openCypher
//     (Kuzu reads :A:B as "A or B"); (p:A|B) means A or B. n:Label in an
//     expression is the same test. Unknown labels match nothing.
//   - Edge types map to their tables ([r:`mentored by`] reads
//     e_mentored_by_93c49ec0); an unknown type matches nothing. A type of
//     the long tail, kept in the shared table format.GraphEdgeTable,
//     reads that table with a test of the type column: [r:rare] becomes
//     [r:Edge] with r.vg_type = 'rare' in the clause's WHERE, or, for a
//     variable-length relationship, in its recursive filter, so that each
//     step is of the type; [r:a|rare] tests r.vg_type IN ['a', 'rare'].
//     Untyped patterns read every table and need no test.
//   - Properties map to their columns by the variable's kind: n.role is
//     p_role, r.count the built-in count. A key that exists on no note (or
//     no edge of the relationship's types) is the null literal, as a
//     missing property is null in openCypher. Inline maps ({title: 'X'})
//     become equality predicates.
//   - id(x) is the note or edge id (x.id), type(r) the edge type as
//     written, labels(n) the note's labels, keys(x) and properties(x) the
//     vault-level property names and values (see graphdb.Node).
//   - Variable-length relationships get Kuzu's TRAIL semantics, which is
//     openCypher's: no relationship twice in one path (Kuzu's default is
//     walk). A variable bound to one ([r:knows*1..3]) is the list of its
//     relationships, as in openCypher. shortestPath() and
//     allShortestPaths() become Kuzu's SHORTEST and ALL SHORTEST; Kuzu's
//     own syntax (* SHORTEST 1..5, * ACYCLIC, * WALK, and the recursive
//     filter (r, n | WHERE ...)) is accepted too.
//   - One MATCH never binds one relationship twice: pairs of relationship
//     patterns that could match the same edge get r1 <> r2,
//     NOT list_contains(rels(v), r), or is_trail(p) predicates.
//   - Parameters are inlined as literals printed from their values (never
//     spliced as text): Kuzu cannot bind an empty list or a null, and
//     inlining lets the translator fold nulls. JSON numbers that are
//     integral become integers.
//   - Functions and operators that Kuzu names or defines differently are
//     rewritten: list indexes and slices (openCypher counts from 0 and
//     returns null out of range; Kuzu counts from 1 and fails), head, last,
//     tail, substring, replace, split, toUpper, toLower, toString,
//     toInteger, toFloat, toBoolean, round, log, exp, e, timestamp, date,
//     datetime, duration, size of a pattern, exists, isEmpty, list
//     comprehensions (list_filter and list_transform), reduce
//     (list_reduce), map projections (struct literals), EXISTS { } and
//     COUNT { } with a bare pattern, pattern predicates, comparison chains
//     (a < b < c), sum (0 over no rows) and collect ([] over no rows).
//   - Kuzu 0.11.3 crashes the process on some functions given an untyped
//     null (list_contains(null, x), x IN null, labels(null), nodes(null),
//     rels(null), start_node(null)) and fails on others (CASE with only
//     null results, collect(null), =~ null). The translator folds every
//     operation on the null literal to openCypher's result, so a missing
//     property or a null parameter never reaches Kuzu as an argument, and
//     types a null carried by WITH.
//   - CASE WHEN on a bare boolean column is evaluated wrongly by Kuzu
//     0.11.3 (every row takes ELSE and rows get mixed up); conditions are
//     sent as (cond) = true, which it evaluates correctly.
//   - Kuzu 0.11.3's list lambdas (list_filter, list_transform) return null
//     for every row when their list is a column holding nulls, and its
//     quantifiers read a null list as empty. List comprehensions and
//     quantifiers therefore run on coalesce(list, []) and give null for a
//     null list through CASE, as openCypher does.
//   - list_any_value returns a zero value ("" or 0, even a blank node) for
//     a list without a non-null item, so an index masks it with CASE.
//   - ORDER BY an expression that the RETURN projects (RETURN DISTINCT
//     n.title ORDER BY n.title) sorts by that column: Kuzu no longer knows
//     n after DISTINCT or an aggregation.
//   - An expression the translation needs twice (an index, a label test on
//     a computed value) is bound once through a one-item list_transform
//     when it is not a plain term, so nested rewrites cannot grow the query
//     exponentially; the translated query is capped at 4 MiB.
//   - range(), repeat(), lpad() and rpad() may build at most MaxGenerated
//     items or characters: Kuzu allocates them outside its buffer pool and
//     cannot interrupt a single function call, so range(1, 1e9) would
//     exhaust memory before the timeout. Constant arguments are checked
//     here; others are guarded at run time.
//   - A path or variable-length relationship that an OPTIONAL MATCH did not
//     bind is null, as in openCypher: Kuzu gives a path of the bound nodes,
//     an empty relationship list, and a node for startNode(null), so these
//     are tested against a relationship of the pattern (which Kuzu does
//     leave null). length(p) is size(rels(p)): Kuzu's length() takes only a
//     path variable bound by MATCH, not one carried by WITH, which also
//     needs an alias there (WITH p AS p).
//   - WITH ... ORDER BY without SKIP or LIMIT gets SKIP 0, which Kuzu
//     requires; the order still reaches collect() and the later clauses.
//   - When Options.MaxRows is set, the final RETURN gets LIMIT MaxRows+1 so
//     the engine stops early and the caller still sees that rows were cut.
//   - In Kuzu's ORDER BY a variable wins over a column of its name, so a
//     sort key naming such a column (RETURN n.title AS l ORDER BY l, with l
//     unwound), or matching the expression of one, is sorted by the
//     column's expression; after DISTINCT or an aggregation, where that
//     expression is gone, the query is refused, asking to rename the column.
//   - A SKIP after ORDER BY (in WITH or RETURN) must be a whole number, a
//     parameter holding one, or arithmetic on them, and at most
//     MaxOrderedSkip(keys) (8,191 with one sort key): Kuzu ends the process
//     when such a SKIP passes the sorted rows' last 256 KiB block. In the
//     final RETURN of a query of one part a larger one is taken off the
//     query (its LIMIT raised by it) and the caller drops that many rows
//     (Translation.SkipRows); elsewhere (WITH, a part of a UNION, a LIMIT
//     that is not a number) it is refused (KindUnsupported, a 400): page
//     by the sort key.
//
// # Differences from openCypher
//
// Results differ from openCypher (as specified in openCypher 9 and as Neo4j
// behaves) in these places, all because of what Kuzu 0.11.3 does:
//
//   - id(n) is the note id (its vault path, or a stub's link text), a
//     string, not an integer; elementId(n) is the same.
//   - properties(n) and a node's properties leave out id and labels, which
//     the node object carries separately. keys(n) lists what the note
//     says, as the Typed Graph plugin does: its properties in the order
//     written (type first when written first), then path and title, then
//     tags and aliases when it has any; the other built-ins (folder, stub,
//     size, modified) exist but are not listed. keys(r) lists names sorted.
//   - A note without tags or aliases has none: n.tags IS NULL, as in the
//     plugin's engine, not an empty list.
//   - Variable-length relationships without an upper bound stop at 30 hops
//     (Kuzu's limit); [*] on a large graph can exhaust the buffer pool,
//     which fails the query with a runtime error. Give bounds.
//   - Relationship uniqueness is not checked between two variable-length
//     relationships in different comma-separated parts of one MATCH
//     (Kuzu's lambdas cannot compare two relationship lists).
//   - shortestPath() finds shortest paths first and then applies WHERE;
//     Neo4j searches for the shortest path that satisfies predicates on
//     the path. Shortest paths of length 0 are not supported.
//   - Values of different types do not compare: 1 = 'a' and [1, 'a'] are
//     errors, not false and a mixed list. Lists must hold one type (ints
//     and floats mix as floats). ORDER BY a list is an error.
//   - Integer overflow is an error (as in Neo4j); toInteger('3.7') and
//     toInteger('abc') are errors, not 3 and null; toInteger of a float
//     truncates only when the translator knows the argument is a float (a
//     DOUBLE column or literal), else Kuzu rounds.
//   - toString of a float or boolean of unknown type gives Kuzu's text
//     ("1.500000", "True"); of a known float or boolean, openCypher's.
//   - Regular expressions (=~, replace) are RE2: no backreferences or
//     lookaround. =~ matches the whole string, as in openCypher.
//   - Dates and datetimes have no time zone; datetimes are UTC. duration()
//     takes an ISO 8601 string (P1DT2H), not a map, and months count as 30
//     days when a duration is returned.
//   - rand(), bitwise operators, list + scalar, pattern comprehensions,
//     CALL { } subqueries, FOREACH, label expressions with ! or %, and map
//     parameters in MATCH property positions other than whole maps are not
//     supported (KindUnsupported or a runtime error from Kuzu).
//   - reduce() needs an initial value of the list's item type.
//   - An unknown function is a runtime error from Kuzu; Kuzu's own
//     functions may be called by name.
//   - RETURN * lists variables in name order (as Neo4j does).
//   - A WITH projection of a bare null gives a STRING-typed null.
package cypher
