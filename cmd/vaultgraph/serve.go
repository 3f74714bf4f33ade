package main

import (
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/mcp"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the newest snapshot read-only over HTTP or MCP, swapping to newer ones as they are published",
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
requests in flight and exits.

AI agents connect over the Model Context Protocol: on HTTP at POST /mcp
(streamable HTTP, behind the same token), or with --stdio, which speaks MCP
on stdin and stdout instead of listening (no port, no token; logs go to
stderr), for clients that start the server themselves:

   claude mcp add vaultgraph -- vaultgraph serve --stdio --data DATA`,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.StringFlag{Name: "addr", Value: serve.DefaultAddr, EnvVars: []string{"VAULTGRAPH_ADDR"}, Usage: "listen address; non-loopback needs a token"},
			&cli.BoolFlag{Name: "verify", Usage: "recompute every file's sha256 before serving a snapshot (sizes are always checked)"},
			&cli.StringFlag{Name: "token-file", Usage: "file holding the bearer token (else " + serve.TokenEnv + ")"},
			&cli.DurationFlag{Name: "poll", Value: store.DefaultPoll, Usage: "rescan DATA/snapshots this often besides file system events (0: default, negative: events only)"},
			&cli.DurationFlag{Name: "query-timeout", Value: serve.DefaultQueryTimeout, Usage: "longest a query or search may run", Action: positive("query-timeout")},
			&cli.IntFlag{Name: "max-rows", Value: serve.DefaultMaxRows, Usage: "row cap of query results", Action: atLeast("max-rows", 1)},
			&cli.IntFlag{Name: "max-concurrent", Value: serve.DefaultMaxHeavy(), Usage: "queries and searches running at once; more get 429 with Retry-After", Action: atLeast("max-concurrent", 1)},
			&cli.IntFlag{Name: "body-limit", Value: serve.DefaultBodyLimit, Usage: "largest request body in bytes", Action: atLeast("body-limit", 1)},
			&cli.StringSliceFlag{Name: "cors-origin", Usage: "allow browser requests from this origin (repeatable; none by default)"},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "accept this Host header without a token besides loopback names (repeatable)"},
			&cli.IntFlag{Name: "graph-memory", Value: graphdb.DefaultQueryBufferPool >> 20, Usage: "graph database buffer pool per open snapshot, MiB", Action: mib("graph-memory")},
			&cli.IntFlag{Name: "ef", Usage: "HNSW beam width of searches (default: the snapshot's)", Action: atLeast("ef", 1)},
			&cli.BoolFlag{Name: "access-log", Usage: "log every request at info level (route, status, time; never paths or queries)"},
			&cli.BoolFlag{Name: "stdio", Usage: "speak MCP on stdin and stdout instead of listening (for Claude Code, Claude Desktop, Cursor); the HTTP flags are ignored"},
		}, embedderConnFlags()...),
		Before: takesArgs(0, 0, ""),
		Action: runServe,
	}
}

func runServe(c *cli.Context) error {
	if c.Bool("stdio") {
		return runServeStdio(c)
	}
	token, warning, err := serve.LoadToken(c.String("token-file"), os.Getenv)
	if err != nil {
		return usageError(err)
	}
	if err := serve.CheckExposure(c.String("addr"), token != ""); err != nil {
		return usageError(err)
	}
	log := logger(c)
	if warning != "" {
		log.Warn(warning)
	}
	cfg := serveConfig(c, log)
	cfg.Server.Token = token
	return mcp.Run(c.Context, mcp.Config{Serve: cfg, MCP: mcpOptions(c, log)})
}

// runServeStdio serves MCP on stdin and stdout: no listener, no token (only
// the parent process can talk to it), logs on stderr.
func runServeStdio(c *cli.Context) error {
	// First, before anything can write to stdout: from here on it carries
	// JSON-RPC only.
	out, err := mcp.ProtocolStdout()
	if err != nil {
		return err
	}
	log := logger(c)
	for _, name := range []string{"addr", "token-file", "cors-origin", "allow-host", "access-log", "body-limit"} {
		if c.IsSet(name) {
			log.Warn("--stdio listens on no address; ignoring an HTTP setting", "flag", name)
		}
	}
	return mcp.Run(c.Context, mcp.Config{Serve: serveConfig(c, log), MCP: mcpOptions(c, log), Stdio: true, In: os.Stdin, Out: out})
}

// serveConfig is the configuration of the store and of the HTTP server,
// without its token.
func serveConfig(c *cli.Context, log *slog.Logger) serve.Config {
	heavy := c.Int("max-concurrent")
	return serve.Config{
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
}

func mcpOptions(c *cli.Context, log *slog.Logger) mcp.Options {
	return mcp.Options{Version: toolVersion(), Log: log, QueryTimeout: c.Duration("query-timeout"), MaxRows: c.Int("max-rows")}
}
