//go:build linux || darwin

package archive

import "syscall"

// freeBytes returns the bytes an unprivileged process may still write on
// the file system holding dir; ok is false when that cannot be known.
func freeBytes(dir string) (free uint64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
