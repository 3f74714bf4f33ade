package format

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// # Table segments
//
// The notes, links, edges and chunks tables are each written as one or
// more Parquet files, the table's segments, so that a snapshot whose
// small changes live in a small part writes and reads only that part (as
// zoekt's shards and Prometheus's blocks do). Segment i of a table is
// SegmentFile(table, i): the first keeps the table's own file name
// (nodes.parquet), the others add a number (nodes-0001.parquet, ...).
// A vault of up to SegmentMinNotes notes and stubs has one segment per table.
// Read a table as the concatenation of its segments in order (DuckDB:
// read_parquet('SNAPSHOT/nodes*.parquet')); the manifest's Tables section
// lists them in that order.
//
// Which rows go into which segment is a function of the notes table
// alone, so that an update and a rebuild split the same rows alike:
// the notes table's rows (notes in path order, then stubs), are cut into
// runs by SegmentEnds, and every row of the links, edges and chunks
// tables goes to the segment of the note it belongs to (a link's and an
// edge's source, a chunk's note). Each table's rows keep their order, so
// the concatenation is the table as one file would hold it.
//
// A cut falls after a note whose id hashes to a multiple of SegmentSpread,
// once the run holds SegmentMinNotes notes: content-defined, like the
// pieces of a delta export, so adding or removing a note moves at most
// the cuts around it and every other segment stays byte for byte the
// parent's. The manifest records a key per segment, the sha256 of its
// rows (not of its bytes); an indexer whose segment has the parent's key
// hard-links the parent's file instead of encoding the rows again, and a
// server that already holds the rows of a file with that file's sha256
// keeps them instead of decoding the file again.

// The tables that are written in segments, by the names the manifest's
// Tables section uses.
const (
	NotesTable  = "nodes"
	LinksTable  = "links"
	EdgesTable  = "edges"
	ChunksTable = "chunks"
)

// SegmentedTables are the tables written in segments, in the order the
// indexer writes them.
var SegmentedTables = []string{NotesTable, LinksTable, EdgesTable, ChunksTable}

// Segment sizes: a run of notes ends at a note whose id hash is a
// multiple of SegmentSpread once it holds at least SegmentMinNotes notes,
// and at SegmentMaxNotes notes in any case; segments then average about
// SegmentMinNotes + SegmentSpread notes.
const (
	SegmentMinNotes = 256
	SegmentSpread   = 128
	SegmentMaxNotes = 4096
)

// TableSegment is one segment of a table in the manifest's Tables section.
type TableSegment struct {
	// File is the segment's file name (SegmentFile), listed in Files too.
	File string `json:"file"`
	// Rows is the number of rows in the file.
	Rows int `json:"rows"`
	// Key is the sha256 (hex) of the rows the file was written from, as
	// the indexer hashes them (snapshot.SegmentKey): equal keys mean equal
	// rows, whichever bytes an encoder made of them.
	Key string `json:"key"`
}

// SegmentFile names segment i of table: "nodes.parquet" for the first,
// "nodes-0001.parquet" for the second, and so on.
func SegmentFile(table string, i int) string {
	if i == 0 {
		return table + ".parquet"
	}
	return fmt.Sprintf("%s-%04d.parquet", table, i)
}

// IsSegmentFile reports whether name is a segment file of table.
func IsSegmentFile(table, name string) bool {
	if name == table+".parquet" {
		return true
	}
	num, ok := strings.CutPrefix(name, table+"-")
	if !ok {
		return false
	}
	num, ok = strings.CutSuffix(num, ".parquet")
	return ok && len(num) == 4 && strings.Trim(num, "0123456789") == ""
}

// SegmentEnds cuts the notes table's row ids (notes in path order, then
// stubs) into segments: it returns the exclusive end index of each
// segment, the last being len(ids). It returns one segment, [len(ids)],
// for a table of fewer than SegmentMinNotes+1 rows (also for none).
func SegmentEnds(ids []string) []int {
	var ends []int
	start := 0
	for i, id := range ids {
		n := i + 1 - start
		if n >= SegmentMaxNotes || (n >= SegmentMinNotes && i+1 < len(ids) && cutAfter(id)) {
			ends = append(ends, i+1)
			start = i + 1
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(ids) {
		ends = append(ends, len(ids))
	}
	return ends
}

// cutAfter reports whether a segment may end after the note id.
func cutAfter(id string) bool {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()%SegmentSpread == 0
}
