package graphdb

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestZeroPagesTakeNoSpace checks that a built database's zero pages are
// holes: the file's bytes are those the engine wrote, it takes less disk
// than its size, and it answers queries.
func TestZeroPagesTakeNoSpace(t *testing.T) {
	dir, g := buildFixture(t)
	path := filepath.Join(dir, format.GraphFile)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zeros := 0
	for p := 0; p+graphPage <= len(before); p += graphPage {
		if bytes.Equal(before[p:p+graphPage], make([]byte, graphPage)) {
			zeros++
		}
	}
	if zeros == 0 {
		t.Fatal("the fixture's database has no zero page to free")
	}
	// Build freed them.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && holesSupported(t, dir) {
		if used := st.Blocks * 512; used > fi.Size()-int64(zeros)*graphPage+graphPage {
			t.Errorf("the file takes %d bytes of disk for %d bytes with %d zero pages", used, fi.Size(), zeros)
		}
	}
	// A second pass frees the same pages again and changes no byte.
	freed, err := freeZeroPages(path)
	if err != nil {
		t.Fatal(err)
	}
	if freed != int64(zeros)*graphPage {
		t.Errorf("freed %d bytes, the file has %d zero pages", freed, zeros)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("freeing zero pages changed the file's bytes")
	}
	db, err := OpenFile(path, g, Options{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if res := mustQuery(t, db, "MATCH (a)-[r]->(b) RETURN count(*)", nil); res.Rows[0][0] != int64(6) {
		t.Errorf("edges after freeing zero pages: %v", res.Rows)
	}
}

// holesSupported reports whether the file system of dir keeps a hole
// punched into a file, telling why not in the test log.
func holesSupported(t *testing.T, dir string) bool {
	p := filepath.Join(dir, "hole-probe")
	if err := os.WriteFile(p, make([]byte, 16*graphPage), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(p)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := punchHole(f, 0, 16*graphPage); err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Blocks*512 >= 16*graphPage {
		t.Logf("the file system of %s keeps no holes: the disk use is not checked", dir)
		return false
	}
	return true
}

// TestUpdateFreePagesTakeNoSpace updates a database with edges removed
// and added, so that its checkpoint rewrites relationship tables to new
// pages and frees the old ones, and checks that the engine's free pages
// are holes afterwards and that the database answers as a built one.
func TestUpdateFreePagesTakeNoSpace(t *testing.T) {
	notes, edges := fixtureRows(t)
	parent := builtParent(t, notes, edges)
	edges2 := slices.Clone(edges)
	edges2 = slices.Delete(edges2, 2, 3)
	edges2 = append(edges2, format.Edge{ID: "nw", Source: edges[0].Target, Target: edges[0].Source, Type: "knows", Sign: 1, Count: 1, Origin: format.OriginField})
	dir := t.TempDir()
	g, err := Update(context.Background(), dir, parent, notes, edges2, UpdateOptions{BuildOptions: testBuildOptions, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, format.GraphFile)
	db, err := openReadOnly(path, testBuildOptions.BufferPoolSize, testBuildOptions.Threads)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := kuzu.OpenConnection(db)
	if err != nil {
		t.Fatal(err)
	}
	free, err := freePageRanges(conn)
	conn.Close()
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	var pages int64
	for _, r := range free {
		pages += r.pages
	}
	if pages == 0 {
		t.Fatal("the update left no free page: nothing to check")
	}
	if holesSupported(t, dir) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		for _, r := range free {
			off, end := r.start*graphPage, min((r.start+r.pages)*graphPage, fi.Size())
			if off >= end {
				continue
			}
			if at, ok := dataBetween(t, f, off, end); ok {
				t.Errorf("free pages %d-%d hold data from byte %d", r.start, r.start+r.pages-1, at)
			}
		}
	}
	compareWithBuild(t, dir, g, notes, edges2)
}
