package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/mcp"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
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
stderr; at the end of stdin it answers the requests already read, then
exits), for clients that start the server themselves:

   claude mcp add vaultgraph -- vaultgraph serve --stdio --data DATA

With --data s3://BUCKET/PREFIX it serves a bucket that an indexer pushes to
(index --push): it downloads the newest snapshot into --cache DIR (by default
~/.cache/vaultgraph/s3/BUCKET/PREFIX, under XDG_CACHE_HOME if set), checks every file against the manifest, serves it from the local disk,
and polls the bucket every --poll for newer ones. A download that fails or does
not verify is never served (the current snapshot keeps serving, /status shows
the rejection) and is tried again on the next poll. The cache keeps the newest
--keep snapshots and those still being read. Any number of servers may poll
one bucket. Credentials as for snapshot push (see its --help).


Several vaults, one server: --data NAME=DIR, repeatable (a plain --data DIR
names the vault after its folder), or --vaults FILE, a YAML map of names to
data directories. Each is watched, verified and swapped on its own; REST
answers /v/NAME/<route> for the vault NAME and the plain routes for the
default (the first, or --default-vault); every MCP tool takes an optional
vault argument.`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "data", Aliases: []string{"d"}, Usage: "data directory holding the snapshots, or NAME=DIR (repeatable: several vaults)", EnvVars: []string{"VAULTGRAPH_DATA"}},
			&cli.StringFlag{Name: "vaults", Usage: "YAML file mapping vault names to data directories (instead of --data)"},
			&cli.StringFlag{Name: "default-vault", Usage: "the vault the routes without /v/NAME and MCP calls without vault answer for (default: the first)"},
			&cli.StringFlag{Name: "addr", Value: serve.DefaultAddr, EnvVars: []string{"VAULTGRAPH_ADDR"}, Usage: "listen address; non-loopback needs a token"},
			&cli.BoolFlag{Name: "verify", Usage: "recompute every file's sha256 before serving a snapshot (sizes are always checked)"},
			&cli.StringFlag{Name: "token-file", Usage: "file holding the bearer token (else " + serve.TokenEnv + ")"},
			&cli.DurationFlag{Name: "poll", Value: store.DefaultPoll, Usage: "rescan DATA/snapshots this often besides file system events (0: default, negative: events only); with a bucket, poll it this often"},
			&cli.StringFlag{Name: "cache", Usage: "with --data s3://...: the local directory the bucket's snapshots are downloaded into and served from (default: ~/.cache/vaultgraph/s3/BUCKET/PREFIX)", EnvVars: []string{"VAULTGRAPH_CACHE"}},
			&cli.IntFlag{Name: "keep", Value: 1, Usage: "with --data s3://...: snapshots the cache keeps besides those being read", Action: atLeast("keep", 1)},
			&cli.DurationFlag{Name: "query-timeout", Value: serve.DefaultQueryTimeout, Usage: "longest a query or search may run", Action: positive("query-timeout")},
			&cli.IntFlag{Name: "max-rows", Value: serve.DefaultMaxRows, Usage: "row cap of query results", Action: atLeast("max-rows", 1)},
			&cli.IntFlag{Name: "max-concurrent", Value: serve.DefaultMaxHeavy(), Usage: "queries and searches running at once; more get 429 with Retry-After", Action: atLeast("max-concurrent", 1)},
			&cli.IntFlag{Name: "body-limit", Value: serve.DefaultBodyLimit, Usage: "largest request body in bytes", Action: atLeast("body-limit", 1)},
			&cli.StringSliceFlag{Name: "cors-origin", Usage: "allow browser requests from this origin (repeatable; none by default)"},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "accept this Host header without a token besides loopback names (repeatable)"},
			&cli.IntFlag{Name: "graph-memory", Value: graphdb.DefaultQueryBufferPool >> 20, Usage: "graph database buffer pool per open snapshot, MiB", Action: mib("graph-memory")},
			&cli.IntFlag{Name: "answer-cache", Value: serve.DefaultAnswerCache >> 20, Usage: "MiB of query and retrieval answers kept by snapshot and request once computed twice, sent again without recomputing (0: none)", Action: atLeast("answer-cache", 0)},
			&cli.IntFlag{Name: "ef", Usage: "HNSW beam width of searches (default: the snapshot's)", Action: atLeast("ef", 1)},
			&cli.BoolFlag{Name: "access-log", Usage: "log every request at info level (route, status, time; never paths or queries)"},
			&cli.BoolFlag{Name: "stdio", Usage: "speak MCP on stdin and stdout instead of listening (for Claude Code, Claude Desktop, Cursor); the HTTP flags are ignored"},
			// serve prints nothing but its log: --format is the log's.
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: formatText, Usage: "text or json: log records on stderr as text or as JSON lines",
				Action: formatFlags()[0].(*cli.StringFlag).Action},
			formatFlags()[1],
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
	log := serveLogger(c)
	if warning != "" {
		log.Warn(warning)
	}
	cfg, err := serveConfig(c, log)
	if err != nil {
		return err
	}
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
	log := serveLogger(c)
	for _, name := range []string{"addr", "token-file", "cors-origin", "allow-host", "access-log", "body-limit"} {
		if c.IsSet(name) {
			log.Warn("--stdio listens on no address; ignoring an HTTP setting", "flag", name)
		}
	}
	cfg, err := serveConfig(c, log)
	if err != nil {
		return err
	}
	return mcp.Run(c.Context, mcp.Config{Serve: cfg, MCP: mcpOptions(c, log), Stdio: true, In: os.Stdin, Out: out})
}

// serveConfig is the configuration of the store and of the HTTP server,
// without its token.
func serveConfig(c *cli.Context, log *slog.Logger) (serve.Config, error) {
	heavy := c.Int("max-concurrent")
	vaults, err := serveVaults(c, log)
	if err != nil {
		return serve.Config{}, err
	}
	if def := c.String("default-vault"); def != "" && !slices.ContainsFunc(vaults, func(v serve.VaultDir) bool { return v.Name == def }) {
		names := make([]string, len(vaults))
		for i, v := range vaults {
			names[i] = v.Name
		}
		return serve.Config{}, usageErrorf("--default-vault %q is none of the vaults served (%s)", def, strings.Join(names, ", "))
	}
	return serve.Config{
		Vaults:       vaults,
		DefaultVault: c.String("default-vault"),
		Addr:         c.String("addr"),
		Store: store.Options{
			Verify: c.Bool("verify"),
			// The server's heap follows the snapshots it serves (GOMEMLIMIT
			// overrides).
			TuneHeap: true,
			Embed:    embedConfig(c),
			Search:   search.Options{EfSearch: c.Int("ef")},
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
			AnswerCache:  answerCache(c.Int("answer-cache")),
			AccessLog:    c.Bool("access-log"),
			Log:          log,
			Version:      toolVersion(),
		},
		Watch: store.WatchOptions{Poll: c.Duration("poll")},
	}, nil
}

// answerCache is serve.Options.AnswerCache for --answer-cache MiB (0: off).
func answerCache(mib int) int {
	if mib <= 0 {
		return -1
	}
	return min(mib, maxMiB) << 20
}

// serveVaults reads --data (DIR, NAME=DIR or a bucket URL s3://BUCKET/PREFIX,
// optionally NAME=URL; repeatable) or --vaults FILE into the vaults to
// serve, checking names as the server does. A bucket is served from a
// cache: --cache DIR for one vault, DIR/NAME for each bucket vault of
// several.
func serveVaults(c *cli.Context, log *slog.Logger) ([]serve.VaultDir, error) {
	data, file := c.StringSlice("data"), c.String("vaults")
	var out []serve.VaultDir
	switch {
	case file != "" && len(data) > 0:
		return nil, usageErrorf("give --data or --vaults, not both")
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, usageError(fmt.Errorf("--vaults: %w", err))
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, usageError(fmt.Errorf("--vaults %s: %w", file, err))
		}
		if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
			return nil, usageErrorf("--vaults %s: want a map of vault names to data directories (work: /srv/vaultgraph/work)", file)
		}
		m := doc.Content[0].Content
		for i := 0; i+1 < len(m); i += 2 {
			if m[i+1].Kind != yaml.ScalarNode {
				return nil, usageErrorf("--vaults %s line %d: the data directory of %s must be a path", file, m[i+1].Line, m[i].Value)
			}
			out = append(out, serve.VaultDir{Name: m[i].Value, DataDir: m[i+1].Value})
		}
	case len(data) == 0:
		return nil, usageErrorf("Required flag \"data\" not set: pass --data DIR (or NAME=DIR, repeatable, or --vaults FILE)")
	default:
		for _, d := range data {
			name, dir, ok := strings.Cut(d, "=")
			if !ok || !store.ValidVaultName(name) {
				name, dir = store.VaultNameOf(d), d
			}
			out = append(out, serve.VaultDir{Name: name, DataDir: dir})
		}
	}
	buckets := 0
	seen := map[string]bool{}
	for i, v := range out {
		if !store.ValidVaultName(v.Name) {
			return nil, usageErrorf("vault name %q: use letters, digits, '.', '-' and '_', starting with a letter or digit", v.Name)
		}
		if seen[v.Name] {
			return nil, usageErrorf("vault name %q is given twice (name the others: --data NAME=DIR)", v.Name)
		}
		seen[v.Name] = true
		switch {
		case v.DataDir == "":
			return nil, usageErrorf("vault %s has no data directory", v.Name)
		case bucket.IsURL(v.DataDir):
			buckets++
		default:
			abs, err := filepath.Abs(v.DataDir)
			if err != nil {
				return nil, err
			}
			out[i].DataDir = abs
		}
	}
	if buckets == 0 {
		for _, name := range []string{"cache", "keep"} {
			if c.IsSet(name) {
				return nil, usageErrorf("--%s applies to a bucket (--data s3://BUCKET/PREFIX); every --data here is a local data directory, served as it is", name)
			}
		}
		return out, nil
	}
	cache := c.String("cache")
	switch {
	case bucket.IsURL(cache):
		return nil, usageErrorf("--cache must be a local directory, got %s", cache)
	case c.Duration("poll") < 0:
		return nil, usageErrorf("--poll must be positive with a bucket: it is polled, there are no events")
	}
	if cache != "" {
		abs, err := filepath.Abs(cache)
		if err != nil {
			return nil, err
		}
		cache = abs
	}
	for i, v := range out {
		if !bucket.IsURL(v.DataDir) {
			continue
		}
		b, err := openBucket(c.Context, v.DataDir)
		if err != nil {
			return nil, err
		}
		dir := cache
		switch {
		case cache == "":
			if dir, err = defaultCache(v.DataDir); err != nil {
				return nil, err
			}
			log.Info("caching the bucket's snapshots in the user cache directory (--cache sets another)", "bucket", v.DataDir, "cache", dir)
		case len(out) > 1:
			dir = filepath.Join(cache, v.Name)
		}
		out[i].DataDir = dir
		out[i].Source = store.Bucket(&bucket.Mirror{Bucket: b, Dir: dir, Keep: c.Int("keep"), Log: log})
	}
	return out, nil
}

// defaultCache is where a bucket's snapshots are cached without --cache:
// the user's cache directory ($XDG_CACHE_HOME, ~/.cache, ~/Library/Caches),
// one folder per bucket and prefix, so that servers of one bucket on one
// host share it (pulls take its lock; leases keep what each one reads).
func defaultCache(url string) (string, error) {
	loc, err := bucket.ParseURL(url)
	if err != nil {
		return "", usageError(err)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", usageErrorf("--data %s: no user cache directory (%v): pass --cache DIR", url, err)
	}
	return filepath.Join(base, "vaultgraph", "s3", loc.Bucket, filepath.FromSlash(loc.Prefix)), nil
}

func mcpOptions(c *cli.Context, log *slog.Logger) mcp.Options {
	return mcp.Options{Version: toolVersion(), Log: log, QueryTimeout: c.Duration("query-timeout"), MaxRows: c.Int("max-rows")}
}

// serveLogger is the server's log on stderr: text records, or JSON lines
// with --format json, at --log-level.
func serveLogger(c *cli.Context) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slogLevel(logLevel(c))}
	if jsonOutput(c) {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}
