//go:build unix && !linux

package vectors

// adviseHuge does nothing where transparent huge pages are not asked for.
func adviseHuge([]byte) {}
