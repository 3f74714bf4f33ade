//go:build !amd64 || purego

package vectors

// dotCodes returns the dot product of int8 codes x and int16 query codes
// q, of equal length.
func dotCodes(x []byte, q []int16) int32 { return dotCodesGo(x, q) }

// dotCodes8 returns the dot product of two vectors' int8 codes, of equal
// length.
func dotCodes8(x, y []byte) int32 { return dotCodes8Go(x, y) }

// dotCodes8Fit is dotCodes8 of codes that are all -127..127.
func dotCodes8Fit(x, y []byte) int32 { return dotCodes8Go(x, y) }

// prefetchLines is a no-op where there is no assembly for it.
func prefetchLines(*byte, int) {}

// useAVX2 and useVNNI are false where there is no assembly for them.
const useAVX2, useVNNI = false, false

// buildDots returns the sums cc and cross of the build distance
// (buildcodes.go) of query q and the node with codes c and r.
func buildDots(q *buildQuery, c, r []byte, _, _ int32) (cc, cross int32) {
	return dotBuildGo(q.qc, q.qr, c, r)
}

// pairCodes returns the dot product of the int8 codes x and y of two nodes.
func pairCodes(x, y []byte, _ int32) int32 { return dotCodes8(x, y) }

// buildDotsBatch has no batch kernel here: the caller computes one by one.
func buildDotsBatch(*buildQuery, *buildCodes, []candidate, []int32) bool { return false }

// dotCodesBatch has no batch kernel here: the caller computes one by one.
func dotCodesBatch([]int16, []byte, int, []candidate, []int32) bool { return false }

// similarity returns sum q*c and sum q*r over the length of q.
func similarity(q []float32, c, r []byte) (s, t float32) { return similarityGo(q, c, r) }
