package vectors

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestPackedResidualsLeaveResidentMemory checks that once a vector file is
// open, the pages of its packed residual plane (unpacked onto the heap) are
// not resident in the process, while the rest of the map is whole and
// still reads right.
func TestPackedResidualsLeaveResidentMemory(t *testing.T) {
	const n, dims = 4096, 256
	rows := uniformSet(7, n, 0, dims).rows
	path := filepath.Join(t.TempDir(), "v.f32")
	if err := WriteFile(path, Hash{1}, dims, rows.hashes, func(i int) []float32 { return rows.vecs[i] }); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	packed := n * packedFineLen(f.codeLen)
	// Touch every page before the packed residuals (the int8 plane is not
	// read at open), as searches do.
	var sum byte
	for _, b := range f.mapped[:len(f.mapped)-packed] {
		sum += b
	}
	_ = sum
	rss, size := mappingRSS(t, uintptr(unsafe.Pointer(unsafe.SliceData(f.mapped))))
	if size < len(f.mapped) {
		t.Fatalf("the map is %d bytes, the file %d", size, len(f.mapped))
	}
	// Without dropping the residuals, which are read at open to unpack
	// them, every page is resident now.
	if limit := len(f.mapped) - packed + 2*os.Getpagesize(); rss > limit {
		t.Errorf("%d bytes of the %d-byte map are resident, want at most %d (the packed residuals, %d bytes, dropped)", rss, len(f.mapped), limit, packed)
	}
	// Reading the dropped pages again works (they come back from the file).
	last := f.mapped[len(f.mapped)-1]
	if raw, err := os.ReadFile(path); err != nil || raw[len(raw)-1] != last {
		t.Errorf("the map's last byte is %d, the file's differs (%v)", last, err)
	}
	if got, want := f.Vector(n-1, nil), rows.vecs[n-1]; len(got) != dims || abs32(got[0]-want[0]) > 0.02 {
		t.Errorf("row %d reads %v..., want about %v...", n-1, got[:1], want[:1])
	}
}

// mappingRSS returns the resident bytes and the size of the mapping of
// this process that contains addr, from /proc/self/smaps.
func mappingRSS(t *testing.T, addr uintptr) (rss, size int) {
	t.Helper()
	fh, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	in := false
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			var lo, hi uintptr
			if _, err := fmt.Sscanf(fields[0], "%x-%x", &lo, &hi); err == nil {
				in = lo <= addr && addr < hi
				if in {
					size = int(hi - lo)
				}
				continue
			}
		}
		if in && len(fields) >= 2 && fields[0] == "Rss:" {
			kb, _ := strconv.Atoi(fields[1])
			return kb << 10, size
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return 0, 0
}

// TestResidualsAreUnpackedOffTheHeap: an opened file's unpacked residual
// plane is not Go heap, which a server's heap limit would give headroom.
func TestResidualsAreUnpackedOffTheHeap(t *testing.T) {
	const n, dims = 4096, 256
	rows := uniformSet(8, n, 0, dims).rows
	path := filepath.Join(t.TempDir(), "v.f32")
	if err := WriteFile(path, Hash{1}, dims, rows.hashes, func(i int) []float32 { return rows.vecs[i] }); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	grown := int64(heap()) - int64(before)
	if plane := n * f.codeLen; grown > int64(plane/4) {
		t.Errorf("opening grew the heap by %d bytes; the residual plane is %d", grown, plane)
	}
	if got, want := f.Vector(n-1, nil), rows.vecs[n-1]; abs32(got[0]-want[0]) > 0.02 {
		t.Errorf("row %d reads %v..., want about %v...", n-1, got[:1], want[:1])
	}
	runtime.KeepAlive(f)
}
