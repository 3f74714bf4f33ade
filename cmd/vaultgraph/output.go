package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// The output formats every command that prints takes: --format text (the
// default) or json, and --json as the alias scripts reach for. Commands
// with more formats (snapshot diff: markdown) name them in formatFlags.
// JSON goes to stdout, one document per command (index --watch: one line
// per run), with the keys the REST API uses for the same thing.
const (
	formatText = "text"
	formatJSON = "json"
)

// formatFlags returns --format, taking the given formats (text and json
// when none are given; the first is the default), and --json.
func formatFlags(formats ...string) []cli.Flag {
	if len(formats) == 0 {
		formats = []string{formatText, formatJSON}
	}
	usage := strings.Join(formats[:len(formats)-1], ", ") + " or " + formats[len(formats)-1]
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: formats[0], Usage: usage,
			Action: func(_ *cli.Context, v string) error {
				if slices.Contains(formats, v) || (v == "table" && slices.Contains(formats, formatText)) {
					return nil
				}
				return usageErrorf("unknown --format %q: use %s", v, usage)
			}},
		&cli.BoolFlag{Name: "json", Usage: "the same as --format json"},
	}
}

// outputFormat is the format the command was asked for: --json, or
// --format ("table", query's old name for text, is text). --json with
// another --format is a usage error.
func outputFormat(c *cli.Context) (string, error) {
	f := c.String("format")
	if f == "table" {
		f = formatText
	}
	if c.Bool("json") {
		if c.IsSet("format") && f != formatJSON {
			return "", usageErrorf("--json and --format %s ask for different output; give one; see %s --help", c.String("format"), helpName(c))
		}
		return formatJSON, nil
	}
	if f == "" {
		return formatText, nil
	}
	return f, nil
}

// jsonOutput reports whether the command prints JSON; call it after
// outputFormat has been checked (every command's Before does).
func jsonOutput(c *cli.Context) bool {
	f, err := outputFormat(c)
	return err == nil && f == formatJSON
}

// checkFormat is a Before hook: a conflicting --json and --format is a
// usage error before the command does anything.
func checkFormat(c *cli.Context) error {
	if lookupFlag(c.Command.Flags, "json") == nil {
		return nil
	}
	_, err := outputFormat(c)
	return err
}
