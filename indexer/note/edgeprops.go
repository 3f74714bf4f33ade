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
	doc, ok := simpleFlowMap(block)
	if !ok {
		doc = &yaml.Node{}
		if err := unmarshalYAML(block, doc); err != nil {
			return nil, err
		}
	}
	var w yamlWalker
	m, ok := w.resolve(doc, 0)
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

// simpleFlowMap returns the node tree yaml.v3 parses block into when the
// block is a flow mapping of the simplest kind, "{key: value, ...}" on one
// line with plain keys and values made of letters, digits and a few
// punctuation marks (most edge properties: {critical: true}, {weight: 0.5}),
// without the cost of a YAML parser (a fifth of the time to parse the
// generated vault's notes went to parsing these). Anything else is
// reported not ok and left to yaml.v3. The tree is the parser's but for
// positions, which edgeProperties does not read.
func simpleFlowMap(block string) (*yaml.Node, bool) {
	if len(block) < 2 || block[0] != '{' || block[len(block)-1] != '}' {
		return nil, false
	}
	inner := block[1 : len(block)-1]
	for i := 0; i < len(inner); i++ {
		if !simpleFlowByte(inner[i]) {
			return nil, false
		}
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
	for entry := range strings.SplitSeq(inner, ",") {
		entry = strings.Trim(entry, " ")
		k := strings.IndexByte(entry, ':')
		if k <= 0 || k+1 >= len(entry) || entry[k+1] != ' ' {
			return nil, false
		}
		key, val := entry[:k], strings.TrimLeft(entry[k+2:], " ")
		if !simpleFlowKey(key) || !simpleFlowValue(val) {
			return nil, false
		}
		for i := 0; i < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return nil, false // yaml.v3's to judge
			}
		}
		m.Content = append(m.Content, plainScalar(key), plainScalar(val))
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}}, true
}

// plainScalar is a plain scalar node with the tag yaml.v3 resolves for it.
func plainScalar(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
	n.Tag = n.ShortTag()
	return n
}

func simpleFlowByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(" _-.,:+/", c) >= 0
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// simpleFlowKey: a letter, then letters, digits, '_' and '-'.
func simpleFlowKey(k string) bool {
	if !('a' <= k[0] && k[0] <= 'z' || 'A' <= k[0] && k[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(k); i++ {
		if !isAlnum(k[i]) && k[i] != '_' && k[i] != '-' {
			return false
		}
	}
	return true
}

// simpleFlowValue: not empty, starting with a letter or digit (or a sign
// or point before a digit), single spaces between words, no space at the
// end, and every ':' followed by a letter or digit.
func simpleFlowValue(v string) bool {
	if v == "" || v[len(v)-1] == ' ' {
		return false
	}
	if !isAlnum(v[0]) && !(len(v) > 1 && strings.IndexByte("+-.", v[0]) >= 0 && '0' <= v[1] && v[1] <= '9') {
		return false
	}
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case ' ':
			if v[i-1] == ' ' {
				return false
			}
		case ':':
			if i+1 >= len(v) || !isAlnum(v[i+1]) {
				return false
			}
		}
	}
	return true
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
