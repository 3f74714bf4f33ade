// Package schedule writes the service definitions that run the indexer on
// a timer: a systemd service and timer pair, or a launchd agent. It only
// renders text; installing it is the user's step (see the README).
//
// Every definition runs the index command at background priority, and no
// two runs overlap: systemd never starts a oneshot service that is still
// running, launchd never starts a job twice, and a run that finds another
// indexer (a watch, a manual run) holding the data directory exits at once
// with EX_TEMPFAIL (75), which the systemd service counts as success.
package schedule
