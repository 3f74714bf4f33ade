package archive

// A delta archive carries a file that differs from the base's file of the
// same name as a patch (snapshot/patch) when that is smaller. The entry's
// PAX record paxPatch holds the sha256 of the base's file the patch
// applies to, and its size is the patch's. Import applies it to the
// base's file, which its manifest must list with that sha256, writes at
// most the size the manifest declares for the new file and checks its
// sha256 like any other entry's.
const paxPatch = "VAULTGRAPH.patch"
