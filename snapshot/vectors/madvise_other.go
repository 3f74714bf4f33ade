//go:build unix && !linux

package vectors

// adviseHuge does nothing where transparent huge pages are not asked for.
func adviseHuge([]byte) {}

// dropPages leaves the pages be where they are not dropped by hand.
func dropPages([]byte) {}
