package format

// Version is the on-disk format version written into every manifest.
// Readers refuse a snapshot whose version they do not know (ErrUnknownVersion)
// rather than guessing.
//
// Changelog:
//
//	1: nodes, links, edges and chunks tables; manifest with note signatures,
//	   warnings and file checksums.
const Version = 1

// SupportedVersion reports whether this build can read snapshots written in
// format version v.
func SupportedVersion(v int) bool { return v == Version }
