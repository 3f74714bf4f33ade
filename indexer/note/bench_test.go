package note

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
	"strings"
	"testing"
)

// realisticNote returns a note of about 8 KB shaped like a real project
// note: frontmatter with links and typed values, sections, lists with inline
// fields, tables, code, embeds and prose.
func realisticNote() string {
	var b strings.Builder
	b.WriteString(`---
title: Search Platform
aliases: [Search, "Project Search"]
tags: [project, search/infra]
type: Project
status: active
started: 2023-02-01
budget: 250000
owner: "[[Alice Smith]]"
related:
  - "[[Crawler]]"
  - [[Ranking]]
  - plain text
---
# Search Platform

The search platform indexes every document we own and serves queries in under 50 ms. #search

- depends_on:: [[Crawler]] {critical: true}
- contributes:: [[Ranking]] {hours: 120}
- funds:: [[Search]] {amount: 250000, currency: EUR}
- status:: green
- reviewed:: 2024-01-15

`)
	for i := range 8 {
		fmt.Fprintf(&b, "## Milestone %d\n\n", i+1)
		fmt.Fprintf(&b, "Milestone %d ships the [[Indexer#Shards|shard]] work with [[Bob Smith]] and [notes](../Meetings/Week%%20%d.md). ", i+1, i)
		b.WriteString("The team measured latency, throughput and recall against the baseline, and wrote the results up for review. ")
		b.WriteString("Open questions remain about caching, which [leads:: [[Carol]]] owns this quarter.\n\n")
		b.WriteString("| metric | value |\n|---|---|\n| p50 | 12 ms |\n| p99 | 48 ms |\n\n")
		b.WriteString("```go\nfunc query(q string) []Result {\n\t// [[NotALink]] #notatag\n\treturn nil\n}\n```\n\n")
		b.WriteString("> [!note] Review\n> Reviewed by [[Dave]] on 2024-01-0" + fmt.Sprint(i+1) + ". #review\n\n")
		b.WriteString("![[Latency chart.png]] ![[Design Doc#Summary]] `inline [[code]]` %% hidden [[comment]] %%\n\n")
	}
	return b.String()
}

func BenchmarkParse(b *testing.B) {
	note := []byte(realisticNote())
	b.SetBytes(int64(len(note)))
	b.ReportAllocs()
	for b.Loop() {
		Parse("Projects/Search Platform.md", note, Options{})
	}
}

// realisticSetextNote is realisticNote with its milestone headings written
// as setext headings (underlined with ---).
func realisticSetextNote() string {
	note := realisticNote()
	for i := range 8 {
		h := fmt.Sprintf("Milestone %d", i+1)
		note = strings.Replace(note, "## "+h+"\n", h+"\n"+strings.Repeat("-", len(h))+"\n", 1)
	}
	return note
}

func BenchmarkParseSetext(b *testing.B) {
	note := []byte(realisticSetextNote())
	b.SetBytes(int64(len(note)))
	b.ReportAllocs()
	for b.Loop() {
		Parse("Projects/Search Platform.md", note, Options{})
	}
}

func TestRealisticNote(t *testing.T) {
	in := realisticNote()
	if n := len(in); n < 5000 || n > 10000 {
		t.Fatalf("benchmark note is %d bytes, want 5-10 KB", n)
	}
	p := parseWith(t, "Projects/Search Platform.md", in, Options{})
	counts := map[string]int{}
	for _, l := range p.Links {
		counts[l.Origin+"/"+l.Type]++
	}
	want := map[string]int{
		"frontmatter/owner": 1, "frontmatter/related": 2,
		"field/depends_on": 1, "field/contributes": 1, "field/funds": 1, "field/leads": 8,
		// Per milestone: Indexer, Bob Smith, the meeting notes and Dave; one embed.
		"body/links_to": 8 * 4, "body/embeds": 8,
	}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d links, want %d (all: %v)", k, counts[k], v, counts)
		}
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings: %v", p.Warnings)
	}
	if d := cmp.Diff([]string{"project", "search/infra", "search", "review"}, p.Tags); d != "" {
		t.Errorf("tags (-want +got):\n%s", d)
	}
}
