package main

import (
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/archive"
)

// TestExportCompression: -o's name picks the compression, and a name that
// would lie about the archive (.gz, which export does not write, or a
// --compress the name contradicts) is refused.
func TestExportCompression(t *testing.T) {
	for _, tc := range []struct {
		out, flag string
		want      archive.Compression
		err       string
	}{
		{"", "", archive.None, ""},
		{"", "zstd", archive.Zstd, ""},
		{"snap.tar", "", archive.None, ""},
		{"snap.tar.zst", "", archive.Zstd, ""},
		{"SNAP.TAR.ZST", "", archive.Zstd, ""},
		{"snap.zstd", "", archive.Zstd, ""},
		{"snap.archive", "", archive.None, ""},
		{"snap.archive", "zstd", archive.Zstd, ""},
		{"snap.tar.zst", "zstd", archive.Zstd, ""},
		{"snap.tar.gz", "", "", "the name says gzip, but export writes plain tar or zstd: name it snap.tar.zst (zstd) or snap.tar"},
		{"snap.tgz", "zstd", "", "the name says gzip"},
		{"snap.tar.xz", "", "", "the name says xz"},
		{"snap.tar", "zstd", "", "--compress zstd with -o snap.tar: the name says plain tar"},
		{"snap.tar.zst", "none", "", "the name says zstd"},
		{"snap.tar", "gzip", "", "unknown compression"},
	} {
		got, err := exportCompression(tc.out, tc.flag)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("-o %q --compress %q: %q, %v; want %q", tc.out, tc.flag, got, err, tc.want)
		case tc.err != "" && (!isUsageError(err) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("-o %q --compress %q: %v, want a usage error containing %q", tc.out, tc.flag, err, tc.err)
		}
	}
}
