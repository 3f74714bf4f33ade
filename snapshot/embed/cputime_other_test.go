//go:build !linux

package embed_test

// threadCPU is unknown here; benchmarks then report wall-clock rates only.
func threadCPU() float64 { return 0 }
