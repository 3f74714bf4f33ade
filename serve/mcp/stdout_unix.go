//go:build unix

package mcp

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ProtocolStdout reserves standard output for the MCP stream: it returns a
// new file for the original standard output and points file descriptor 1
// at standard error, so that whatever else writes to stdout for the life
// of the process (a stray fmt.Print, a native library's message) lands in
// the log instead of corrupting the JSON-RPC stream. Call it once, before
// anything else writes, and write the protocol to the file it returns.
func ProtocolStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("reserve stdout for MCP: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/stdout"), nil
}
