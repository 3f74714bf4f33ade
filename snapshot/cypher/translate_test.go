package cypher

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// fixtureGraph is a small schema in the shape graphdb builds.
func fixtureGraph() *format.Graph {
	return &format.Graph{
		Version: format.GraphVersion,
		Labels:  []format.GraphLabel{{Name: "Person", Count: 3}, {Name: "Engineer", Count: 1}, {Name: "Project", Count: 2}},
		NoteProperties: []format.GraphProperty{
			{Name: "role", Column: "p_role", Type: "STRING"},
			{Name: "joined", Column: "p_joined", Type: "DATE"},
			{Name: "languages", Column: "p_languages", Type: "STRING[]"},
			{Name: "score", Column: "p_score", Type: "DOUBLE"},
			{Name: "_id", Key: "id", Column: "p_id", Type: "INT64"},
		},
		EdgeTypes: []format.GraphEdgeType{
			{Name: "links_to", Table: "e_links_to"},
			{Name: "embeds", Table: "e_embeds"},
			{Name: "contributes", Table: "e_contributes", Properties: []string{"hours"}},
			{Name: "funds", Table: "e_funds", Properties: []string{"amount", "currency"}},
			{Name: "mentored by", Table: "e_mentored_by_93c49ec0"},
		},
		EdgeProperties: []format.GraphProperty{
			{Name: "amount", Column: "p_amount", Type: "INT64"},
			{Name: "currency", Column: "p_currency", Type: "STRING"},
			{Name: "hours", Column: "p_hours", Type: "INT64"},
		},
	}
}

func TestTranslate(t *testing.T) {
	tests := []struct {
		name, src, want string
		params          map[string]any
	}{
		{"labels become list predicates",
			"MATCH (p:Person:Engineer) RETURN p",
			"MATCH (`p`) WHERE list_contains(`p`.`labels`, 'Person') AND list_contains(`p`.`labels`, 'Engineer') RETURN `p`", nil},
		{"label disjunction",
			"MATCH (p:Person|Project) RETURN p",
			"MATCH (`p`) WHERE list_contains(`p`.`labels`, 'Person') OR list_contains(`p`.`labels`, 'Project') RETURN `p`", nil},
		{"edge type with a space and property columns",
			"MATCH (a)-[r:`mentored by`|contributes]->(b) WHERE r.hours > 1 RETURN r.nope",
			"MATCH (`a`)-[`r`:`e_mentored_by_93c49ec0`|`e_contributes`]->(`b`) WHERE (`r`.`p_hours`) > 1 RETURN NULL AS `r.nope`", nil},
		{"property only on other types is null",
			"MATCH (a)-[r:funds]->(b) RETURN r.hours",
			"MATCH (`a`)-[`r`:`e_funds`]->(`b`) RETURN NULL AS `r.hours`", nil},
		{"unknown type matches nothing",
			"MATCH (a)-[:nope]->(b) RETURN a",
			"MATCH (`a`)-[]->(`b`) WHERE false RETURN `a`", nil},
		{"shadowed property and built-in",
			"MATCH (n) RETURN n.id, n._id, id(n)",
			"MATCH (`n`) RETURN `n`.`id` AS `n.id`, `n`.`p_id` AS `n._id`, `n`.`id` AS `id(n)`", nil},
		{"inline map",
			"MATCH (n:Person {role: 'x', nope: 1}) RETURN n",
			"MATCH (`n`) WHERE false RETURN `n`", nil},
		{"inline map with known keys",
			"MATCH (n:Person {role: 'x'}) RETURN n",
			"MATCH (`n`) WHERE list_contains(`n`.`labels`, 'Person') AND ((`n`.`p_role`) = 'x') RETURN `n`", nil},
		{"variable length is a trail and its variable a list",
			"MATCH (a)-[r:contributes*1..3]->(b) RETURN size(r), r",
			"MATCH (`a`)-[`r`:`e_contributes`* TRAIL 1..3]->(`b`) RETURN size(rels(`r`)) AS `size(r)`, rels(`r`) AS `r`", nil},
		{"shortest path",
			"MATCH p = shortestPath((a)-[*..4]-(b)) RETURN length(p)",
			"MATCH `p` = (`a`)-[* SHORTEST ..4]-(`b`) RETURN size(rels(`p`)) AS `length(p)`", nil},
		{"uniqueness of fixed relationships",
			"MATCH (a)-[r]->(b)-[s]->(c) RETURN a",
			"MATCH (`a`)-[`r`]->(`b`)-[`s`]->(`c`) WHERE `r` <> `s` RETURN `a`", nil},
		{"uniqueness skipped for disjoint types",
			"MATCH (a)-[r:funds]->(b)-[s:contributes]->(c) RETURN a",
			"MATCH (`a`)-[`r`:`e_funds`]->(`b`)-[`s`:`e_contributes`]->(`c`) RETURN `a`", nil},
		{"parameters are literals",
			"MATCH (n) WHERE n.id IN $hits AND n.score > $min RETURN n LIMIT $k",
			"MATCH (`n`) WHERE ((`n`.`id`) IN ['a.md', 'it\\'s.md']) AND ((`n`.`p_score`) > 1.5) RETURN `n` LIMIT 3",
			map[string]any{"hits": []any{"a.md", "it's.md"}, "min": 1.5, "k": 3.0}},
		{"empty list parameter",
			"MATCH (n) WHERE n.id IN $hits RETURN n",
			"MATCH (`n`) WHERE (`n`.`id`) IN [] RETURN `n`", map[string]any{"hits": []string{}}},
		{"null parameter folds",
			"MATCH (n) WHERE n.id IN $x RETURN size($x), coalesce($x, 'd')",
			"MATCH (`n`) WHERE false RETURN NULL AS `size($x)`, 'd' AS `coalesce($x, 'd')`", map[string]any{"x": nil}},
		{"list index and slice",
			"MATCH (n) RETURN n.languages[0] AS a, n.languages[1..-1] AS b, tail(n.languages) AS c",
			"MATCH (`n`) RETURN CASE WHEN size(list_filter(coalesce(list_slice(`n`.`p_languages`, 1, 1), []), `_vg_e1` -> `_vg_e1` IS NOT NULL)) = 0 THEN NULL ELSE list_any_value(list_slice(`n`.`p_languages`, 1, 1)) END AS `a`, list_slice(`n`.`p_languages`, 2, -2) AS `b`, list_slice(`n`.`p_languages`, 2, -1) AS `c`", nil},
		{"list comprehension",
			"RETURN [x IN [1, 2] WHERE x > 1 | x * 10] AS l",
			"RETURN list_transform(list_filter([1, 2], `x` -> `x` > 1), `x` -> `x` * 10) AS `l`", nil},
		{"list comprehension over a nullable list",
			"MATCH (n) RETURN [x IN n.languages WHERE x <> 'Go'] AS l",
			"MATCH (`n`) RETURN CASE WHEN (`n`.`p_languages`) IS NULL THEN NULL ELSE list_filter(coalesce(`n`.`p_languages`, []), `x` -> `x` <> 'Go') END AS `l`", nil},
		{"case condition compared to true",
			"MATCH (n) RETURN CASE WHEN n.stub THEN 1 ELSE 0 END AS s",
			"MATCH (`n`) RETURN CASE WHEN (`n`.`stub`) = true THEN 1 ELSE 0 END AS `s`", nil},
		{"order by a projected expression after DISTINCT",
			"MATCH (n) RETURN DISTINCT n.role ORDER BY n.role",
			"MATCH (`n`) RETURN DISTINCT `n`.`p_role` AS `n.role` ORDER BY `n.role`", nil},
		{"pattern predicate with a label",
			"MATCH (n) WHERE (n)-[:contributes]->(:Project) RETURN n",
			"MATCH (`n`) WHERE EXISTS { MATCH (`n`)-[:`e_contributes`]->(`_vg_n1`) WHERE list_contains(`_vg_n1`.`labels`, 'Project') } RETURN `n`", nil},
		{"sum and collect over no rows",
			"MATCH (n) RETURN sum(n.score), collect(n.role)",
			"MATCH (`n`) RETURN coalesce(sum(`n`.`p_score`), 0) AS `sum(n.score)`, coalesce(collect(`n`.`p_role`), []) AS `collect(n.role)`", nil},
		{"date parts",
			"MATCH (n) RETURN n.joined.year",
			"MATCH (`n`) RETURN date_part('year', `n`.`p_joined`) AS `n.joined.year`", nil},
		{"virtual procedure",
			"CALL db.labels()",
			"UNWIND ['Engineer', 'Person', 'Project'] AS `label` RETURN `label`", nil},
		{"comparison chain",
			"RETURN 1 < 2 < 3",
			"RETURN (1 < 2) AND (2 < 3) AS `1 < 2 < 3`", nil},
		{"time parameter",
			"RETURN $t",
			"RETURN timestamp('2024-01-02 03:04:05') AS `$t`", map[string]any{"t": time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Compile(tc.src, fixtureGraph(), tc.params, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Query != tc.want {
				t.Errorf("translation of %s\n got %s\nwant %s", tc.src, tr.Query, tc.want)
			}
			if _, err := Parse(tr.Query); err != nil {
				t.Errorf("translation does not parse: %v", err)
			}
		})
	}
}

func TestTranslateColumnsAndCap(t *testing.T) {
	tr, err := Compile("MATCH (n) RETURN n.title, n AS node, count(*) LIMIT 5000", fixtureGraph(), nil, Options{MaxRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tr.Columns, "|"); got != "n.title|node|count(*)" {
		t.Errorf("columns = %s", got)
	}
	if !strings.HasSuffix(tr.Query, "LIMIT 101") {
		t.Errorf("row cap not applied: %s", tr.Query)
	}
	tr, err = Compile("MATCH (n) RETURN n LIMIT 7", fixtureGraph(), nil, Options{MaxRows: 100})
	if err != nil || !strings.HasSuffix(tr.Query, "LIMIT 7") {
		t.Errorf("smaller LIMIT changed: %v %v", tr, err)
	}
	tr, err = Compile("MATCH (n) RETURN n.a AS x UNION MATCH (m) RETURN m.b AS x", fixtureGraph(), nil, Options{MaxRows: 100})
	if err != nil || strings.Contains(tr.Query, "LIMIT") {
		t.Errorf("UNION was capped (deduplication could hide rows): %v %v", tr, err)
	}
}

func TestTranslateErrors(t *testing.T) {
	tests := []struct {
		src  string
		kind Kind
		want string
	}{
		{"MATCH (n) RETURN m", KindSyntax, "variable `m` is not defined"},
		{"MATCH (n) WITH n.title RETURN 1", KindSyntax, "must be aliased"},
		{"RETURN $nope", KindParameter, "$nope is not set"},
		{"MATCH (n) RETURN n.a, n.a", KindSyntax, "used twice"},
		{"MATCH (a) RETURN a.x AS x UNION MATCH (b) RETURN b.y AS y", KindSyntax, "same columns"},
		{"RETURN range(1, 100000000)", KindUnsupported, "at most"},
		{"RETURN repeat('x', 10000000)", KindUnsupported, "at most"},
		{"RETURN rand()", KindUnsupported, "rand()"},
		{"RETURN apoc.text.join(['a'], ',')", KindSyntax, "unknown function"},
		{"MATCH p = shortestPath((a)-->(b)) RETURN p", KindUnsupported, "variable-length"},
		{"MATCH (n) RETURN nodes(n)", KindSyntax, "takes a path"},
	}
	for _, tc := range tests {
		_, err := Compile(tc.src, fixtureGraph(), nil, Options{})
		if KindOf(err) != tc.kind || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %s containing %q", tc.src, err, tc.kind, tc.want)
		}
	}
}

// TestParametersCannotInject checks that hostile parameter values stay one
// literal in the translated query.
func TestParametersCannotInject(t *testing.T) {
	for _, v := range []string{"x') RETURN 1 //", `\' OR 1=1`, "a`b", "\\", "'; DROP TABLE Note; //", "multi\nline"} {
		tr, err := Compile("RETURN $v AS v", fixtureGraph(), map[string]any{"v": v}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(tr.Query)
		if err != nil {
			t.Fatalf("translation of %q does not parse: %v\n%s", v, err, tr.Query)
		}
		ret := q.Parts[0].Clauses[0].(*Return)
		lit, ok := ret.Proj.Items[0].Expr.(*Literal)
		if len(q.Parts) != 1 || len(ret.Proj.Items) != 1 || !ok || lit.Str != v {
			t.Errorf("value %q became %s", v, tr.Query)
		}
	}
	if _, err := Compile("RETURN $v", fixtureGraph(), map[string]any{"v": "a\x00b"}, Options{}); KindOf(err) != KindUnsupported {
		t.Errorf("NUL in a parameter: err = %v", err)
	}
}

// TestProcedures checks the CALL allow list: the procedures the package
// documentation lists run, Kuzu's catalog procedures (which would answer in
// storage names) are refused naming what to use instead, and everything
// else is refused with the allow list, which is the documented one.
func TestProcedures(t *testing.T) {
	allowed := map[string]string{
		"CALL db.labels() YIELD label AS l WHERE l STARTS WITH 'P' RETURN l": "UNWIND ['Engineer', 'Person', 'Project'] AS `l` WITH `l` WHERE `l` STARTS WITH 'P' RETURN `l`",
		"CALL show_functions() RETURN name":                                  "CALL `show_functions`() RETURN `name`",
		// Kuzu wants every column in YIELD and no WHERE after it.
		"CALL show_functions() YIELD name AS fn WHERE fn CONTAINS 'LIST' RETURN fn": "CALL `show_functions`() YIELD `name` AS `fn`, `type` AS `_vg_yield1`, `signature` AS `_vg_yield2` WITH `fn` WHERE `fn` CONTAINS 'LIST' RETURN `fn`",
		"CALL show_functions() YIELD * RETURN signature":                            "CALL `show_functions`() RETURN `signature`",
		"CALL show_functions()": "CALL `show_functions`() RETURN `name`, `signature`, `type`",
	}
	for src, want := range allowed {
		tr, err := Compile(src, fixtureGraph(), nil, Options{})
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if tr.Query != want {
			t.Errorf("translation of %s\n got %s\nwant %s", src, tr.Query, want)
		}
	}
	for _, src := range []string{"CALL show_tables() RETURN *", "CALL table_info('Note') RETURN name", "CALL SHOW_CONNECTION('e_knows') RETURN *"} {
		_, err := Compile(src, fixtureGraph(), nil, Options{})
		if KindOf(err) != KindUnsupported || !strings.Contains(err.Error(), "use CALL db.") {
			t.Errorf("%q: err = %v, want unsupported naming a db.* procedure", src, err)
		}
	}
	_, err := Compile("CALL show_warnings() RETURN *", fixtureGraph(), nil, Options{})
	if KindOf(err) != KindReadOnly || !strings.Contains(err.Error(), "may call only db.labels(), db.relationshipTypes(), db.propertyKeys() and show_functions()") {
		t.Errorf("unlisted procedure: %v", err)
	}
	// The package documentation lists exactly the allowed procedures.
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procedures {
		if !strings.Contains(string(doc), "//\t"+p) {
			t.Errorf("doc.go does not list %s under # Procedures", p)
		}
	}
	if _, err := Compile("CALL show_functions() YIELD nme RETURN nme", fixtureGraph(), nil, Options{}); KindOf(err) != KindSyntax || !strings.Contains(err.Error(), "yields name, type, signature") {
		t.Errorf("unknown column: %v", err)
	}
}

func TestLabelFunctionIsRefused(t *testing.T) {
	for _, src := range []string{"MATCH ()-[r]->() RETURN label(r)", "MATCH (n) RETURN LABEL(n)"} {
		_, err := Compile(src, fixtureGraph(), nil, Options{})
		if KindOf(err) != KindUnsupported || !strings.Contains(err.Error(), "type(r)") {
			t.Errorf("%q: err = %v", src, err)
		}
	}
}
