//go:build !amd64 || purego

package vectors

// dotCodes returns the dot product of int8 codes x and int16 query codes
// q, of equal length.
func dotCodes(x []byte, q []int16) int32 { return dotCodesGo(x, q) }

// prefetchLines is a no-op where there is no assembly for it.
func prefetchLines(*byte, int) {}
