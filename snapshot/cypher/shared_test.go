package cypher

import (
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// sharedGraph is fixtureGraph with the long tail in the shared table:
// contributes keeps a table of its own, funds and "mentored by" do not.
func sharedGraph() *format.Graph {
	g := fixtureGraph()
	for i, et := range g.EdgeTypes {
		if et.Name == "funds" || et.Name == "mentored by" {
			g.EdgeTypes[i].Table = format.GraphEdgeTable
		}
	}
	return g
}

// TestTranslateSharedTable checks how patterns that name a type of the
// shared table become that table filtered on the type column.
func TestTranslateSharedTable(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"one shared type",
			"MATCH (a)-[r:funds]->(b) RETURN r.amount, type(r)",
			"MATCH (`a`)-[`r`:`Edge`]->(`b`) WHERE (`r`.`vg_type`) = 'funds' RETURN `r`.`p_amount` AS `r.amount`, `r`.`vg_type` AS `type(r)`"},
		{"an unnamed relationship gets a name",
			"MATCH (a)-[:`mentored by`]->(b) RETURN b",
			"MATCH (`a`)-[`_vg_r1`:`Edge`]->(`b`) WHERE (`_vg_r1`.`vg_type`) = 'mentored by' RETURN `b`"},
		{"own and shared types together",
			"MATCH (a)-[r:contributes|funds|nope]->(b) RETURN a",
			"MATCH (`a`)-[`r`:`e_contributes`|`Edge`]->(`b`) WHERE (`r`.`vg_type`) IN ['contributes', 'funds'] RETURN `a`"},
		{"own types need no filter",
			"MATCH (a)-[r:contributes]->(b) RETURN a",
			"MATCH (`a`)-[`r`:`e_contributes`]->(`b`) RETURN `a`"},
		{"any type reads every table unfiltered",
			"MATCH (a)-[r]->(b) RETURN type(r)",
			"MATCH (`a`)-[`r`]->(`b`) RETURN `r`.`vg_type` AS `type(r)`"},
		{"variable length filters each step",
			"MATCH (a)-[r:funds*1..2]->(b) RETURN b",
			"MATCH (`a`)-[`r`:`Edge`* TRAIL 1..2 (`_vg_e1`, `_vg_m2` | WHERE (`_vg_e1`.`vg_type`) = 'funds')]->(`b`) RETURN `b`"},
		{"variable length with a property map",
			"MATCH (a)-[r:funds*1..2 {currency: 'EUR'}]->(b) RETURN b",
			"MATCH (`a`)-[`r`:`Edge`* TRAIL 1..2 (`_vg_e1`, `_vg_m2` | WHERE ((`_vg_e1`.`vg_type`) = 'funds') AND ((`_vg_e1`.`p_currency`) = 'EUR'))]->(`b`) RETURN `b`"},
		{"shortest path",
			"MATCH p = shortestPath((a)-[:funds*..3]-(b)) RETURN length(p)",
			"MATCH `p` = (`a`)-[:`Edge`* SHORTEST ..3 (`_vg_e1`, `_vg_m2` | WHERE (`_vg_e1`.`vg_type`) = 'funds')]-(`b`) RETURN size(rels(`p`)) AS `length(p)`"},
		{"pattern predicate",
			"MATCH (n) WHERE (n)-[:funds]->() RETURN n",
			"MATCH (`n`) WHERE EXISTS { MATCH (`n`)-[`_vg_r1`:`Edge`]->() WHERE (`_vg_r1`.`vg_type`) = 'funds' } RETURN `n`"},
		{"optional match keeps the filter in its own WHERE",
			"MATCH (a) OPTIONAL MATCH (a)-[r:funds]->(b) RETURN b",
			"MATCH (`a`) OPTIONAL MATCH (`a`)-[`r`:`Edge`]->(`b`) WHERE (`r`.`vg_type`) = 'funds' RETURN `b`"},
		{"relationship types list each type once",
			"CALL db.relationshipTypes()",
			"UNWIND ['contributes', 'embeds', 'funds', 'links_to', 'mentored by'] AS `relationshipType` RETURN `relationshipType`"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Compile(tc.src, sharedGraph(), nil, Options{})
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
