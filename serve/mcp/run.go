package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
)

// Config is everything Run needs.
type Config struct {
	// Serve configures the data directory, the store, how new snapshots
	// are noticed and, unless Stdio, the HTTP server, whose Mounts get the
	// MCP routes added. Its Server.Log receives the logs of both.
	Serve serve.Config
	// MCP configures the MCP server; its Log defaults to Serve.Server.Log.
	MCP Options
	// Stdio serves MCP on In and Out (newline-delimited JSON-RPC) instead
	// of HTTP, until In ends (the requests read are answered first) or ctx
	// does. Nothing but JSON-RPC is written to Out.
	Stdio bool
	In    io.Reader
	Out   io.Writer
}

// Run serves the data directory's newest snapshot over MCP until ctx ends:
// on stdio, or over HTTP as the REST server with the MCP routes mounted.
// Either way it shares serve's lifecycle (serve.WithVaults): it opens the
// newest good snapshot first (serving anyway, and saying why, when there is
// none), follows new snapshots as the indexer publishes them, and on the
// way out lets the requests in flight finish, stops watching and closes
// every snapshot.
func Run(ctx context.Context, cfg Config) error {
	sc := cfg.Serve
	if sc.Server.Log == nil {
		sc.Server.Log = slog.New(slog.DiscardHandler)
	}
	log := sc.Server.Log
	if cfg.MCP.Log == nil {
		cfg.MCP.Log = log
	}
	if !cfg.Stdio {
		if sc.Addr == "" {
			sc.Addr = serve.DefaultAddr
		}
		if err := serve.CheckExposure(sc.Addr, sc.Server.Token != ""); err != nil {
			return err
		}
	}
	return serve.WithVaults(ctx, sc, func(ctx context.Context, vs *store.Vaults) error {
		srv, err := NewVaults(vs, cfg.MCP)
		if err != nil {
			return err
		}
		// The tool list follows the snapshot's capabilities.
		watchCtx, stopWatch := context.WithCancel(context.Background())
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			srv.Watch(watchCtx)
		}()
		defer func() { stopWatch(); <-watched }()
		if cfg.Stdio {
			return srv.serveStdio(ctx, cfg.In, cfg.Out, log)
		}
		// Event streams end when the server is told to stop, so that
		// the HTTP server's shutdown does not wait for them.
		stopped := context.AfterFunc(ctx, srv.Close)
		defer func() {
			if stopped() {
				srv.Close()
			}
		}()
		http := sc
		http.Server.Mounts = append(append([]serve.Mount(nil), sc.Server.Mounts...), srv.Mounts()...)
		http.Server.Collectors = append(append([]prometheus.Collector(nil), sc.Server.Collectors...), srv.Collectors()...)
		return serve.ServeHTTP(ctx, vs, http)
	})
}

// serveStdio answers JSON-RPC on in and out until in ends or ctx does. At
// the end of in it first finishes the requests already read, writing
// their answers (see drainIO), within the tool call timeout and a grace.
func (s *Server) serveStdio(ctx context.Context, in io.Reader, out io.Writer, log *slog.Logger) error {
	stdio := server.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(slog.NewLogLogger(log.Handler(), slog.LevelWarn))
	d := s.vaults.Default()
	log.Info("serving MCP on stdio", "vaults", strings.Join(s.vaults.Names(), ","), "snapshot", d.Store.Current(), "data", d.Store.DataDir())
	dio := newDrainIO(in, out)
	bound := s.opts.QueryTimeout + drainGrace
	left := 0
	err := stdio.Listen(ctx, &drainReader{d: dio, drain: func() {
		if n, _ := dio.inFlight(); n > 0 {
			log.Info("stdin closed: finishing the requests in flight", "requests", n, "within", bound)
		}
		left = dio.wait(ctx, bound)
	}}, dio)
	if ctx.Err() != nil {
		log.Info("shutting down: stdio requests in flight were canceled")
		return nil
	}
	if err != nil {
		return fmt.Errorf("MCP on stdio: %w", err)
	}
	if left > 0 {
		log.Warn("stdin closed: requests still running were canceled", "requests", left, "after", bound)
	}
	log.Info("stdin closed: the MCP client is gone")
	return nil
}
