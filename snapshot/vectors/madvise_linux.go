package vectors

import (
	"os"
	"syscall"
	"unsafe"
)

// adviseHuge asks Linux to back b with transparent huge pages.
func adviseHuge(b []byte) { syscall.Madvise(b, 14) } // MADV_HUGEPAGE

// dropPages tells the kernel that the pages wholly inside b, part of a
// read-only file map, are not needed now: they leave the process's
// resident memory and are read again from the file if touched.
func dropPages(b []byte) {
	page := uintptr(os.Getpagesize())
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	first := (start + page - 1) &^ (page - 1)
	end := (start + uintptr(len(b))) &^ (page - 1)
	if end <= first {
		return
	}
	syscall.Madvise(b[first-start:end-start], syscall.MADV_DONTNEED)
}
