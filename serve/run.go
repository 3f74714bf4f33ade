package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vaultgraph/vaultgraph/serve/store"
)

// Config is everything Run needs.
type Config struct {
	// DataDir holds the snapshots of the one vault served when Vaults is
	// empty; it may not exist yet.
	DataDir string
	// Source, when set, replaces DataDir as where the snapshots of the
	// one vault come from (a bucket mirrored into a cache: store.Bucket).
	Source store.Source
	// Vaults are the vaults served, in order, when there are several (or
	// one with a name of its own); DefaultVault names the one the routes
	// without /v/NAME answer for ("" for the first).
	Vaults       []VaultDir
	DefaultVault string
	// Addr is the listen address (DefaultAddr when empty).
	Addr string
	// Store opens snapshots; Server answers requests.
	Store  store.Options
	Server Options
	// Watch configures how new snapshots are noticed.
	Watch store.WatchOptions
	// ShutdownTimeout bounds the wait for requests in flight on shutdown
	// (default 30s).
	ShutdownTimeout time.Duration
	// Ready, when set, is called once the server accepts connections, with
	// the address it is bound to.
	Ready func(addr net.Addr)
}

// VaultDir is one vault to serve: its name and its data directory, or the
// source its snapshots come from (a bucket: store.Bucket).
type VaultDir struct {
	Name    string
	DataDir string
	Source  store.Source
}

// vaultDirs are the vaults cfg serves.
func (cfg Config) vaultDirs() []VaultDir {
	if len(cfg.Vaults) > 0 {
		return cfg.Vaults
	}
	name := cfg.DataDir
	if cfg.Source != nil {
		name = cfg.Source.String()
	}
	return []VaultDir{{Name: store.VaultNameOf(name), DataDir: cfg.DataDir, Source: cfg.Source}}
}

// DefaultAddr is the default listen address: loopback only.
const DefaultAddr = "127.0.0.1:7337"

func (cfg Config) withDefaults() Config {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	cfg.Server = cfg.Server.withDefaults()
	cfg.Store.Log = cfg.Server.Log
	return cfg
}

// Run serves the data directory over HTTP until ctx ends, then shuts down
// gracefully: it stops accepting connections, lets the requests in flight
// finish (up to ShutdownTimeout), stops watching and closes every
// snapshot. It opens the newest good snapshot before it starts listening,
// so that its first answers come from a snapshot when there is one; with
// none it serves anyway, answering 503 with the reason on data routes
// until one is published.
func Run(ctx context.Context, cfg Config) error {
	cfg = cfg.withDefaults()
	if err := CheckExposure(cfg.Addr, cfg.Server.Token != ""); err != nil {
		return err
	}
	return WithVaults(ctx, cfg, func(ctx context.Context, vs *store.Vaults) error {
		return ServeHTTP(ctx, vs, cfg)
	})
}

// WithVaults runs serve with a snapshot store for each vault: it opens
// each vault's newest good snapshot, keeps every store following new
// snapshots while serve runs, and closes every snapshot once serve has
// returned and its requests have finished. Every front end (HTTP, MCP on
// stdio) shares this lifecycle. Each vault is watched, verified and
// swapped on its own: one whose data directory is missing, empty or
// damaged is reported and served as soon as it has a good snapshot,
// without holding up the others.
func WithVaults(ctx context.Context, cfg Config, serve func(ctx context.Context, vs *store.Vaults) error) error {
	cfg = cfg.withDefaults()
	log := cfg.Server.Log
	var list []store.Vault
	var events []bool // whether each vault's source announces snapshots by file events
	closeAll := func() error {
		var errs []error
		cctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		for _, v := range list {
			errs = append(errs, v.Store.Close(cctx))
		}
		return errors.Join(errs...)
	}
	for _, d := range cfg.vaultDirs() {
		src := d.Source
		if src == nil {
			src = store.Local(d.DataDir)
		}
		st, err := store.NewFrom(src, cfg.Store)
		if err != nil {
			return errors.Join(fmt.Errorf("vault %s: %w", d.Name, err), closeAll())
		}
		list = append(list, store.Vault{Name: d.Name, Store: st})
		events = append(events, src.Events())
	}
	vs, err := store.NewVaults(list, cfg.DefaultVault)
	if err != nil {
		return errors.Join(err, closeAll())
	}
	for i, v := range list {
		if _, err := v.Store.Refresh(ctx); err != nil {
			return errors.Join(fmt.Errorf("vault %s: open snapshots: %w", v.Name, err), closeAll())
		}
		if v.Store.Current() == "" {
			msg := "no snapshot to serve yet; answering with the reason until one is published"
			if !events[i] {
				msg = "no snapshot in the bucket yet, or none that downloads and verifies; answering with the reason until one is pushed"
			} else if _, err := os.Stat(v.Store.DataDir()); errors.Is(err, fs.ErrNotExist) {
				msg = "the data directory does not exist yet (check the path if it should); waiting for vaultgraph index to create it and publish a snapshot"
			}
			log.Warn(msg, "vault", v.Name, "data", v.Store.Source())
		}
	}
	watchCtx, stopWatch := context.WithCancel(context.Background())
	var watched sync.WaitGroup
	for _, v := range list {
		watched.Go(func() { _ = v.Store.Watch(watchCtx, cfg.Watch) })
	}
	serveErr := serve(ctx, vs)
	stopWatch()
	watched.Wait()
	closeErr := closeAll()
	if serveErr == nil && closeErr == nil {
		log.Info("stopped")
	}
	return errors.Join(serveErr, closeErr)
}

// ServeHTTP answers the REST API (and cfg.Server.Mounts) over the vaults
// vs on cfg.Addr until ctx ends, then stops accepting connections and lets
// the requests in flight finish, up to cfg.ShutdownTimeout. The caller
// owns vs's stores.
func ServeHTTP(ctx context.Context, vs *store.Vaults, cfg Config) error {
	cfg = cfg.withDefaults()
	log := cfg.Server.Log
	srv, err := NewVaults(vs, cfg.Server)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen: %w: another process (perhaps another vaultgraph serve) listens on %s; stop it or pick another --addr", err, cfg.Addr)
	}
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "vaults", strings.Join(vs.Names(), ","), "snapshot", vs.Default().Store.Current(), "token", cfg.Server.Token != "",
		"verify", cfg.Store.Verify, "mounts", len(cfg.Server.Mounts))
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr())
	}
	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down: finishing requests in flight")
	case serveErr = <-served:
		serveErr = fmt.Errorf("serve: %w", serveErr)
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	return errors.Join(serveErr, srv.Shutdown(sctx))
}
