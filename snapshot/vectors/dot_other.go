//go:build !amd64 || purego

package vectors

// dotCodes returns the dot product of int8 codes x and int16 query codes
// q, of equal length.
func dotCodes(x []byte, q []int16) int32 { return dotCodesGo(x, q) }

// dotCodes8 returns the dot product of two vectors' int8 codes, of equal
// length.
func dotCodes8(x, y []byte) int32 { return dotCodes8Go(x, y) }

// prefetchLines is a no-op where there is no assembly for it.
func prefetchLines(*byte, int) {}
