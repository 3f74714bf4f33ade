//go:build !race

package linkgraph_test

const raceEnabled = false
