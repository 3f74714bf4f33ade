// Package gitrepo reads a git repository the way the indexer needs it: the
// files tracked at the working tree (the entries of the git index, read
// from the working tree's copies, never from untracked or ignored files),
// each with the git blob hash of its current content, the commit HEAD
// names, and which files the recent commits changed together.
//
// Nothing is ever written to the repository: it is opened with go-git,
// which reads the object store, the index and the refs directly; there is
// no fetch, no index refresh, no lock file, and the git command is never
// run (it may rewrite .git/index to refresh stat data).
package gitrepo
