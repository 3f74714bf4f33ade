package embed_test

import "golang.org/x/sys/unix"

// threadCPU returns the CPU time the calling OS thread has used, in
// seconds, so that throughput per core can be measured on a busy machine.
func threadCPU() float64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
