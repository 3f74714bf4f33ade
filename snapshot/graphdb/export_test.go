package graphdb

// SetDirectTopK turns topRows on or off for the tests of the external test
// package, and returns the setting to restore.
func SetDirectTopK(on bool) (was bool) {
	was, directTopK = directTopK, on
	return was
}
