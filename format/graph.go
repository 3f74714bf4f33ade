package format

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
)

// The graph database of a snapshot. It is additive within format version 1:
// a snapshot built without the graph stage has no GraphFile and no Graph
// section in its manifest, and readers that do not know it ignore both.
//
// # Layout (GraphVersion 3)
//
// GraphFile is a Kuzu database (a single file) built from the snapshot's
// own notes and edges tables, so openCypher queries see exactly the rows the
// snapshot holds. It has:
//
//   - one node table, GraphNoteTable, with one row per note and stub: the
//     built-in columns of NoteBuiltins (modified is null for stubs), the
//     internal column vg_keys (the vault-level names of the properties the
//     note has a value for, which keys(n) returns), and one typed column per
//     frontmatter or inline property key found in any note, for at most
//     DefaultPropertyColumns keys (see Property columns below);
//   - a relationship table of its own for each of the most frequent edge
//     types, at most DefaultTypedEdgeTables of them (the builder may be
//     told another bound): links_to and embeds first, whose tables always
//     exist, even empty, so that every query has at least one relationship
//     table; then by number of edges, most first, and by name, for the
//     types with at least TypedEdgeTableNotes edges per note and
//     MinTypedEdgeTable edges;
//   - one shared relationship table, GraphEdgeTable, for the edges of
//     every other type (the long tail), which exists only when there is
//     such a type. Its vg_type column tells the types apart; the query
//     translator filters on it wherever a pattern names one of them.
//
// Relationship tables are FROM and TO GraphNoteTable, with the built-ins
// of EdgeBuiltins, the internal columns vg_type (the edge type as
// written), vg_src and vg_dst (the note ids of the ends) and vg_keys, and
// one typed column per edge property key found on any edge the table
// holds, for at most DefaultPropertyColumns edge property keys.
//
// # Edge ids
//
// A relationship's id column is null when the edge's id is the derived
// one of the first edge between its ends, EdgeID(vg_src, vg_type, vg_dst,
// 0), which is nearly every edge (all but 140 of the 68,760 of the
// generated 10,000-note vault; storing them took 12.6 of its graph's 43
// MB, written twice, once per direction). Readers compute it:
//
//	coalesce(r.id, r.vg_src + '#' + r.vg_type + '#' + r.vg_dst + '#0')
//
// which is what the query translator reads for id(r) and r.id, the
// result reader fills in for a returned relationship, and an update
// deletes and sets edges by. A pinned id, or the id of a second edge of
// the same type between the same ends, is stored.
//
// # Property columns
//
// Each table's columns cost the engine memory and time whether or not a
// row has a value (20,000 frontmatter keys in one note filled a 512 MiB
// buffer pool after 146 s and failed the run, and 256 integer keys were
// enough to fill it). So the DefaultPropertyColumns
// note property keys found on most notes (and as many edge property keys,
// found on most edges) get a typed column; ties go by key. The other keys,
// the long tail, are marked Tail in the manifest and held as text in two
// list columns of the table, present only when the namespace has such a
// key: GraphTailKeysColumn, the vault-level names of a row's tail
// properties, and GraphTailValuesColumn, a null and then their values in
// the same order (the null answers a lookup of a key the row lacks).
// A value's text is what a typed column would hold: integers and floats as
// Go prints them, booleans as true or false, dates as 2006-01-02,
// datetimes as 2006-01-02 15:04:05.999999 (UTC), strings as they are;
// a list of strings as each item after GraphTailSeparator and "=" (a null
// item as GraphTailSeparator and GraphTailNullItem), any other list
// as [a,b,c] of those texts. The translator casts the text back to the
// property's type (and splits a list of strings).
//
// The manifest's EdgeTypes list every type with the table that holds its
// edges. One table per type made a build quadratic in the number of types
// (each table is created and loaded on its own, and each load commits and
// checkpoints the whole catalog): one note with 2,000 inline fields of
// 2,000 keys stalled indexing for minutes.
//
// Chunks are not part of the graph: retrieval finds chunks through the
// vector files and hands their note ids to graph queries as parameters.
//
// # Names
//
// Users write vault names in queries (labels, edge types and property keys
// exactly as written in notes); the query translator maps them to the
// escaped names recorded in the Graph section. The escaping rule
// (EscapeGraphNames) is:
//
//  1. Every character that is not an ASCII letter, digit or underscore
//     becomes '_', and the result is cut to 40 bytes.
//  2. The namespace's prefix is put in front: "e_" for edge type tables,
//     "p_" for property columns (note and edge property keys share one
//     namespace, so a key has the same column name wherever it occurs).
//     Because every escaped name has a prefix, none is a Cypher keyword and
//     none collides with a built-in or internal column.
//  3. When step 1 changed anything (or the name is empty), or when the
//     result equals an earlier name of the namespace ignoring case (Kuzu
//     names are case-insensitive), "_" and the first 8 hex digits of the
//     sha256 of the original name are appended; names are processed in
//     byte order, so the mapping is deterministic. Should that still
//     collide, "_2", "_3", ... follow.
//
// Examples: depends_on -> e_depends_on, "mentored by" ->
// e_mentored_by_93c49ec0, Über -> p__ber_<hash>, and of "Knows" and "knows"
// the second becomes e_knows_<hash>.
//
// A property whose key equals a built-in name (a frontmatter "id", an edge
// property "count") is not dropped: its vault-level name gets a leading
// underscore ("_id"), repeated until it is unique, and the Graph section
// records both the key and the name. An edge property "id" equal to the
// edge's id is the author pinning that id and is not stored twice.
//
// # Types
//
// A property column's type is inferred from every value of its key: all
// integers -> INT64; integers and floats -> DOUBLE; booleans -> BOOLEAN;
// dates -> DATE; datetimes, or dates and datetimes -> TIMESTAMP; strings ->
// STRING; maps -> STRING holding the JSON text; lists -> a list of the type
// inferred the same way from all their items (STRING[] when the items
// disagree); strings and lists of strings (type: Person beside type:
// [Person, Engineer], as Obsidian vaults write them) -> STRING[], each
// string a list of one. Any other mix is a conflict: the column is STRING, every value
// is stored as its text (Property.Text), and the property is marked
// Conflict with the kinds seen. Note properties are inferred over all
// notes; an edge property's type is inferred over the edges of every type,
// because Kuzu silently casts a property to a common type when one pattern
// spans several relationship tables, and a property must not change type
// with the query.

// # Updated databases
//
// A snapshot's database is either built from its rows or updated from its
// parent snapshot's (Graph.Build says which); both hold the same rows and
// values and answer queries alike, but an updated one finds the rows it
// added last, so results whose order no ORDER BY fixes (and collect()
// lists) may come in another order. Modification times are stored with
// the notes table's precision, milliseconds.

// GraphFile is the graph database of a snapshot.
const GraphFile = "graph.kuzu"

// GraphVersion is the layout of the graph database described above. A
// snapshot whose graph has another version is rebuilt by the next index
// run, and its graph is not queried until then.
//
//	1: one relationship table per edge type
//	2: a table for each of the most frequent types, one shared table (GraphEdgeTable) for the others;
//	   typed columns for the most frequent property keys, tail columns for the others
//	3: an edge's id is null when it is the derived one (see Edge ids)
const GraphVersion = 3

// DefaultPropertyColumns bounds the property keys of notes, and those of
// edges, that get a typed column (see Property columns above). The
// builder lowers it to fit its memory: Kuzu 0.11.3's COPY takes about 2
// MiB of buffer pool per integer column (256 of them fill 512 MiB, 48 fill
// 64 MiB), so it allows one column per 4 MiB.
const DefaultPropertyColumns = 128

// DefaultTypedEdgeTables bounds the edge types that get a relationship
// table of their own. Each table adds about 60-80 ms to a build
// (BenchmarkBuildTypedTables, see the README), while the vaults we know
// have fewer frequent types: the demo vault 20, the generated one 25, and
// the code graph adds 5.
const DefaultTypedEdgeTables = 32

// TypedEdgeTableNotes is how many edges per note a type needs for a
// table of its own (links_to and embeds always have one); the others
// share GraphEdgeTable. A table costs about 1 MiB on disk in a graph of
// 10,139 notes, even nearly empty (Kuzu sizes its adjacency arrays to
// the notes), while an edge costs about 330 bytes more in the shared
// table than in a table of its own: measured on vaultgraph gen --notes
// 10000 --seed 1, 62.8 MB with its 25 types in tables of their own, 44.5
// MB with 22 types of ~620 edges shared, 43.2 MB with those and two of
// ~1,170 shared. A table pays for itself from ~3,000 edges, 0.3 per note.
// This is not part of the layout: a reader finds every type's table in
// EdgeTypes.
const TypedEdgeTableNotes = 0.3

// MinTypedEdgeTable is the fewest edges that earn a type a table of its
// own in any vault. A small vault's tables cost little, but a type
// crossing a bound of a few edges would move between tables, and rebuild
// the database, at every other edit.
const MinTypedEdgeTable = 1000

// Graph build modes recorded in Graph.Build.
const (
	GraphBuilt   = "built"   // bulk-loaded from scratch
	GraphUpdated = "updated" // a copy of the parent snapshot's database with the changed rows applied
)

// GraphNoteTable is the node table holding notes and stubs.
const GraphNoteTable = "Note"

// GraphEdgeTable is the relationship table shared by the edge types that
// have no table of their own. Escaped type tables start with
// GraphEdgeTablePrefix, so no type's table can take this name.
const GraphEdgeTable = "Edge"

// GraphColumn is a built-in column and its Kuzu type.
type GraphColumn struct {
	Name, Type string
}

// Built-in fields, in the order of their columns. Queries read them as
// n.path, r.count and so on; labels(n), type(r) and id(x) read the labels,
// the edge type and the id. The column names are the vault names.
var (
	NoteBuiltins = []GraphColumn{
		{"id", "STRING"}, {"path", "STRING"}, {"title", "STRING"}, {"folder", "STRING"},
		{"labels", "STRING[]"}, {"tags", "STRING[]"}, {"aliases", "STRING[]"}, {"stub", "BOOLEAN"},
		{"modified", "TIMESTAMP"}, {"size", "INT64"},
	}
	EdgeBuiltins = []GraphColumn{
		{"id", "STRING"}, {"sign", "INT64"}, {"count", "INT64"}, {"heading", "STRING"}, {"line", "INT64"},
		{"sentence", "STRING"}, {"anchors", "STRING[]"}, {"origin", "STRING"}, {"unresolved", "BOOLEAN"},
	}
)

// Internal columns: vg_keys on both tables, the others on relationship
// tables. Queries cannot name them; the translator and the result reader
// use them.
const (
	GraphKeysColumn   = "vg_keys"
	GraphTypeColumn   = "vg_type"
	GraphSourceColumn = "vg_src"
	GraphTargetColumn = "vg_dst"
	// The long tail of property keys (see Property columns).
	GraphTailKeysColumn   = "vg_tail_keys"
	GraphTailValuesColumn = "vg_tail_values"
	// GraphTailSeparator comes before each item of a list of strings
	// held in a tail column (the character is replaced by a space inside
	// items).
	GraphTailSeparator = "\u241f"
	// GraphTailNullItem follows GraphTailSeparator for a null item of a
	// list of strings (an item's text starts with "=").
	GraphTailNullItem = "!"
)

// Prefixes of escaped names.
const (
	GraphEdgeTablePrefix = "e_"
	GraphPropertyPrefix  = "p_"
)

// Graph is the manifest section describing a snapshot's graph database: the
// mapping from vault names to the database's tables and columns, and the
// types inferred for properties.
type Graph struct {
	Version       int    `json:"version"`
	Engine        string `json:"engine"`
	EngineVersion string `json:"engine_version"`
	File          string `json:"file"`
	// Build says how the database file was made: GraphBuilt or
	// GraphUpdated. Either way it answers every query as a database built
	// from scratch from the same rows would. Absent in snapshots written
	// before the graph could be updated (they were built).
	Build string `json:"build,omitempty"`
	// BuiltSize is the size in bytes the file had when it was last built
	// from scratch: an updated file carries its parent's. Updates grow the
	// file (the engine reuses only some freed pages and never shrinks it),
	// so the indexer builds it again once it has grown too much.
	BuiltSize int64  `json:"built_size,omitempty"`
	NoteTable string `json:"note_table"`
	Notes     int    `json:"notes"`
	Edges     int    `json:"edges"`
	// SkippedEdges counts edges whose ends are not rows of the notes table
	// (which the indexer never writes); they are logged and left out.
	SkippedEdges   int             `json:"skipped_edges,omitempty"`
	Labels         []GraphLabel    `json:"labels"`
	NoteProperties []GraphProperty `json:"note_properties"`
	EdgeTypes      []GraphEdgeType `json:"edge_types"`
	EdgeProperties []GraphProperty `json:"edge_properties"`
}

// GraphLabel is a note label and the number of notes that carry it.
type GraphLabel struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// GraphEdgeType maps an edge type to its relationship table.
type GraphEdgeType struct {
	Name string `json:"name"`
	// Table is the type's own table, or GraphEdgeTable, which it shares
	// with the other types of the long tail.
	Table string `json:"table"`
	Count int    `json:"count"`
	// Properties are the vault-level names of the edge properties that
	// edges of this type carry; the table has a column for each.
	Properties []string `json:"properties,omitempty"`
}

// GraphProperty maps a property key to its column.
type GraphProperty struct {
	// Name is what queries write: the key, or the key with leading
	// underscores when it equals a built-in name.
	Name string `json:"name"`
	// Key is the key as written in notes, when it differs from Name.
	Key    string `json:"key,omitempty"`
	Column string `json:"column"`
	// Type is the Kuzu column type: INT64, DOUBLE, BOOLEAN, DATE,
	// TIMESTAMP, STRING or a list of one of them (STRING[]).
	Type string `json:"type"`
	// Kinds are the property kinds (Kind* constants) seen in values.
	Kinds []string `json:"kinds"`
	// Conflict is set when the kinds could not share a type: the column is
	// STRING and holds every value's text.
	Conflict bool `json:"conflict,omitempty"`
	// Tail is set for a key of the long tail: Column is empty, and the
	// values are text in the table's tail columns.
	Tail bool `json:"tail,omitempty"`
	// Count is the number of notes or edges with a value.
	Count int `json:"count"`
}

// EscapeGraphNames maps each of names to a name safe for the graph database
// in the namespace of prefix, by the rule in this file's documentation.
// Duplicates in names map to the same escaped name.
func EscapeGraphNames(prefix string, names []string) map[string]string {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	out := make(map[string]string, len(sorted))
	taken := make(map[string]bool, len(sorted))
	for _, name := range sorted {
		if _, ok := out[name]; ok {
			continue
		}
		safe, changed := sanitizeGraphName(name)
		esc := prefix + safe
		if changed || taken[strings.ToLower(esc)] {
			esc += "_" + shortHash(name)
		}
		for n := 2; taken[strings.ToLower(esc)]; n++ {
			esc = prefix + safe + "_" + shortHash(name) + "_" + strconv.Itoa(n)
		}
		taken[strings.ToLower(esc)] = true
		out[name] = esc
	}
	return out
}

// maxGraphName bounds the sanitized part of an escaped name, so that a
// pathological key cannot produce an identifier Kuzu refuses.
const maxGraphName = 40

func sanitizeGraphName(name string) (string, bool) {
	var b strings.Builder
	changed := false
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	s := b.String()
	if s == "" {
		changed = true
	}
	if len(s) > maxGraphName {
		s, changed = s[:maxGraphName], true
	}
	return s, changed
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// ShadowedName returns the vault-level name of a property key: the key
// itself, or the key with leading underscores when it equals the name of
// one of builtins or, once prefixed, a name in taken, so that no property
// is hidden by a built-in field.
func ShadowedName(key string, builtins []GraphColumn, taken func(string) bool) string {
	name := key
	for isBuiltin(name, builtins) || (name != key && taken(name)) {
		name = "_" + name
	}
	return name
}

func isBuiltin(s string, cols []GraphColumn) bool {
	for _, c := range cols {
		if c.Name == s {
			return true
		}
	}
	return false
}
