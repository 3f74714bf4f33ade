package doctor

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// Status is a check's verdict.
type Status string

const (
	// OK: this part works.
	OK Status = "ok"
	// Info: nothing to fix, but worth knowing (no timer installed, no
	// server asked).
	Info Status = "info"
	// Warn: it works, but something deserves a look (pending vectors,
	// warnings, a server that serves an older snapshot).
	Warn Status = "warn"
	// Fail: something needed does not work; Fix says what to do.
	Fail Status = "fail"
)

// Check is one check's finding.
type Check struct {
	// Name is the part checked: vault, data, space, lock, snapshot,
	// warnings, pending, embedder, schedule, server, mcp.
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Summary says what was found, in a sentence.
	Summary string `json:"summary"`
	// Fix says what to do next; empty when nothing needs doing.
	Fix string `json:"fix,omitempty"`
	// Details are further lines: grouped warnings, damaged snapshots, the
	// command line to copy.
	Details []string `json:"details,omitempty"`
}

// Report is every check of one data directory, in order.
type Report struct {
	Data   string  `json:"data"`
	Vault  string  `json:"vault,omitempty"`
	Checks []Check `json:"checks"`
	// OK is false when a check failed.
	OK bool `json:"ok"`
}

// Config says what to check.
type Config struct {
	// Data is the data directory, absolute.
	Data string
	// Vault is the vault folder, absolute; "" takes the one the newest
	// snapshot was built from.
	Vault string
	// Server is a running server's base URL (http://127.0.0.1:7337); ""
	// asks DefaultServer and reports nothing there as info, not failure.
	Server string
	// Token is the server's bearer token, if it has one.
	Token string
	// Embed reaches the recorded embedder (Ollama host, OpenAI base URL
	// and key file), as index would.
	Embed embed.Config
	// Binary is the vaultgraph binary's absolute path, for the MCP line.
	Binary string

	// FreeSpace returns the bytes that may still be written on the file
	// system holding dir; nil is statfs(2).
	FreeSpace func(dir string) (uint64, error)
	// Run runs a command (systemctl, launchctl) and returns its standard
	// output; nil runs it for real.
	Run func(ctx context.Context, name string, args ...string) ([]byte, error)
	// Home is the user's home folder, where user units and agents live;
	// "" is os.UserHomeDir. ConfigHome is $XDG_CONFIG_HOME ("" is
	// Home/.config).
	Home, ConfigHome string
	// SystemUnitDir is where system units live ("" is /etc/systemd/system).
	SystemUnitDir string
	// HTTP asks the server; nil is a client with a 5 s timeout.
	HTTP *http.Client
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// DefaultServer is the address vaultgraph serve listens on by default.
const DefaultServer = "http://127.0.0.1:7337"

// state is what the checks learn and share while they run.
type state struct {
	cfg     Config
	entries []snapshot.Entry
	// newest is the newest snapshot's manifest (read, maybe damaged);
	// good the newest one that passes Open's checks.
	newest *format.Manifest
	good   *snapshot.Snapshot
}

// Run runs every check on cfg.Data, in order. It never fails: what it
// cannot check is a finding too.
func Run(ctx context.Context, cfg Config) Report {
	cfg = cfg.withDefaults()
	st := &state{cfg: cfg}
	st.load()
	if cfg.Vault == "" && st.newest != nil {
		cfg.Vault = st.newest.VaultRoot
		st.cfg.Vault = cfg.Vault
	}
	r := Report{Data: cfg.Data, Vault: cfg.Vault, OK: true}
	for _, check := range []func(context.Context) Check{
		st.checkVault, st.checkData, st.checkSpace, st.checkLock,
		st.checkSnapshot, st.checkWarnings, st.checkPending,
		st.checkEmbedder, st.checkSchedule, st.checkServer, st.checkMCP,
	} {
		c := check(ctx)
		if c.Status == Fail {
			r.OK = false
		}
		r.Checks = append(r.Checks, c)
	}
	return r
}

func (c Config) withDefaults() Config {
	if c.FreeSpace == nil {
		c.FreeSpace = freeSpace
	}
	if c.Run == nil {
		c.Run = runCommand
	}
	if c.Home == "" {
		c.Home, _ = os.UserHomeDir()
	}
	if c.ConfigHome == "" {
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			c.ConfigHome = x
		} else if c.Home != "" {
			c.ConfigHome = filepath.Join(c.Home, ".config")
		}
	}
	if c.SystemUnitDir == "" {
		c.SystemUnitDir = "/etc/systemd/system"
	}
	if c.HTTP == nil {
		c.HTTP = &http.Client{Timeout: 5 * time.Second}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// load lists the snapshots and reads the newest manifest and the newest
// good snapshot, which several checks need.
func (st *state) load() {
	st.entries, _ = snapshot.List(st.cfg.Data)
	if n := len(st.entries); n > 0 {
		st.newest, _ = snapshot.ReadManifest(st.entries[n-1].Dir)
	}
	st.good, _, _ = snapshot.Latest(st.cfg.Data, snapshot.OpenOptions{})
}
