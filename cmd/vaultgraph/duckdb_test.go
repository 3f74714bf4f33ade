package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// sqlResult is what ci/duckdb-sql.mjs reports for one statement.
type sqlResult struct {
	Columns []string         `json:"columns"`
	Types   []string         `json:"types"`
	Rows    []map[string]any `json:"rows"`
	Error   string           `json:"error"`
}

// duckdb runs statements with DuckDB in dir, as the duckdb shell started
// there would, and fails the test on a statement DuckDB refuses.
func duckdb(t *testing.T, dir string, statements ...string) []sqlResult {
	t.Helper()
	if err := installNode(); err != nil {
		t.Fatalf("npm ci in %s: %v", ciDir, err)
	}
	in, _ := json.Marshal(statements)
	script, err := filepath.Abs(filepath.Join(ciDir, "duckdb-sql.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script)
	cmd.Dir, cmd.Stdin, cmd.Stderr = dir, bytes.NewReader(in), os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node duckdb-sql.mjs: %v", err)
	}
	var res []sqlResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("duckdb-sql.mjs output %q: %v", out, err)
	}
	for i, r := range res {
		if r.Error != "" {
			t.Fatalf("DuckDB refused\n%s\n%s", statements[i], r.Error)
		}
	}
	return res
}

// demoSnapshot indexes the demo vault and returns its snapshot's directory.
func demoSnapshot(t *testing.T) string {
	t.Helper()
	data := t.TempDir()
	vgOK(t, "index", "--vault", repoPath("testdata/demo-vault"), "--data", data)
	e, err := snapshot.Resolve(data, "")
	if err != nil {
		t.Fatal(err)
	}
	return e.Dir
}

// num reads a number from DuckDB's JSON rendering, which gives BIGINTs
// (counts) as strings; anything else is -1.
func num(v any) float64 {
	switch v := v.(type) {
	case float64:
		return v
	case string:
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return -1
}

// readmeSQL returns the ```sql blocks of the README, as written.
func readmeSQL(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(repoPath("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllSubmatch(b, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestREADMEDuckDBQueries runs the README's DuckDB queries as written in a
// snapshot of the demo vault and checks what they answer.
func TestREADMEDuckDBQueries(t *testing.T) {
	queries := readmeSQL(t)
	if len(queries) != 3 {
		t.Fatalf("README has %d sql blocks, want 3 (notes by property, edges by type and property, chunks of a note)", len(queries))
	}
	for _, q := range queries {
		if strings.Contains(strings.ToLower(q), "json") {
			t.Errorf("README query uses JSON functions:\n%s", q)
		}
	}
	res := duckdb(t, demoSnapshot(t), queries...)

	byProperty := res[0].Rows
	if len(byProperty) != 1 || byProperty[0]["id"] != "Companies/Globex.md" || byProperty[0]["employees"] != 3100.0 {
		t.Errorf("notes by property: %v", byProperty)
	}
	funds := res[1].Rows
	if len(funds) != 2 || funds[0]["source"] != "Companies/Acme.md" || funds[0]["amount"] != 250000.0 || funds[1]["amount"] != 90000.0 {
		t.Errorf("edges by type and property: %v", funds)
	}
	chunks := res[2].Rows
	if len(chunks) < 3 {
		t.Fatalf("chunks of a note: %v", chunks)
	}
	for i, c := range chunks {
		opening, _ := c["opening"].(string)
		if c["ordinal"] != float64(i) || !strings.HasPrefix(c["heading"].(string), "Search") || c["start_byte"].(float64) >= c["end_byte"].(float64) ||
			strings.TrimSpace(opening) == "" {
			t.Errorf("chunk %d: %v", i, c)
		}
	}
}

// TestTablesAreTyped: DuckDB sees property values as typed columns and
// absent values as NULL, with no JSON to decode.
func TestTablesAreTyped(t *testing.T) {
	dir := demoSnapshot(t)
	res := duckdb(t, dir,
		`SELECT typeof(p.number) AS number, typeof(p.bool) AS bool, typeof(p.date) AS date,
			typeof(p.datetime) AS datetime, typeof(p.list) AS list, typeof(p.text) AS text
		 FROM 'nodes.parquet', unnest(properties) AS t(p) LIMIT 1`,
		`SELECT n.id, p.text FROM 'nodes.parquet' n, unnest(n.properties) AS t(p) WHERE p.key = 'hq' AND p.text = 'Rotterdam'`,
		`SELECT count(*) AS n FROM 'nodes.parquet' n, unnest(n.properties) AS t(p) WHERE p.key = 'joined' AND p.date >= DATE '2000-01-01'`,
		`SELECT n.id FROM 'nodes.parquet' n, unnest(n.properties) AS t(p) WHERE p.key = 'languages' AND list_contains(p.list, 'Go')`,
		`SELECT count(*) AS n FROM 'nodes.parquet' n, unnest(n.properties) AS t(p) WHERE p.key = 'public' AND p.bool`,
		`SELECT count(*) AS stubs, count(path) AS paths, count(modified) AS modified, count(signature) AS signatures FROM 'nodes.parquet' WHERE stub`,
		`SELECT year(min(modified)) >= 2000 AS recent FROM 'nodes.parquet'`,
		`SELECT count(*) AS n FROM 'nodes.parquet' n, unnest(n.properties) AS t(p)
		 WHERE (p.kind IN ('int', 'float')) != (p.number IS NOT NULL) OR (p.kind = 'bool') != (p.bool IS NOT NULL)
		    OR (p.kind = 'date') != (p.date IS NOT NULL) OR (p.kind = 'datetime') != (p.datetime IS NOT NULL)
		    OR (p.kind = 'list') != (p.list IS NOT NULL) OR (p.kind = 'null') != (p.text IS NULL)`,
		`SELECT count(*) FILTER (WHERE heading = '') AS empty, count(*) FILTER (WHERE heading IS NULL) AS absent FROM 'links.parquet'`,
	)
	want := map[string]string{"number": "DOUBLE", "bool": "BOOLEAN", "date": "DATE", "datetime": "TIMESTAMP WITH TIME ZONE", "list": "VARCHAR[]", "text": "VARCHAR"}
	for col, typ := range want {
		if got := res[0].Rows[0][col]; got != typ {
			t.Errorf("properties.%s is %v, want %s", col, got, typ)
		}
	}
	if rows := res[1].Rows; len(rows) != 1 || rows[0]["id"] != "Companies/Acme.md" {
		t.Errorf("hq = 'Rotterdam' (no quotes): %v", rows)
	}
	if n := num(res[2].Rows[0]["n"]); n == 0 {
		t.Error("no joined date compares as a DATE")
	}
	if rows := res[3].Rows; len(rows) == 0 {
		t.Error("no languages list contains Go")
	}
	if n := num(res[4].Rows[0]["n"]); n == 0 {
		t.Error("no public flag reads as a BOOLEAN")
	}
	if s := res[5].Rows[0]; num(s["stubs"]) == 0 || num(s["paths"]) != 0 || num(s["modified"]) != 0 || num(s["signatures"]) != 0 {
		t.Errorf("stubs have placeholders instead of NULL: %v", s)
	}
	if r := res[6].Rows[0]["recent"]; r != true {
		t.Errorf("min(modified) is a placeholder year: %v", res[6].Rows)
	}
	if n := num(res[7].Rows[0]["n"]); n != 0 {
		t.Errorf("%v properties fill a typed column of another kind, or miss their own", n)
	}
	if r := res[8].Rows[0]; num(r["empty"]) != 0 || num(r["absent"]) == 0 {
		t.Errorf("links without a heading: %v", r)
	}
}

// TestColumnNamesAreNotSQLKeywords asks DuckDB whether any column or field
// name of a table is a keyword that must be quoted (END, OFFSET, ...).
func TestColumnNamesAreNotSQLKeywords(t *testing.T) {
	dir := demoSnapshot(t)
	files := []string{format.NotesFile, format.LinksFile, format.EdgesFile, format.ChunksFile}
	var statements []string
	for _, f := range files {
		statements = append(statements, fmt.Sprintf(`SELECT DISTINCT s.name FROM parquet_schema('%s') s
			JOIN duckdb_keywords() k ON lower(s.name) = k.keyword_name
			WHERE k.keyword_category <> 'unreserved' ORDER BY 1`, f))
	}
	// The check is real: DuckDB lists END as a reserved keyword.
	statements = append(statements, `SELECT keyword_category FROM duckdb_keywords() WHERE keyword_name = 'end'`)
	res := duckdb(t, dir, statements...)
	for i, f := range files {
		var names []string
		for _, r := range res[i].Rows {
			names = append(names, fmt.Sprint(r["name"]))
		}
		if len(names) > 0 {
			t.Errorf("%s has columns named with SQL keywords: %v", f, names)
		}
	}
	if cat := res[len(files)].Rows; len(cat) != 1 || !slices.Contains([]any{"reserved"}, cat[0]["keyword_category"]) {
		t.Errorf("duckdb_keywords() says of END: %v", cat)
	}
}

// TestSegmentedTablesReadAsOne: a vault of more notes than a segment holds
// gets tables of several files, and DuckDB reads each as one table by the
// glob the README gives (nodes*.parquet), with every row the manifest
// counts and the README's join of chunks to their notes working across
// segments.
func TestSegmentedTablesReadAsOne(t *testing.T) {
	vault, data := t.TempDir(), t.TempDir()
	if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 1200, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	vgOK(t, "index", "--vault", vault, "--data", data)
	e, err := snapshot.Resolve(data, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(e.Dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Manifest.Tables[format.NotesTable]); n < 2 {
		t.Fatalf("1,200 notes in %d segments", n)
	}
	res := duckdb(t, e.Dir,
		`SELECT count(*) AS n FROM 'nodes*.parquet'`,
		`SELECT count(*) AS n FROM 'links*.parquet'`,
		`SELECT count(*) AS n FROM 'edges*.parquet'`,
		`SELECT count(*) AS n FROM 'chunks*.parquet'`,
		`SELECT count(*) AS n FROM 'chunks*.parquet' c JOIN 'nodes*.parquet' n ON n.id = c.note
		 WHERE c.end_byte <= octet_length(encode(n.content))`)
	c := s.Manifest.Counts
	for i, want := range []int{c.Notes + c.Stubs, c.Links, c.Edges, c.Chunks, c.Chunks} {
		if got := num(res[i].Rows[0]["n"]); got != float64(want) {
			t.Errorf("statement %d: %v rows, the manifest counts %d", i, got, want)
		}
	}
}
