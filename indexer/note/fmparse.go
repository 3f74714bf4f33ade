package note

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"gopkg.in/yaml.v3"
)

// frontmatter is what a note's YAML block says.
type frontmatter struct {
	title    string
	aliases  uniqueList
	tags     uniqueList
	types    []string // labels from "type"
	types2   []string // labels from "types", which come after
	props    propertyList
	links    []format.Link
	warnings []format.Warning
}

// fmReader reads one frontmatter block.
type fmReader struct {
	fm       frontmatter
	w        yamlWalker
	block    frontmatterBlock
	notePath string
	folder   string
}

// parseFrontmatter reads the keys of a frontmatter block. Invalid YAML, a
// block that is not a map and an alias bomb yield a warning and no values.
func parseFrontmatter(b frontmatterBlock, notePath string) frontmatter {
	r := &fmReader{block: b, notePath: notePath, folder: format.NoteFolder(notePath)}
	r.fm.tags.fold = true
	if strings.TrimSpace(b.yaml) == "" {
		return r.fm
	}
	var doc yaml.Node
	if err := unmarshalYAML(b.yaml, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		return frontmatter{warnings: []format.Warning{r.warning(line, format.WarnInvalidYAML, "invalid frontmatter YAML: "+msg)}}
	}
	root, ok := r.w.resolve(&doc, 0)
	if !ok || root.Kind == 0 || (root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null") {
		return r.fm // only comments, or an empty document
	}
	if root.Kind != yaml.MappingNode {
		return frontmatter{warnings: []format.Warning{r.warning(root.Line, format.WarnInvalidYAML, "frontmatter is not a map of keys")}}
	}
	r.readKeys(root)
	if r.w.exceeded {
		msg := fmt.Sprintf("frontmatter aliases expand past %d nodes; its values are ignored", aliasBudget)
		return frontmatter{warnings: []format.Warning{r.warning(0, format.WarnYAMLAliasBomb, msg)}}
	}
	return r.fm
}

// readKeys dispatches every key of the frontmatter map in written order.
func (r *fmReader) readKeys(root *yaml.Node) {
	seen := make(map[string]bool)
	for _, kv := range r.w.pairs(root, 0, false) {
		key := strings.TrimSpace(r.w.value(kv[0], 1, false).text())
		if r.w.exceeded {
			return
		}
		if key == "" {
			continue // a null or empty key names no property and no edge type
		}
		if seen[key] {
			r.fm.warnings = append(r.fm.warnings, r.warning(kv[0].Line, format.WarnInvalidYAML,
				fmt.Sprintf("duplicate frontmatter key %q; the first value is kept", key)))
			continue
		}
		seen[key] = true
		r.readKey(key, kv[1])
	}
}

// readKey handles one key: the few Obsidian gives a meaning to (matched
// without case, as Obsidian does), and every other key as a link or a
// property.
func (r *fmReader) readKey(key string, n *yaml.Node) {
	switch strings.ToLower(key) {
	case "title":
		if v := r.w.value(n, 1, false); v.Kind != format.KindList && v.Kind != format.KindMap {
			r.fm.title = strings.TrimSpace(v.text())
		}
	case "aliases", "alias":
		// A string is a comma-separated list; list items are kept whole
		// ("Smith, Jr.").
		v := r.w.value(n, 1, false)
		if s, ok := v.V.(string); ok {
			r.fm.aliases.add(splitTrim(s, ",")...)
		} else {
			r.fm.aliases.add(texts(v)...)
		}
	case "tags", "tag":
		for _, s := range texts(r.w.value(n, 1, false)) {
			r.fm.tags.add(splitTags(s)...)
		}
	case "type":
		// Labels, and a property as written (n.type), as the Typed Graph
		// plugin keeps it.
		v := r.w.value(n, 1, false)
		r.fm.types = append(r.fm.types, labelTexts(v)...)
		r.fm.props.set(key, v)
	case "types":
		v := r.w.value(n, 1, false)
		r.fm.types2 = append(r.fm.types2, labelTexts(v)...)
		r.fm.props.set(key, v)
	default:
		r.readValue(key, n)
	}
}

// readValue turns a value that is a link, or a list holding links, into
// typed edges named after the key; what is not a link stays a property.
func (r *fmReader) readValue(key string, n *yaml.Node) {
	node, ok := r.w.resolve(n, 1)
	if !ok {
		return
	}
	if links := r.nodeLinks(key, node); links != nil {
		r.fm.links = append(r.fm.links, links...)
		return
	}
	if node.Kind != yaml.SequenceNode {
		r.fm.props.set(key, r.w.value(n, 1, false))
		return
	}
	var rest []any
	found := false
	for _, item := range node.Content {
		it, ok := r.w.resolve(item, 2)
		if !ok {
			continue
		}
		if links := r.nodeLinks(key, it); links != nil {
			r.fm.links = append(r.fm.links, links...)
			found = true
			continue
		}
		rest = append(rest, r.w.value(item, 2, false).V)
	}
	switch {
	case !found:
		r.fm.props.set(key, r.w.value(n, 1, false))
	case len(rest) > 0:
		r.fm.props.set(key, value{Kind: format.KindList, V: rest})
	}
}

// nodeLinks returns the links a single value stands for: a string made only
// of links ("[[Acme]]", "[[A]], [[B]]", "[Acme](acme.md)"), or the unquoted
// [[Parent]] that YAML reads as a list holding a list. nil if it is not one.
func (r *fmReader) nodeLinks(key string, n *yaml.Node) []format.Link {
	text, ok := "", false
	switch n.Kind {
	case yaml.ScalarNode:
		text, ok = n.Value, n.ShortTag() == "!!str"
	case yaml.SequenceNode:
		text, ok = bareWikilink(n)
	}
	if !ok {
		return nil
	}
	tokens := linkValue(text, r.folder)
	if tokens == nil {
		return nil
	}
	links := make([]format.Link, 0, len(tokens))
	for _, t := range tokens {
		links = append(links, t.typedLink(r.notePath, key, format.OriginFrontmatter, 1, nil, "", r.fileLine(n.Line)))
	}
	return links
}

// bareWikilink recognises [[X]] written without quotes: a flow list holding
// one flow list holding one scalar. It returns "[[X]]".
func bareWikilink(n *yaml.Node) (string, bool) {
	if n.Style&yaml.FlowStyle == 0 || len(n.Content) != 1 {
		return "", false
	}
	inner := n.Content[0]
	if inner.Kind != yaml.SequenceNode || inner.Style&yaml.FlowStyle == 0 || len(inner.Content) != 1 {
		return "", false
	}
	if s := inner.Content[0]; s.Kind == yaml.ScalarNode && s.Value != "" {
		return "[[" + s.Value + "]]", true
	}
	return "", false
}

// linkValue returns the links of a string that holds nothing but note
// links separated by commas and spaces; nil otherwise.
func linkValue(s, folder string) []linkToken {
	tokens := scanLinks(s, folder, pairBrackets(s))
	if len(tokens) == 0 {
		return nil
	}
	prev := 0
	for _, t := range tokens {
		if !t.note || strings.Trim(s[prev:t.start], ", \t\r\n") != "" {
			return nil
		}
		prev = t.end
	}
	if strings.Trim(s[prev:], ", \t\r\n") != "" {
		return nil
	}
	return tokens
}

// fileLine turns a line of the YAML text into a line of the note.
func (r *fmReader) fileLine(yamlLine int) int {
	return r.block.firstLine + yamlLine
}

func (r *fmReader) warning(yamlLine int, kind, msg string) format.Warning {
	return format.Warning{File: r.notePath, Line: r.fileLine(yamlLine), Kind: kind, Message: msg}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlErrorLine splits yaml.v3's "yaml: line N: message" into N and the
// message; errors without a line report line 0 (the opening fence).
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, msg[len(m[0]):]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}
