//go:build race

package retrieve_test

// raceEnabled is set when the race detector is on: the tests that build
// large vaults skip then, as instrumented indexing takes minutes.
const raceEnabled = true
