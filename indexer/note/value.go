package note

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// value is a typed property value before it is encoded: Kind is one of the
// format.Kind* constants and V a JSON-encodable Go value of that kind
// (string, int64, float64, bool, []any, map[string]any or nil). Dates and
// date-times are already strings in their final form.
type value struct {
	Kind string
	V    any
}

var nullValue = value{Kind: format.KindNull}

// Date-time layouts accepted in unquoted frontmatter strings and inline field
// values, besides the timestamps YAML resolves itself. Obsidian's "Date &
// time" property writes the minute form.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
}

// parseDateTime recognises a date-only string (KindDate, normalised to
// YYYY-MM-DD) or a date with a time (KindDateTime, RFC 3339; a time without
// zone is taken as UTC).
func parseDateTime(s string) (value, bool) {
	if len(s) < 10 || len(s) > 40 || s[4] != '-' {
		return value{}, false
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return value{Kind: format.KindDate, V: t.Format("2006-01-02")}, true
	}
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return dateTimeValue(t), true
		}
	}
	return value{}, false
}

// dateTimeValue types an instant; RFC 3339 keeps its zone offset.
func dateTimeValue(t time.Time) value {
	return value{Kind: format.KindDateTime, V: t.Format(time.RFC3339Nano)}
}

// floatValue keeps NaN and infinities, which JSON cannot encode, as the
// text the author wrote.
func floatValue(f float64, text string) value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return value{Kind: format.KindString, V: text}
	}
	return value{Kind: format.KindFloat, V: f}
}

// inferValue types an inline field value the way Dataview does for the kinds
// vaultgraph stores: empty is null, then bool, int, float, date, date-time,
// and anything else is a string.
func inferValue(s string) value {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return nullValue
	case strings.EqualFold(s, "true"):
		return value{Kind: format.KindBool, V: true}
	case strings.EqualFold(s, "false"):
		return value{Kind: format.KindBool, V: false}
	}
	if looksNumeric(s) {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return value{Kind: format.KindInt, V: n}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return floatValue(f, s)
		}
	}
	if v, ok := parseDateTime(s); ok {
		return v
	}
	return value{Kind: format.KindString, V: s}
}

// looksNumeric keeps strconv from accepting words such as "Inf", "NaN" or
// hexadecimal forms that no author means as numbers in prose.
func looksNumeric(s string) bool {
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' || c == 'e' || c == 'E':
		case (c == '-' || c == '+') && (i == 0 || s[i-1] == 'e' || s[i-1] == 'E'):
		default:
			return false
		}
	}
	return digits > 0
}

// text renders a value for labels, aliases and tags, which are strings
// whatever YAML typed them as.
func (v value) text() string {
	switch x := v.V.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}

// encode turns v into a format.Property. Values built by this package always
// encode; should one not, it is kept as its text rather than dropped.
func (v value) encode(key string) format.Property {
	p, err := format.NewProperty(key, v.Kind, v.V)
	if err != nil {
		p, _ = format.NewProperty(key, format.KindString, v.text())
	}
	return p
}
