package note

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInlineTags(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"simple", "#tag", []string{"tag"}},
		{"nested", "a #project/search b", []string{"project/search"}},
		{"after punctuation that allows it", "(#a) x,#b", []string{"a", "b"}},
		{"unicode", "#café #日本 #emoji🚀", []string{"café", "日本", "emoji🚀"}},
		{"underscore and dash", "#snake_case #kebab-case", []string{"snake_case", "kebab-case"}},
		{"ends at punctuation", "#tag. #other!", []string{"tag", "other"}},
		{"symbols and CJK punctuation belong to a tag", "#a→b #日本語。次 #Bob#Alice", []string{"a→b", "日本語。次", "Bob"}},
		{"ends at general punctuation", "#a…b #c–d #e’s #f\u200bg", []string{"a", "c", "e", "f"}},
		{"ends at supplemental punctuation", "#a⸮b", []string{"a"}},
		{"ends at ASCII punctuation Obsidian excludes", "#a'b #c\"d #e$f #g=h #i@j #k\\l", []string{"a", "c", "e", "g", "i", "k"}},
		{"ends at any space", "#a\u00a0b #c\u3000d", []string{"a", "c"}},
		{"keeps other non-ASCII punctuation", "#¿qué? #«x» #，y", []string{"¿qué", "«x»", "，y"}},
		{"prices are not math", "costs $5 and $10 #t", []string{"t"}},
		{"trailing slash dropped", "#a/ x", []string{"a"}},
		{"deduplicated without case, first spelling kept", "#AI #ai #Ai", []string{"AI"}},
		{"in a heading", "## Title #tag", []string{"tag"}},
		{"in a list", "- [ ] task #todo", []string{"todo"}},
		{"digits with a letter", "#y1984 #1a", []string{"y1984", "1a"}},
		{"numbers are not tags", "#1984 #2024/01 #-", nil},
		{"headings are not tags", "# Title\n## Sub", nil},
		{"no boundary", "a#b c##d", nil},
		{"url fragment", "https://example.com/page#section http://x.io/#frag", nil},
		{"markdown anchor link", "[x](#heading) [y](Note.md#part)", nil},
		{"wikilink anchor", "[[Note#Heading]] [[#Self]]", nil},
		{"link text is not scanned", "[#notatag](Note.md)", nil},
		{"hash alone", "# \n#", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, parse(t, tc.in).Tags); d != "" {
				t.Errorf("tags (-want +got):\n%s", d)
			}
		})
	}
}
