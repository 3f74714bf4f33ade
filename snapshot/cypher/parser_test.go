package cypher

import (
	"errors"
	"strings"
	"testing"
)

// validQueries parse, print and parse again to the same text. They double
// as fuzz seeds.
var validQueries = []string{
	"MATCH (n) RETURN n",
	"MATCH (p:Person)-[c:contributes]->(proj:Project) WHERE c.hours >= 100 RETURN p, c, proj",
	"MATCH (p:Person:Engineer) RETURN p.title ORDER BY p.title DESC SKIP 1 LIMIT 2",
	"MATCH (a)-[r:`mentored by`]->(b) RETURN type(r)",
	"MATCH (a:A|B)<-[:x|:y]-(b) RETURN a",
	"MATCH (a)--(b)<--(c)-->(d) RETURN count(*)",
	"MATCH p = (a)-[*1..3]->(b) RETURN p, length(p), nodes(p), relationships(p)",
	"MATCH (a)-[r:knows* TRAIL 2..]->(b) RETURN r",
	"MATCH (a)-[r* SHORTEST ..5]-(b) RETURN r",
	"MATCH (a)-[r* ALL SHORTEST 1..5 (e, n | WHERE e.since > 2000)]-(b) RETURN r",
	"MATCH p = shortestPath((a)-[*..6]-(b)) RETURN p",
	"MATCH p = allShortestPaths((a:Person {title: 'Alice'})-[*]-(b)) RETURN p",
	"MATCH (n {title: $t, `Start date`: date('2024-01-01')}) RETURN n",
	"MATCH (n) WHERE n.id IN $hits RETURN n.title AS `the title`",
	"OPTIONAL MATCH (n)-[r]->(m) WITH n, count(r) AS c WHERE c > 1 RETURN n, c",
	"UNWIND [1, 2.5, 'x', true, null, -3, 1e3, .5] AS x RETURN x",
	"UNWIND range(1, 10) AS x WITH x WHERE x % 2 = 0 RETURN collect(DISTINCT x)",
	"MATCH (a) RETURN a.name UNION MATCH (b) RETURN b.name",
	"MATCH (a) RETURN a.name UNION ALL MATCH (b) RETURN b.name",
	"RETURN CASE WHEN 1 < 2 THEN 'a' WHEN 2 < 3 THEN 'b' ELSE 'c' END, CASE 1 WHEN 1 THEN 'one' END",
	"RETURN [x IN [1, 2, 3] WHERE x > 1 | x * 2], [x IN [1, 2]], [x IN [1] | x]",
	"RETURN all(x IN [1] WHERE x > 0), any(x IN [1] WHERE x > 0), none(x IN [] WHERE true), single(x IN [1] WHERE x = 1)",
	"RETURN reduce(acc = 0, x IN [1, 2] | acc + x)",
	"MATCH (n) WHERE (n)-[:knows]->(:Person) AND NOT (n)<--() RETURN n",
	"MATCH (n) WHERE EXISTS { MATCH (n)-[:knows]->(m) WHERE m.age > 3 } RETURN n, COUNT { MATCH (n)--() } AS degree",
	"MATCH (n) WHERE exists(n.role) RETURN n {.title, .role, years: 3, n, .*}",
	"RETURN 1 < 2 < 3, 1 <> 2, 1 != 2, NOT true, true XOR false, 2 ^ 3 ^ 2, -2 ^ 2, - -5",
	"RETURN 'a' STARTS WITH 'a', 'a' ENDS WITH 'a', 'a' CONTAINS 'a', 'a' =~ 'a.*', null IS NULL, 1 IS NOT NULL",
	"RETURN [1, 2, 3][0], [1, 2, 3][-1], [1, 2, 3][1..], [1, 2, 3][..2], [1, 2, 3][0..1], {a: 1}.a, {a: 1}['a']",
	"RETURN list_transform([1, 2], x -> x + 1), list_reduce([1], (a, b) -> a + b), CAST(1 AS STRING), CAST('1' AS INT64[])",
	"RETURN 'it\\'s', \"dq \\\"x\\\"\", 'tab\\there', '\\u00e9', 'line\nbreak'",
	"CALL db.labels() YIELD label AS l WHERE l STARTS WITH 'P' RETURN l",
	"CALL db.labels()",
	"CALL show_tables() RETURN *",
	"MATCH (n) RETURN *, n.title",
	"WITH 1 AS x, 2 AS y RETURN x + y AS sum; ",
	"// comment\nMATCH /* inline */ (n) RETURN n // trailing",
	"MATCH (`weird``name`:`Über label`) RETURN `weird``name`.`prop with space`",
	"MATCH (n) RETURN n.count, n.order, n.match, count(n), -9223372036854775808, 0x1F, 0o17",
	"MATCH (a)-[r]->(b) WHERE a:Person:Engineer AND r:knows RETURN labels(a), id(r)",
	"MATCH (n) RETURN n ORDER BY n.a ASC, n.b DESCENDING",
}

func TestParsePrintRoundTrip(t *testing.T) {
	for _, src := range validQueries {
		q, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		printed := Print(q)
		q2, err := Parse(printed)
		if err != nil {
			t.Errorf("reparse of %q\n  printed %q\n  error %v", src, printed, err)
			continue
		}
		if again := Print(q2); again != printed {
			t.Errorf("print not stable for %q:\n  %s\n  %s", src, printed, again)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		want      string
	}{
		{"MATCH (n RETURN n", 1, 10, "expected ')'"},
		{"MATCH (n)\nWHERE n.x = \nRETURN n", 3, 1, "expected an expression"},
		{"MATCH (n) RETURN", 1, 17, "end of input"},
		{"MATCH (n)", 1, 10, "must end with RETURN"},
		{"RETURN 'unterminated", 1, 8, "never closed"},
		{"RETURN `unterminated", 1, 8, "never closed"},
		{"RETURN 1 /* open", 1, 10, "never closed"},
		{"RETURN 'bad \\q escape'", 1, 13, "unknown escape"},
		{"RETURN 12abc", 1, 8, "invalid number"},
		{"RETURN 99999999999999999999", 1, 8, "does not fit"},
		{"MATCH (n) RETURN n RETURN n", 1, 20, "RETURN must be the last clause"},
		{"MATCH (n)-[*3..1]->(m) RETURN n", 1, 12, "lower bound"},
		{"  \n  FOO (n) RETURN n", 2, 3, "expected a clause"},
		{"RETURN $", 1, 8, "parameter name"},
		{"RETURN #", 1, 8, "unexpected character"},
		{"MATCH (n) WHERE RETURN n", 1, 17, "expected an expression"},
		{"RETURN [1, 2", 1, 13, "expected ']'"},
		{"RETURN CASE END", 1, 13, "expected WHEN"},
		{"MATCH (n:) RETURN n", 1, 10, "expected a label"},
		{"RETURN 1; RETURN 2", 1, 11, "one statement"},
		{"RETURN été @", 1, 12, "unexpected character"},
		{"RETURN 'ok' AS", 1, 15, "column name"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want a syntax error", tc.src, err)
			continue
		}
		if e.Line != tc.line || e.Column != tc.col || !strings.Contains(e.Message, tc.want) {
			t.Errorf("Parse(%q) = %d:%d %q (%s), want %d:%d containing %q", tc.src, e.Line, e.Column, e.Message, e.Kind, tc.line, tc.col, tc.want)
		}
		if e.Kind != KindSyntax && e.Kind != KindUnsupported {
			t.Errorf("Parse(%q) kind %s", tc.src, e.Kind)
		}
	}
}

func TestWritesAreRefused(t *testing.T) {
	for _, src := range []string{
		"CREATE (n:Person {name: 'x'})",
		"MATCH (n) CREATE (n)-[:knows]->(n)",
		"MERGE (n:Person {name: 'x'}) RETURN n",
		"MATCH (n) SET n.x = 1",
		"MATCH (n) SET n.x = 1 RETURN n",
		"MATCH (n) DELETE n",
		"MATCH (n) DETACH DELETE n",
		"MATCH (n) REMOVE n.x",
		"MATCH (n) FOREACH (x IN [1] | SET n.x = x)",
		"LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
		"LOAD FROM '/etc/passwd' RETURN *",
		"COPY Note FROM '/tmp/x.parquet'",
		"COPY (MATCH (n) RETURN n) TO '/tmp/out.csv'",
		"INSTALL json",
		"LOAD EXTENSION json",
		"ATTACH 'x.kuzu' AS other (dbtype kuzu)",
		"EXPORT DATABASE '/tmp/x'",
		"IMPORT DATABASE '/tmp/x'",
		"CREATE NODE TABLE X(id STRING, PRIMARY KEY(id))",
		"DROP TABLE Note",
		"ALTER TABLE Note ADD x INT64",
		"CHECKPOINT",
		"BEGIN TRANSACTION",
		"CALL timeout = 0",
		"CALL create_fts_index('Note', 'idx', ['title'])",
		"CALL drop_fts_index('Note', 'idx')",
		"CALL project_graph('g', ['Note'], ['e_knows'])",
		"CALL clear_warnings()",
		"CALL apoc.periodic.iterate('x', 'y', {})",
		"MATCH (n) WITH n CALL db.createLabel('x') RETURN n",
	} {
		_, err := Compile(src, fixtureGraph(), nil, Options{})
		if KindOf(err) != KindReadOnly {
			t.Errorf("%q: err = %v, want kind readonly", src, err)
		}
	}
}

func TestUnsupported(t *testing.T) {
	for _, src := range []string{
		"MATCH (n) RETURN [(n)-->(m) | m.title]",
		"MATCH (n) RETURN [p = (n)-->(m) | p]",
		"CALL { MATCH (n) RETURN n } RETURN n",
		"MATCH (n) RETURN n.*",
		"EXPLAIN MATCH (n) RETURN n",
		"MATCH (n) WHERE EXISTS { MATCH (n)-->(m) RETURN m } RETURN n",
		"MATCH (a)-[* WSHORTEST(w)]->(b) RETURN a",
		"RETURN shortestPath((a)-->(b))",
	} {
		_, err := Compile(src, fixtureGraph(), nil, Options{})
		if KindOf(err) != KindUnsupported {
			t.Errorf("%q: err = %v, want kind unsupported", src, err)
		}
	}
}

// TestHostileInputs checks that deep nesting and long inputs end in an
// error, not a stack overflow or a long run.
func TestHostileInputs(t *testing.T) {
	for _, src := range []string{
		"RETURN " + strings.Repeat("(", 100000),
		"RETURN " + strings.Repeat("[", 100000),
		"RETURN " + strings.Repeat("{a:", 100000),
		"RETURN " + strings.Repeat("NOT ", 100000) + "true",
		"RETURN " + strings.Repeat("-", 100000) + "1",
		"RETURN " + strings.Repeat("({a: ", 50000),
		"MATCH " + strings.Repeat("(", 100000),
		"RETURN " + strings.Repeat("a.", 100000) + "b",
		"RETURN " + strings.Repeat("1 + ", 100000) + "1",
		strings.Repeat("x", maxQueryBytes+1),
		"RETURN '\xff'",
	} {
		_, err := Parse(src)
		if err == nil {
			// Long flat expressions may parse; they must not crash.
			continue
		}
		if KindOf(err) == "" {
			t.Errorf("error is not an *Error: %v", err)
		}
	}
}
