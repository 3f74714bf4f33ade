//go:build !unix

package mcp

import "os"

// ProtocolStdout returns standard output, where the MCP stream is
// written. Other writes to stdout are not diverted on this platform.
func ProtocolStdout() (*os.File, error) { return os.Stdout, nil }
