//go:build !amd64 || purego

package embed

const useAVX2 = false

func addScaledAVX2(out *float32, row *int8, w float32, n int) { panic("no AVX2 kernel") }
