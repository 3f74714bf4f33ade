// Package s3test starts a real S3 server for tests: versitygw
// (github.com/versity/versitygw, Apache-2.0) serving a temporary directory
// on a free loopback port, with fresh credentials and buckets.
//
// The binary is found through VAULTGRAPH_VERSITYGW, then PATH, then
// ~/.cache/vaultgraph-ci/bin/versitygw (where .ci/run builds it with
// go install github.com/versity/versitygw/cmd/versitygw@v1.8.0). Without
// it, a test skips saying how to build it, except under CI=true, where it
// fails: CI must exercise the real server.
package s3test
