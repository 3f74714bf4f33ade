package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/code"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo"
)

// Repo is a git repository indexed beside the vault.
type Repo struct {
	// Name is the repository's name in code ids (code:NAME/path): letters,
	// digits, '.', '_' and '-'.
	Name string
	// Path is the working tree's folder. It is only ever read.
	Path string
	// Include and Exclude are globs of repository paths (as --ignore's):
	// when Include is set only matching files are read; Exclude drops files.
	Include, Exclude []string
}

// DefaultMaxCodeBytes is the size above which a tracked file is not read.
const DefaultMaxCodeBytes = 1 << 20

var repoName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ParseRepo parses NAME=PATH as --repo takes it.
func ParseRepo(s string) (Repo, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok || path == "" {
		return Repo{}, fmt.Errorf("--repo %q: write NAME=PATH, e.g. --repo api=$HOME/src/api", s)
	}
	if !repoName.MatchString(name) {
		return Repo{}, fmt.Errorf("--repo %q: the name %q may hold only letters, digits, '.', '_' and '-' and must start with a letter or digit", s, name)
	}
	return Repo{Name: name, Path: path}, nil
}

// repoInput is one repository as read for a run.
type repoInput struct {
	spec    Repo
	repo    *gitrepo.Repo
	head    string
	files   []gitrepo.File
	skipped []gitrepo.Skipped
	digest  string
}

// checkRepos opens each repository of repos, refusing a name given twice,
// a path that is not a git working tree and a data directory inside one;
// Run calls it before it writes anything.
func checkRepos(repos []Repo, data string) error {
	seen := map[string]bool{}
	for _, spec := range repos {
		if seen[spec.Name] {
			return fmt.Errorf("--repo %s is given twice; give each repository its own name", spec.Name)
		}
		seen[spec.Name] = true
		r, err := gitrepo.Open(spec.Path)
		if err != nil {
			return fmt.Errorf("repository %s: %w", spec.Name, err)
		}
		if err := DataOutsideVault(r.Root(), data); err != nil {
			return fmt.Errorf("repository %s: data directory %s is inside it; put it elsewhere (vaultgraph never writes to a repository)", spec.Name, data)
		}
	}
	return nil
}

// readRepos opens every repository and lists its tracked files, after
// checkRepos accepted them. A repository that cannot be opened fails the
// run: the user named it. vault is the vault's folder: a repository that
// holds it (docs/ kept as the Obsidian vault) does not read its notes
// again as code.
func readRepos(ctx context.Context, vault string, repos []Repo, maxBytes int64) ([]repoInput, error) {
	out := make([]repoInput, 0, len(repos))
	for _, spec := range repos {
		in, err := readRepo(ctx, vault, spec, maxBytes)
		if err != nil {
			return nil, fmt.Errorf("repository %s: %w", spec.Name, err)
		}
		out = append(out, in)
	}
	return out, nil
}

func readRepo(ctx context.Context, vault string, spec Repo, maxBytes int64) (repoInput, error) {
	r, err := gitrepo.Open(spec.Path)
	if err != nil {
		return repoInput{}, err
	}
	head, err := r.Head()
	if err != nil {
		return repoInput{}, err
	}
	include, err := compileIgnore(spec.Include)
	if err != nil {
		return repoInput{}, fmt.Errorf("--repo-include: %w", err)
	}
	exclude, err := compileIgnore(spec.Exclude)
	if err != nil {
		return repoInput{}, fmt.Errorf("--repo-exclude: %w", err)
	}
	inVault := vaultFiles(vault, r.Root())
	keep := func(p string) bool {
		return (len(spec.Include) == 0 || include.Match(p)) && !exclude.Match(p) && !inVault(p)
	}
	files, skipped, err := r.Tracked(ctx, keep, maxBytes)
	if err != nil {
		return repoInput{}, err
	}
	spec.Path = r.Root()
	return repoInput{spec: spec, repo: r, head: head, files: files, skipped: skipped, digest: repoDigest(files)}, nil
}

// vaultFiles returns what of a repository rooted at root is the vault's:
// every path under the vault's folder when the vault is a folder of the
// repository, the Markdown files when the vault is its root, nothing when
// the vault is elsewhere. Those are notes, indexed once, as notes (review5
// F23: a bug note came back in must_read as a code file).
func vaultFiles(vault, root string) func(p string) bool {
	none := func(string) bool { return false }
	if vault == "" {
		return none
	}
	rv, err1 := filepath.EvalSymlinks(vault)
	rr, err2 := filepath.EvalSymlinks(root)
	if err1 != nil || err2 != nil {
		return none
	}
	rel, err := filepath.Rel(rr, rv)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return none
	}
	if rel == "." {
		return func(p string) bool { return strings.EqualFold(path.Ext(p), ".md") }
	}
	prefix := filepath.ToSlash(rel) + "/"
	return func(p string) bool { return strings.HasPrefix(p, prefix) }
}

func repoDigest(files []gitrepo.File) string {
	h := sha256.New()
	fmt.Fprintf(h, "reader %d\n", code.Revision)
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\n", f.Path, f.Blob)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// manifestRepo is what the manifest records of a repository read.
func (in repoInput) manifestRepo(symbols int) format.Repo {
	return format.Repo{Name: in.spec.Name, Root: in.spec.Path, Head: in.head, Include: in.spec.Include, Exclude: in.spec.Exclude,
		Files: len(in.files), Symbols: symbols, Digest: in.digest, Reader: code.Revision, Skipped: len(in.skipped)}
}

// sameRepos reports whether the repositories read are those parent
// recorded, with the same files, blobs and HEAD.
func sameRepos(parent []format.Repo, now []repoInput) bool {
	if len(parent) != len(now) {
		return false
	}
	for i, p := range parent {
		n := now[i]
		if p.Name != n.spec.Name || p.Root != n.spec.Path || p.Head != n.head || p.Digest != n.digest || p.Reader != code.Revision ||
			!slices.Equal(p.Include, n.spec.Include) || !slices.Equal(p.Exclude, n.spec.Exclude) {
			return false
		}
	}
	return true
}
