//go:build !linux || !cgo

package graphdb

// ReleaseMemory does nothing where the C allocator is not glibc's: see
// trim_glibc.go.
func ReleaseMemory() {}
