package cypher

import (
	"strings"
	"testing"
)

// A label or relationship type the snapshot lacks matches nothing, as in
// openCypher, and the translation says so with the name probably meant.
func TestNoticesOnUnknownNames(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"MATCH (n:Persn) RETURN count(n)", []string{"no label Persn in this snapshot; did you mean Person?"}},
		{"MATCH (n:person) RETURN count(n)", []string{"no label person in this snapshot; did you mean Person?"}},
		{"MATCH (n:Dailyy) RETURN count(n)", []string{"no label Dailyy in this snapshot; CALL db.labels() lists them"}},
		{"MATCH ()-[r:link]->() RETURN count(r)", []string{"link is links_to in Cypher (the graph tool and POST /graph call plain links link); this snapshot has no relationship type link"}},
		{"MATCH ()-[r:EMBED]->() RETURN count(r)", []string{"EMBED is embeds in Cypher (the graph tool and POST /graph call embeds embed); this snapshot has no relationship type EMBED"}},
		{"MATCH ()-[r:contributess|funds]->() RETURN r", []string{"no relationship type contributess in this snapshot; did you mean contributes?"}},
		{"MATCH ()-[r:mentored_by]->() RETURN r", []string{"no relationship type mentored_by in this snapshot; did you mean `mentored by`?"}},
		{"MATCH ()-[r:zzz*1..2]->() RETURN r", []string{"no relationship type zzz in this snapshot; CALL db.relationshipTypes() lists them"}},
		// In expressions too, each name once.
		{"MATCH (a)-[r]->(b) WHERE a:Persn AND r:fund AND NOT b:Persn RETURN a", []string{
			"no label Persn in this snapshot; did you mean Person?",
			"no relationship type fund in this snapshot; did you mean funds?"}},
		{"MATCH (p:Person:Engineer)-[:contributes|`mentored by`]->(x:Project) RETURN p", nil},
		{"MATCH (n) RETURN n", nil},
		// A property no node or relationship has is null, as in
		// openCypher, with a notice (review5 F7).
		{"MATCH (n:Person) RETURN n.rol, n.role, n.titel", []string{
			"no node in this snapshot has a property rol; did you mean role?",
			"no node in this snapshot has a property titel; did you mean title?"}},
		{"MATCH (n) RETURN n.zzzz", []string{"no node in this snapshot has a property zzzz; CALL db.propertyKeys() lists them"}},
		{"MATCH ()-[r:funds]->() RETURN r.amout, r.amount", []string{"no relationship of the matched types has a property amout; did you mean amount?"}},
		{"MATCH (n) RETURN n._tags, n.vg_keys", []string{
			"no node in this snapshot has a property _tags; did you mean tags?",
			"no node in this snapshot has a property vg_keys; CALL db.propertyKeys() lists them"}},
	}
	for _, tc := range tests {
		tr, err := Compile(tc.src, fixtureGraph(), nil, Options{})
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if strings.Join(tr.Notices, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: notices\n  %q\nwant\n  %q", tc.src, tr.Notices, tc.want)
		}
	}
	// The rows do not change: the unknown type still matches nothing.
	tr, err := Compile("MATCH (a)-[:link]->(b) RETURN a", fixtureGraph(), nil, Options{})
	if err != nil || tr.Query != "MATCH (`a`)-[]->(`b`) WHERE false RETURN `a`" {
		t.Errorf("translation changed: %v %v", tr, err)
	}
}
