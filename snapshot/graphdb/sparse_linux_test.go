package graphdb

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// dataBetween returns the first byte of f from off that is not in a hole,
// and whether it lies before end.
func dataBetween(t *testing.T, f *os.File, off, end int64) (int64, bool) {
	at, err := unix.Seek(int(f.Fd()), off, unix.SEEK_DATA)
	if errors.Is(err, unix.ENXIO) { // no data up to the end of the file
		return 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return at, at < end
}
