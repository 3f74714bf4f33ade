package note

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"gopkg.in/yaml.v3"
)

// errAliasBudget reports a YAML document whose aliases expand past
// aliasBudget.
var errAliasBudget = errors.New("aliases expand past the limit")

// fieldLinks returns the note links of an inline field's value and the
// properties block that follows them. The block starts at the first '{'
// after the first note link that is not inside a link, and runs to the end
// of the value; links after it belong to the block's text.
func fieldLinks(s string, f inlineField, tokens []linkToken) (links []linkToken, block string) {
	cursor := -1
	for _, t := range tokens {
		if t.start < f.valStart || t.end > f.valEnd {
			continue
		}
		if cursor >= 0 && strings.IndexByte(s[cursor:t.start], '{') >= 0 {
			break
		}
		if t.note {
			links = append(links, t)
			cursor = t.end
		}
	}
	if cursor < 0 {
		return nil, ""
	}
	if j := strings.IndexByte(s[cursor:f.valEnd], '{'); j >= 0 {
		block = strings.TrimSpace(s[cursor+j : f.valEnd])
	}
	return links, block
}

// edgeProperties parses a "{key: value, ...}" block as a YAML flow mapping
// into properties typed like frontmatter values, in written order.
func edgeProperties(block string) ([]format.Property, error) {
	if !strings.HasSuffix(block, "}") {
		return nil, errors.New("properties block does not end with '}'")
	}
	var doc yaml.Node
	if err := unmarshalYAML(block, &doc); err != nil {
		return nil, err
	}
	var w yamlWalker
	m, ok := w.resolve(&doc, 0)
	if !ok || m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("properties block %q is not a map", shorten(block, 40))
	}
	var props []format.Property
	seen := make(map[string]bool)
	for _, kv := range w.pairs(m, 0, false) {
		key := strings.TrimSpace(w.value(kv[0], 1, false).text())
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		props = append(props, w.value(kv[1], 1, false).encode(key))
	}
	if w.exceeded {
		return nil, errAliasBudget
	}
	return props, nil
}

// unmarshalYAML parses YAML text into a node tree. yaml.v3 has panicked on
// crafted input in the past; a note must never stop the indexer, so a panic
// becomes an error here.
func unmarshalYAML(text string, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml parser failed: %v", r)
		}
	}()
	return yaml.Unmarshal([]byte(text), n)
}
