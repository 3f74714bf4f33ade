package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

func queryCommand() *cli.Command {
	return &cli.Command{
		Name:      "query",
		Usage:     "run a read-only openCypher query on a snapshot's graph",
		ArgsUsage: "'MATCH (p:Person)-[c:contributes]->(x) RETURN p, c, x'  (or - to read it from stdin)",
		Description: `Queries use the vault's own names: labels from frontmatter type, edge types
as written (backquote names with spaces: [r:` + "`mentored by`" + `]), property keys
as written. A note with several labels matches each of them. The query runs on
the newest snapshot that passes its checks unless --snapshot names another; it
may not write.`,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.StringFlag{Name: "snapshot", Aliases: []string{"s"}, Usage: "snapshot id or unique prefix (default: the newest that passes its checks)"},
			// No short alias: urfave/cli copies a flag's value to its
			// aliases through String and Set, which would add the joined
			// list as one more parameter.
			&cli.GenericFlag{Name: "param", Value: &paramList{}, Usage: `parameter name=value (repeatable); the value is read as JSON when it parses (42, true, ["a.md","b.md"]), else as a string`},
			&cli.DurationFlag{Name: "timeout", Value: graphdb.DefaultTimeout, Usage: "stop the query after this long", Action: positive("timeout")},
			&cli.IntFlag{Name: "max-rows", Value: graphdb.DefaultMaxRows, Usage: "return at most this many rows (the output says when more existed)", Action: atLeast("max-rows", 1)},
			&cli.IntFlag{Name: "buffer-mib", Value: graphdb.DefaultQueryBufferPool >> 20, Usage: "memory for the graph engine, in MiB", Action: mib("buffer-mib")},
			&cli.BoolFlag{Name: "explain", Usage: "print the query as sent to the engine on stderr"},
		}, formatFlags()...),
		Before: takesArgs(1, 1, "quote the query as one argument"),
		Action: runQuery,
	}
}

func runQuery(c *cli.Context) error {
	text := c.Args().First()
	if text == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return err
		}
		text = string(b)
	}
	format, err := outputFormat(c)
	if err != nil {
		return err
	}
	params, err := parseParams(*c.Generic("param").(*paramList))
	if err != nil {
		return usageError(err)
	}
	e, err := readRef(logger(c), c.String("data"), c.String("snapshot"))
	if err != nil {
		return err
	}
	db, err := graphdb.Open(e.Dir, graphdb.Options{BufferPoolSize: uint64(c.Int("buffer-mib")) << 20, Connections: 1})
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.Run(c.Context, graphdb.Request{Query: text, Params: params, Timeout: c.Duration("timeout"), MaxRows: c.Int("max-rows")})
	if err != nil {
		switch cypher.KindOf(err) {
		case cypher.KindSyntax, cypher.KindUnsupported, cypher.KindReadOnly, cypher.KindParameter:
			return usageError(err)
		}
		return err
	}
	if c.Bool("explain") {
		fmt.Fprintln(c.App.ErrWriter, res.Translated)
	}
	for _, n := range res.Notices {
		fmt.Fprintln(c.App.ErrWriter, "notice: "+n)
	}
	if format == "json" {
		return writeJSON(c.App.Writer, res)
	}
	if err := printTable(c.App.Writer, res); err != nil {
		return err
	}
	if res.Truncated {
		fmt.Fprintf(c.App.ErrWriter, "truncated: the query has more than %d rows; raise --max-rows or add LIMIT\n", res.MaxRows)
	}
	return nil
}

// paramList collects --param values as written: a string slice flag would
// split JSON lists at their commas.
type paramList []string

func (p *paramList) Set(v string) error { *p = append(*p, v); return nil }
func (p *paramList) String() string     { return strings.Join(*p, " ") }

// parseParams reads name=value pairs; a value that parses as JSON is that
// JSON value, so numbers, booleans, lists and maps can be passed.
func parseParams(pairs []string) (map[string]any, error) {
	params := map[string]any{}
	for _, p := range pairs {
		name, value, ok := strings.Cut(p, "=")
		name = strings.TrimPrefix(name, "$")
		if !ok || name == "" {
			return nil, fmt.Errorf("--param %q: use name=value", p)
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(value))
		dec.UseNumber()
		if err := dec.Decode(&v); err == nil && !dec.More() {
			params[name] = v
		} else {
			params[name] = value
		}
	}
	return params, nil
}

func printTable(w io.Writer, res *graphdb.Result) error {
	names := make([]string, len(res.Columns))
	for i, col := range res.Columns {
		names[i] = col.Name
	}
	table := [][]string{names}
	for _, row := range res.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(cell(v))
		}
		table = append(table, cells)
	}
	if err := writeTable(w, table); err != nil {
		return err
	}
	fmt.Fprintf(w, "(%s)\n", plural(len(res.Rows), "row"))
	return nil
}

// cell renders a value compactly: nodes as (id:Label), relationships as
// [:type start->end], paths as their chain, other values as JSON.
func cell(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case *graphdb.Node:
		return "(" + v.ID + labelSuffix(v.Labels) + ")"
	case *graphdb.Relationship:
		return "[:" + v.Type + " " + v.Source + "->" + v.Target + "]"
	case *graphdb.Path:
		var b strings.Builder
		for i, n := range v.Nodes {
			if i > 0 && i-1 < len(v.Relationships) {
				r := v.Relationships[i-1]
				if r.Source == n.ID {
					b.WriteString("<-[:" + r.Type + "]-")
				} else {
					b.WriteString("-[:" + r.Type + "]->")
				}
			}
			b.WriteString("(" + n.ID + ")")
		}
		return b.String()
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + cell(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, it := range v {
			parts[i] = cell(it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(buf.String())
}

func labelSuffix(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return ":" + strings.Join(labels, ":")
}

// graphFlags are the flags of the graph stage.
func graphFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "graph", Value: true, Usage: "build the graph database that vaultgraph query reads (--graph=false skips it)"},
		&cli.IntFlag{Name: "graph-buffer-mib", Value: graphdb.DefaultBuildBufferPool >> 20, Usage: "memory for the graph engine while it loads a snapshot, in MiB", Action: mib("graph-buffer-mib")},
	}
}

// graphStage returns the graph stage, or nil when --graph=false.
func graphStage(c *cli.Context) indexer.Stage {
	if !c.Bool("graph") {
		return nil
	}
	return indexer.GraphStage{BufferPoolSize: uint64(c.Int("graph-buffer-mib")) << 20}
}
