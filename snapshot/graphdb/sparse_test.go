package graphdb

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

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
