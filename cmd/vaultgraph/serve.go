package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the newest snapshot read-only over HTTP, swapping to newer ones as they are published",
		Description: `Opens the newest snapshot of DATA that passes its checks and answers the REST
API (GET /openapi.json describes it) on --addr, loopback only by default.
New snapshots are picked up as the indexer publishes them (file system
events, plus a rescan every --poll); a snapshot that fails its checks is
logged and skipped while the current one keeps serving. With no snapshot
yet the server starts anyway and answers 503 on data routes until one
appears.

Binding to any address other than loopback requires a bearer token, from
VAULTGRAPH_TOKEN or --token-file; with a token, every route but /health
requires "Authorization: Bearer <token>". SIGTERM or Ctrl-C finishes the
requests in flight and exits.`,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.StringFlag{Name: "addr", Value: serve.DefaultAddr, EnvVars: []string{"VAULTGRAPH_ADDR"}, Usage: "listen address; non-loopback needs a token"},
			&cli.BoolFlag{Name: "verify", Usage: "recompute every file's sha256 before serving a snapshot (sizes are always checked)"},
			&cli.StringFlag{Name: "token-file", Usage: "file holding the bearer token (else " + serve.TokenEnv + ")"},
			&cli.DurationFlag{Name: "poll", Value: store.DefaultPoll, Usage: "rescan DATA/snapshots this often besides file system events (0: default, negative: events only)"},
			&cli.DurationFlag{Name: "query-timeout", Value: serve.DefaultQueryTimeout, Usage: "longest a query or search may run"},
			&cli.IntFlag{Name: "max-rows", Value: serve.DefaultMaxRows, Usage: "row cap of query results"},
			&cli.IntFlag{Name: "max-concurrent", Value: serve.DefaultMaxHeavy(), Usage: "queries and searches running at once; more get 429 with Retry-After"},
			&cli.IntFlag{Name: "body-limit", Value: serve.DefaultBodyLimit, Usage: "largest request body in bytes"},
			&cli.StringSliceFlag{Name: "cors-origin", Usage: "allow browser requests from this origin (repeatable; none by default)"},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "accept this Host header without a token besides loopback names (repeatable)"},
			&cli.IntFlag{Name: "graph-memory", Value: graphdb.DefaultQueryBufferPool >> 20, Usage: "graph database buffer pool per open snapshot, MiB"},
			&cli.IntFlag{Name: "ef", Usage: "HNSW beam width of searches (default: the snapshot's)"},
			&cli.BoolFlag{Name: "access-log", Usage: "log every request at info level (route, status, time; never paths or queries)"},
		}, embedderConnFlags()...),
		Action: runServe,
	}
}

func runServe(c *cli.Context) error {
	token, warning, err := serve.LoadToken(c.String("token-file"), os.Getenv)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if err := serve.CheckExposure(c.String("addr"), token != ""); err != nil {
		return &exitError{code: 2, err: err}
	}
	log := logger(c)
	if warning != "" {
		log.Warn(warning)
	}
	heavy := c.Int("max-concurrent")
	cfg := serve.Config{
		DataDir: c.String("data"),
		Addr:    c.String("addr"),
		Store: store.Options{
			Verify: c.Bool("verify"),
			Embed:  embedConfig(c),
			Search: search.Options{EfSearch: c.Int("ef")},
			// One connection per query slot: a query never waits for one.
			GraphDB: graphdb.Options{BufferPoolSize: uint64(c.Int("graph-memory")) << 20, Connections: heavy,
				Timeout: c.Duration("query-timeout"), MaxRows: c.Int("max-rows")},
		},
		Server: serve.Options{
			Token:        token,
			AllowedHosts: c.StringSlice("allow-host"),
			CORSOrigins:  c.StringSlice("cors-origin"),
			BodyLimit:    c.Int("body-limit"),
			QueryTimeout: c.Duration("query-timeout"),
			MaxRows:      c.Int("max-rows"),
			MaxHeavy:     heavy,
			AccessLog:    c.Bool("access-log"),
			Log:          log,
			Version:      toolVersion(),
		},
		Watch: store.WatchOptions{Poll: c.Duration("poll")},
	}
	return serve.Run(c.Context, cfg)
}
