// Package diff compares two snapshots of a vault and says what changed in
// the vault's words: notes added, removed, renamed (the same content at a
// new path) and changed (which properties, labels, tags, aliases, chunks);
// edges added and removed, by type, and edges whose properties changed;
// unresolved links gained and lost; warnings gained and resolved; and a
// change of embedding model.
//
// Compare reads only the tables and manifests of the two snapshots, which
// may come from different data directories. A Report renders as text (for
// terminals), Markdown (for pull-request comments) or JSON (for programs),
// and Failed tells a CI gate which of its conditions hold.
//
// Renames are followed everywhere: an edge, unresolved link or warning of
// a renamed note is compared under its new path, so a rename alone shows
// up as a rename and nothing else.
package diff
