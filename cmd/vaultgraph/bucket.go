package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket/s3bucket"
)

// bucketHelp is the part of the help of every command that talks to a
// bucket about credentials and endpoints.
const bucketHelp = `Credentials, region and endpoint come from the AWS SDK's default chain:
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE, ~/.aws/credentials,
SSO, instance and container roles), AWS_REGION; for MinIO, Ceph, R2, GCS or
versitygw set AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL), which also switches to
path-style addressing. Never put a secret on the command line.`

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "upload a snapshot (the newest by default) to an S3 bucket",
		ArgsUsage: "s3://BUCKET/PREFIX [ID]",
		Description: `Uploads every file of the snapshot that the bucket does not hold yet (files are
stored once by their sha256 under PREFIX/files/, so what a snapshot shares with
one pushed before is never uploaded again), then its manifest as
PREFIX/snapshots/<id>.json, last: servers polling the bucket never see a
half-uploaded snapshot, and pushing again after an interrupted push uploads
only what is missing. A file that changed a little from the parent
snapshot's file of the same name (the graph database after an edit) goes as
a patch of it under PREFIX/patches/ when that is under half the file, with
a whole file at least every 8 patches. A snapshot already
in the bucket uploads nothing and says so on stderr. Exits 75 while a
snapshot gc runs on the same prefix.

` + bucketHelp,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on success"},
		}, formatFlags()...),
		Before: takesArgs(1, 2, ""),
		Action: runPush,
	}
}

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Usage:     "download a snapshot (the newest by default) from an S3 bucket into a data directory",
		ArgsUsage: "s3://BUCKET/PREFIX [ID]",
		Description: `Downloads the snapshot's manifest and every file it names, checking each file's
size and sha256 as it arrives, into a temporary directory, and publishes the
snapshot atomically (as snapshot import does), so a server on this machine
never sees a half-downloaded one. Files a local snapshot holds with the same
sha256 are hard-linked instead of downloaded, and a file the bucket holds as a
patch of the parent's is made from the local copy of the parent's file (checked
first) or from the bucket's. A damaged or missing object fails
the pull, naming it, and publishes nothing. Holds the data directory's lock
like an indexer: with one running it waits --wait, then exits 75.

` + bucketHelp,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.DurationFlag{Name: "wait", Usage: "how long to wait for an indexer holding the data directory", Action: notNegative("wait")},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on success"},
		}, formatFlags()...),
		Before: takesArgs(1, 2, ""),
		Action: runPull,
	}
}

// openBucket opens the bucket a command argument or option names.
func openBucket(ctx context.Context, url string) (bucket.Bucket, error) {
	loc, err := bucket.ParseURL(url)
	if err != nil {
		return nil, usageError(err)
	}
	return s3bucket.Open(ctx, loc)
}

func runPush(c *cli.Context) error {
	b, err := openBucket(c.Context, c.Args().First())
	if err != nil {
		return err
	}
	e, err := resolveRef(c.String("data"), c.Args().Get(1))
	if err != nil {
		return err
	}
	res, err := bucket.Push(c.Context, b, e.Dir, bucket.PushOptions{Log: logger(c)})
	if err != nil {
		return err
	}
	if !c.Bool("quiet") {
		printPush(c, b, res)
	}
	return nil
}

// printPush reports a push: on stdout what it uploaded, on stderr that the
// snapshot was there already (so a timer's job stays quiet).
func printPush(c *cli.Context, b bucket.Bucket, res *bucket.PushResult) {
	if jsonOutput(c) {
		v := pushJSON(b, res)
		if c.Bool("watch") || c.IsSet("poll") {
			b, _ := json.Marshal(struct {
				Push pushRun `json:"push"`
			}{v})
			fmt.Fprintf(c.App.Writer, "%s\n", b)
			return
		}
		_ = writeJSON(c.App.Writer, v)
		return
	}
	if res.Present {
		fmt.Fprintf(c.App.ErrWriter, "already pushed %s: %s holds this very snapshot; nothing uploaded\n", res.ID, b)
		return
	}
	fmt.Fprintf(c.App.Writer, "pushed %s to %s: uploaded %d of %d objects, %d of %d bytes (the rest was in the bucket already)\n",
		res.ID, b, res.Uploaded, res.Files, res.UploadedBytes, res.Bytes)
	if res.PatchBytes > 0 {
		fmt.Fprintf(c.App.Writer, "  %s as patches of the parent's files: %d bytes\n", plural(res.Patched, "file"), res.PatchBytes)
	}
	if res.RepairedManifest {
		fmt.Fprintf(c.App.ErrWriter, "  replaced the damaged manifest object of %s\n", res.ID)
	}
	if res.Repaired > 0 {
		fmt.Fprintf(c.App.ErrWriter, "  replaced %s of the wrong size\n", plural(res.Repaired, "damaged object"))
	}
}

func runPull(c *cli.Context) error {
	b, err := openBucket(c.Context, c.Args().First())
	if err != nil {
		return err
	}
	data, err := filepath.Abs(c.String("data"))
	if err != nil {
		return err
	}
	res, err := bucket.Pull(c.Context, b, data, c.Args().Get(1), bucket.PullOptions{LockWait: c.Duration("wait"), Log: logger(c)})
	if errors.Is(err, bucket.ErrNoSnapshot) && c.Args().Get(1) != "" {
		return usageError(err)
	}
	if err != nil {
		return err
	}
	if jsonOutput(c) && !c.Bool("quiet") {
		v := struct {
			Snapshot        string `json:"snapshot"`
			Dir             string `json:"dir"`
			Present         bool   `json:"already_pulled"`
			Files           int    `json:"files"`
			Bytes           int64  `json:"bytes"`
			Downloaded      int    `json:"downloaded"`
			DownloadedBytes int64  `json:"downloaded_bytes"`
			LinkedBytes     int64  `json:"linked_bytes"`
			Patched         int    `json:"patched"`
			Newest          string `json:"newest,omitempty"`
		}{res.ID, res.Dir, res.Present, res.Files, res.Bytes, res.Downloaded, res.DownloadedBytes, res.LinkedBytes, res.Patched, ""}
		if res.Newest != res.ID {
			v.Newest = res.Newest
		}
		return writeJSON(c.App.Writer, v)
	}
	if res.Newest != res.ID {
		fmt.Fprintf(c.App.ErrWriter, "note: %s already holds a newer snapshot, %s; servers keep serving that one\n", data, res.Newest)
	}
	switch {
	case c.Bool("quiet"):
	case res.Present:
		fmt.Fprintf(c.App.ErrWriter, "already pulled %s: %s holds this very snapshot; nothing downloaded\n", res.ID, res.Dir)
	default:
		fmt.Fprintf(c.App.Writer, "pulled %s into %s: %d of %d files downloaded, %d bytes; %d bytes linked from local snapshots; the snapshot holds %d bytes\n",
			res.ID, res.Dir, res.Downloaded, res.Files, res.DownloadedBytes, res.LinkedBytes, res.Bytes)
		if res.Patched > 0 {
			fmt.Fprintf(c.App.Writer, "  %s made by applying patches\n", plural(res.Patched, "file"))
		}
	}
	return nil
}

// pushPublished pushes the snapshot an index run published (or the newest
// one, when it published nothing: a push that failed before is done
// now) to the bucket at url. It costs one request when the bucket holds
// it already.
func pushPublished(ctx context.Context, log *slog.Logger, b bucket.Bucket, data, id string) (*bucket.PushResult, error) {
	if id == "" {
		return nil, nil
	}
	res, err := bucket.Push(ctx, b, snapshot.Dir(data, id), bucket.PushOptions{Log: log})
	if err != nil {
		return nil, fmt.Errorf("published %s locally, but pushing it to %s failed (the next run, or vaultgraph snapshot push, pushes it): %w", id, b, err)
	}
	return res, nil
}

// bucketGC is snapshot gc on a bucket (--data s3://...).
func bucketGC(c *cli.Context) error {
	for _, name := range []string{"older-than", "wait"} {
		if c.IsSet(name) {
			return usageErrorf("--%s applies to a data directory, not to a bucket; give --keep only", name)
		}
	}
	b, err := openBucket(c.Context, c.String("data"))
	if err != nil {
		return err
	}
	opts := bucket.GCOptions{Keep: c.Int("keep"), DryRun: c.Bool("dry-run")}
	res, err := bucket.GC(c.Context, b, opts)
	if res != nil && !c.Bool("quiet") && jsonOutput(c) {
		list := func(s []string) []string {
			if s == nil {
				return []string{}
			}
			return s
		}
		if jerr := writeJSON(c.App.Writer, struct {
			DryRun     bool     `json:"dry_run"`
			Removed    []string `json:"removed"`
			Kept       []string `json:"kept"`
			StaleLocks []string `json:"stale_locks"`
			Files      int      `json:"files"`
			Bytes      int64    `json:"bytes"`
		}{opts.DryRun, list(res.Removed), list(res.Kept), list(res.StaleLocks), res.Files, res.Bytes}); jerr != nil && err == nil {
			err = jerr
		}
		return err
	}
	if res != nil && !c.Bool("quiet") {
		verb := "removed"
		if opts.DryRun {
			verb = "would remove"
		}
		w := c.App.Writer
		for _, id := range res.Removed {
			fmt.Fprintf(w, "%s %s\n", verb, id)
		}
		for _, key := range res.StaleLocks {
			fmt.Fprintf(w, "%s stale lock %s\n", verb, key)
		}
		fmt.Fprintf(w, "%s %s and %s (%d bytes) no kept snapshot needs, kept %d\n", verb,
			plural(len(res.Removed), "snapshot"), plural(res.Files, "file object"), res.Bytes, len(res.Kept))
	}
	return err
}

// pushRun is a push as push --json (and index --push --json) prints it.
type pushRun struct {
	Snapshot      string `json:"snapshot"`
	Bucket        string `json:"bucket"`
	Present       bool   `json:"already_pushed"`
	Files         int    `json:"files"`
	Bytes         int64  `json:"bytes"`
	Uploaded      int    `json:"uploaded"`
	UploadedBytes int64  `json:"uploaded_bytes"`
	Repaired      int    `json:"repaired"`
	// RepairedManifest: the bucket's manifest object was damaged and
	// was replaced.
	RepairedManifest bool `json:"repaired_manifest,omitempty"`
	// Patched files are held as patches of the parent's files;
	// PatchBytes were sent now.
	Patched    int   `json:"patched"`
	PatchBytes int64 `json:"patch_bytes"`
}

func pushJSON(b bucket.Bucket, res *bucket.PushResult) pushRun {
	return pushRun{Snapshot: res.ID, Bucket: fmt.Sprint(b), Present: res.Present, Files: res.Files, Bytes: res.Bytes,
		Uploaded: res.Uploaded, UploadedBytes: res.UploadedBytes, Repaired: res.Repaired, RepairedManifest: res.RepairedManifest,
		Patched: res.Patched, PatchBytes: res.PatchBytes}
}
