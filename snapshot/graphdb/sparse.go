package graphdb

import (
	"bytes"
	"fmt"
	"io"
	"os"

	kuzu "github.com/kuzudb/go-kuzu"
)

// graphPage is the database's page size: Kuzu 0.11.3 writes 4 KiB pages.
const graphPage = 4096

// freeZeroPages turns the runs of the database file's pages that hold
// only zeros into holes, where the file system supports them: the file's
// bytes (and so its checksum) are unchanged, and the engine reads the
// zeros it wrote, but they take no disk space. Kuzu reserves room in
// powers of two for a column's strings and leaves it zero: 866 of the
// 4,388 pages of Obsidian's help vault's database (3.5 MB), 1,692 of 7,127
// at 10,000 generated notes (6.9 MB). A copy that does not keep holes (an
// export's tar stream, an upload) carries them again as zeros, which a
// zstd export compresses to almost nothing. It returns the bytes freed.
func freeZeroPages(path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("free zero pages: %w", err)
	}
	defer f.Close()
	zero := make([]byte, graphPage)
	buf := make([]byte, 256*graphPage)
	var freed, off, run int64 // run: the first zero page of the current run, or -1
	run = -1
	flush := func(end int64) error {
		if run < 0 {
			return nil
		}
		start := run
		run = -1
		if err := punchHole(f, start, end-start); err != nil {
			return err
		}
		freed += end - start
		return nil
	}
	for {
		n, err := io.ReadFull(f, buf)
		for p := 0; p+graphPage <= n; p += graphPage {
			at := off + int64(p)
			if bytes.Equal(buf[p:p+graphPage], zero) {
				if run < 0 {
					run = at
				}
				continue
			}
			if ferr := flush(at); ferr != nil {
				return freed, ferr
			}
		}
		off += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			// A partial page at the end stays as it is.
			return freed, flush(off - int64(n%graphPage))
		}
		if err != nil {
			return freed, fmt.Errorf("free zero pages: %w", err)
		}
	}
}

// pageRange is a run of the database file's pages: the first and how many.
type pageRange struct{ start, pages int64 }

// freePageRanges returns the runs of pages the engine's free space
// manager holds (CALL fsm_info()): pages no table, index or catalog
// refers to, kept for later writes.
func freePageRanges(conn *kuzu.Connection) ([]pageRange, error) {
	rows, err := queryRows(conn, "CALL fsm_info() RETURN *")
	if err != nil {
		return nil, fmt.Errorf("free pages: %w", err)
	}
	ranges := make([]pageRange, 0, len(rows))
	for _, r := range rows {
		if len(r) != 2 {
			return nil, fmt.Errorf("free pages: fsm_info returned %d columns, want 2", len(r))
		}
		start, ok1 := pageNumber(r[0])
		pages, ok2 := pageNumber(r[1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("free pages: fsm_info returned %v", r)
		}
		ranges = append(ranges, pageRange{start, pages})
	}
	return ranges, nil
}

// pageNumber reads a page index or count as the engine returns it (an
// unsigned integer column).
func pageNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case uint64:
		return int64(n), n < 1<<40
	case uint32:
		return int64(n), true
	case int64:
		return n, n >= 0
	case int32:
		return int64(n), n >= 0
	}
	return 0, false
}

// freeUnusedPages turns the database file's free pages (freePageRanges,
// read from the file as it is now) into holes. An update's checkpoint
// writes the tables it rewrites to new pages and frees the old ones,
// which keep their old bytes: after one edit on Obsidian's help vault
// that added a link, 2,383 of its 7,163 pages (9.8 MB) are free, and the
// file of 29.3 MB took 22.3 MiB of disk after freeZeroPages alone, 15.1
// MiB with them freed (14.1 MiB as built; 15.7 MiB for the 37.7 MB of a
// second update, which is where Kuzu's reuse of free pages settles: a
// third rewrite does not grow the file). Unlike freeZeroPages
// this changes the file's bytes (free pages read as zeros), so it runs
// before the file is hashed and checked. Ranges past the end of the file
// are cut there. It returns the bytes freed.
func freeUnusedPages(path string, ranges []pageRange) (int64, error) {
	if len(ranges) == 0 {
		return 0, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("free unused pages: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("free unused pages: %w", err)
	}
	var freed int64
	for _, r := range ranges {
		off, end := r.start*graphPage, (r.start+r.pages)*graphPage
		end = min(end, st.Size()/graphPage*graphPage)
		if end <= off {
			continue
		}
		if err := punchHole(f, off, end-off); err != nil {
			return freed, err
		}
		freed += end - off
	}
	return freed, nil
}
