// Package indexer turns an Obsidian vault into a new snapshot: it walks the
// vault (never writing to it, never following a symlink out of it), reads
// and signs every note, parses the notes that changed since the newest
// snapshot (package note), reuses the parsed rows of the others from that
// snapshot's tables, resolves every link across the vault the way Obsidian
// does, and publishes the tables plus whatever registered stages add
// (vectors, graph database) through package snapshot.
//
// One indexer runs per data directory at a time (snapshot.Lock). A run whose
// vault, options and stages are unchanged publishes nothing, and so does a
// run that only retried work a stage left pending (vectors the model server
// could not compute) without getting any of it done. Watch runs the
// indexer again after every change to the vault (file system events or
// polling); package schedule writes the timers that run it periodically.
package indexer
