package store

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Vault is one named data directory and the store serving it.
type Vault struct {
	Name  string
	Store *Store
}

// Vaults are the vaults one server answers for, in the order given, one
// of them the default (the one requests that name no vault get). A Vaults
// is immutable and safe for concurrent use; it does not own the stores.
type Vaults struct {
	list []Vault
	def  int
}

var vaultName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidVaultName reports whether name can name a vault: letters, digits,
// '.', '-' and '_', starting with a letter or digit, at most 64 long (it
// appears in URLs, URIs and metric labels).
func ValidVaultName(name string) bool { return vaultName.MatchString(name) }

// VaultNameOf is the name a data directory gets when none is given: its
// folder's name, with characters a name cannot hold replaced by '-'.
func VaultNameOf(dataDir string) string {
	base := filepath.Base(filepath.Clean(dataDir))
	name := strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '.' || r == '-' || r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')) {
			return r
		}
		return '-'
	}, base)
	name = strings.TrimLeft(name, ".-_")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		return "vault"
	}
	return name
}

// NewVaults returns the set of list, whose names must be valid and
// distinct; defaultName names the default ("" for the first).
func NewVaults(list []Vault, defaultName string) (*Vaults, error) {
	if len(list) == 0 {
		return nil, fmt.Errorf("no vault to serve")
	}
	v := &Vaults{list: append([]Vault(nil), list...), def: -1}
	seen := map[string]bool{}
	for i, x := range v.list {
		if !ValidVaultName(x.Name) {
			return nil, fmt.Errorf("vault name %q: use letters, digits, '.', '-' and '_', starting with a letter or digit", x.Name)
		}
		if seen[x.Name] {
			return nil, fmt.Errorf("vault name %q given twice", x.Name)
		}
		seen[x.Name] = true
		if x.Name == defaultName {
			v.def = i
		}
	}
	switch {
	case defaultName == "":
		v.def = 0
	case v.def < 0:
		return nil, fmt.Errorf("default vault %q is none of the vaults served (%s)", defaultName, strings.Join(v.Names(), ", "))
	}
	return v, nil
}

// Single is the set of one store, named after its data directory.
func Single(st *Store) *Vaults {
	name := "vault"
	if st != nil {
		name = VaultNameOf(st.DataDir())
	}
	return &Vaults{list: []Vault{{Name: name, Store: st}}}
}

// Default returns the default vault.
func (v *Vaults) Default() Vault { return v.list[v.def] }

// All returns every vault, in order. The caller must not modify the slice.
func (v *Vaults) All() []Vault { return v.list }

// Len is the number of vaults.
func (v *Vaults) Len() int { return len(v.list) }

// Names returns the vaults' names, in order.
func (v *Vaults) Names() []string {
	names := make([]string, len(v.list))
	for i, x := range v.list {
		names[i] = x.Name
	}
	return names
}

// Lookup returns the vault named name, the default for "". The error
// names the vaults there are.
func (v *Vaults) Lookup(name string) (Vault, error) {
	if name == "" {
		return v.Default(), nil
	}
	for _, x := range v.list {
		if x.Name == name {
			return x, nil
		}
	}
	return Vault{}, fmt.Errorf("no vault named %q: this server serves %s", name, strings.Join(v.Names(), ", "))
}
