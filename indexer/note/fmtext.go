package note

import "strings"

// texts returns the strings of a scalar or a list value, flattening the
// nested lists that unquoted [[links]] become, for keys whose values are
// names (aliases, tags, labels).
func texts(v value) []string {
	var out []string
	var walk func(x any, depth int)
	walk = func(x any, depth int) {
		switch y := x.(type) {
		case []any:
			if depth < 3 {
				for _, e := range y {
					walk(e, depth+1)
				}
			}
		case map[string]any, nil:
		default:
			if s := strings.TrimSpace(value{V: y}.text()); s != "" {
				out = append(out, s)
			}
		}
	}
	walk(v.V, 0)
	return out
}

// labelTexts returns the labels of a type value; a label written as a link
// ("[[Person]]") is the link's target.
func labelTexts(v value) []string {
	out := texts(v)
	for i, s := range out {
		if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
			if t, _, _, _ := parseWikilink(s[2 : len(s)-2]); t != "" {
				out[i] = t
			}
		}
	}
	return out
}

// splitTrim splits s on sep and drops empty, trimmed parts.
func splitTrim(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
