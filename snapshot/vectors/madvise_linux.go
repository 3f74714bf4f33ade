package vectors

import "syscall"

// adviseHuge asks Linux to back b with transparent huge pages.
func adviseHuge(b []byte) { syscall.Madvise(b, 14) } // MADV_HUGEPAGE
