package main

import (
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// embedFlags are the embedding stage's flags (index, demo).
func embedFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "embedder", EnvVars: []string{"VAULTGRAPH_EMBEDDER"},
			Usage: "builtin (offline: static word vectors plus lexical features), lexical (offline, hashed n-grams only), " +
				"ollama:<model> or openai:<model>; default: the newest snapshot's, else builtin"},
		&cli.BoolFlag{Name: "reembed", Usage: "embed every chunk and edge again, reusing no vector (how to switch models)"},
	}, embedderConnFlags()...)
}

// embedderConnFlags say how to reach a remote embedder (index and search).
// API keys are read from the environment or a key file only.
func embedderConnFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "ollama-host", EnvVars: []string{"OLLAMA_HOST"}, Usage: "Ollama server (default 127.0.0.1:11434)"},
		&cli.StringFlag{Name: "openai-base-url", EnvVars: []string{"VAULTGRAPH_OPENAI_BASE_URL", "OPENAI_BASE_URL"},
			Usage: "OpenAI-compatible server; requests go to {base}/v1/embeddings (default https://api.openai.com)"},
		&cli.StringFlag{Name: "openai-key-file", EnvVars: []string{"VAULTGRAPH_OPENAI_KEY_FILE"},
			Usage: "file holding the OpenAI API key (else VAULTGRAPH_OPENAI_KEY or OPENAI_API_KEY)"},
		&cli.IntFlag{Name: "embed-batch", Value: 32, Usage: "texts per request to a remote embedder", Action: atLeast("embed-batch", 1)},
		&cli.IntFlag{Name: "embed-concurrency", Value: 2, Usage: "requests in flight to a remote embedder", Action: atLeast("embed-concurrency", 1)},
		&cli.DurationFlag{Name: "embed-timeout", Value: 2 * time.Minute, Usage: "timeout of one request to a remote embedder", Action: positive("embed-timeout")},
	}
}

// runEnvKey keys, in the app's Metadata, the environment an index run
// will read (a func(string) string) when it is not this process's:
// schedule checks a unit's command line in the environment of the unit.
const runEnvKey = "run-env"

func embedConfig(c *cli.Context) embed.Config {
	cfg := embed.Config{
		OllamaHost:    c.String("ollama-host"),
		OpenAIBaseURL: c.String("openai-base-url"),
		OpenAIKeyFile: c.String("openai-key-file"),
		BatchSize:     c.Int("embed-batch"),
		Concurrency:   c.Int("embed-concurrency"),
		Timeout:       c.Duration("embed-timeout"),
	}
	if getenv, ok := c.App.Metadata[runEnvKey].(func(string) string); ok {
		cfg.Getenv = getenv
	}
	return cfg
}

// embedStage builds the embedding stage from the flags. Without --embedder
// it keeps the model of the newest snapshot in --data, so that a plain
// "vaultgraph index" never trips over a model switch nobody asked for;
// opened is that snapshot then (nil when none opens), for the run to
// take as its parent without decoding its manifest again.
func embedStage(c *cli.Context) (st indexer.Stage, opened *snapshot.Snapshot, err error) {
	spec := c.String("embedder")
	if spec == "" {
		spec, opened = recordedEmbedder(c.String("data"))
	}
	e, err := embed.New(spec, embedConfig(c))
	if err != nil {
		// embed.New only reads its configuration (it contacts no
		// server), so what it refuses is a bad --embedder value or
		// embedder setting.
		return nil, nil, usageError(err)
	}
	return &indexer.EmbedStage{Embedder: e, Reembed: c.Bool("reembed"), Progress: progressWriter(c)}, opened, nil
}

// recordedEmbedder returns the embedder spec of the newest snapshot in
// dataDir, "builtin" when there is none, and that snapshot.
func recordedEmbedder(dataDir string) (string, *snapshot.Snapshot) {
	if dataDir == "" {
		return "builtin", nil
	}
	s, _, err := snapshot.Latest(dataDir, snapshot.OpenOptions{})
	if err != nil {
		return "builtin", nil
	}
	if s.Manifest.Embedder == nil {
		return "builtin", s
	}
	return embed.SpecOf(s.Manifest.Embedder), s
}

// progressWriter is stderr when it is a terminal that understands redraw
// codes and the run is not quiet; logs, CI and TERM=dumb get no progress
// lines, only the log's plain lines.
func progressWriter(c *cli.Context) io.Writer {
	if !redrawTerminal(c, os.Stderr.Fd(), os.Getenv) {
		return nil
	}
	return os.Stderr
}

// redrawTerminal reports whether progress may be drawn on fd: a terminal
// whose TERM is not dumb, for a run that logs at info or below.
func redrawTerminal(c *cli.Context, fd uintptr, getenv func(string) string) bool {
	level := strings.ToLower(logLevel(c))
	if c.Bool("quiet") || level == "warn" || level == "error" || getenv("TERM") == "dumb" {
		return false
	}
	return term.IsTerminal(int(fd))
}
