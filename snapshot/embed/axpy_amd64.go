//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// useAVX2 selects addScaled's assembly kernel.
var useAVX2 = cpu.X86.HasAVX2

// addScaledAVX2 adds w times the n int8 values at row to the n float32 at
// out; n is a positive multiple of 8.
//
//go:noescape
func addScaledAVX2(out *float32, row *int8, w float32, n int)
