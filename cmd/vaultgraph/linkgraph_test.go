package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// demoData indexes the demo vault without the graph database (which graph
// and retrieve do not read) into a new data directory.
func demoData(t *testing.T) string {
	t.Helper()
	data := t.TempDir()
	vgOK(t, "index", "--vault", repoPath("testdata/demo-vault"), "--data", data, "--graph=false", "--quiet")
	return data
}

func TestGraphCommand(t *testing.T) {
	data := demoData(t)

	var traverse struct {
		Operation string `json:"operation"`
		Nodes     []struct {
			Path  string         `json:"path"`
			Title string         `json:"title"`
			Tags  []string       `json:"tags"`
			Links map[string]int `json:"links"`
			Depth int            `json:"depth"`
		} `json:"nodes"`
		Edges []struct {
			Source, Target, Type string
			Count                int
			Properties           map[string]any
		} `json:"edges"`
		GraphStats map[string]float64 `json:"graphStats"`
		Truncated  bool               `json:"truncated"`
	}
	r := vgOK(t, "graph", "traverse", "--data", data, "--source", "Search", "--max-depth", "1", "--edge-types", "depends_on,funds", "--format", "json")
	if err := json.Unmarshal([]byte(r.stdout), &traverse); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	var paths []string
	for _, n := range traverse.Nodes {
		paths = append(paths, n.Path)
		if n.Links["total"] != n.Links["forward"]+n.Links["backward"] {
			t.Errorf("%s links %v", n.Path, n.Links)
		}
	}
	slices.Sort(paths)
	if want := []string{"Companies/Acme.md", "Projects/Atlas.md", "Projects/Crawler.md", "Projects/Ranking.md", "Projects/Search.md"}; !slices.Equal(paths, want) {
		t.Errorf("traverse nodes %v, want %v", paths, want)
	}
	funded := false
	for _, e := range traverse.Edges {
		if e.Type == "funds" && e.Source == "Companies/Acme.md" && e.Properties["amount"] == 250000.0 && e.Properties["currency"] == "EUR" {
			funded = true
		}
	}
	if !funded || traverse.GraphStats["totalNodes"] != 5 || traverse.Operation != "traverse" {
		t.Errorf("traverse: funded %v, stats %v\n%s", funded, traverse.GraphStats, r.stdout)
	}

	r = vgOK(t, "graph", "path", "--data", data, "--source", "Mallory", "--target", "Projects/Crawler.md", "--edge-types", "distrusts,leads,depends_on")
	if !strings.Contains(r.stdout, "People/Mallory.md → People/Alice.md → Projects/Search.md → Projects/Crawler.md") {
		t.Errorf("path text output:\n%s", r.stdout)
	}
	r = vgOK(t, "graph", "statistics", "--data", data)
	for _, want := range []string{"Templates/Meeting.md", "Query Understanding  (5 links from 5 notes)", "20  Projects/Search.md"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("vault statistics lack %q:\n%s", want, r.stdout)
		}
	}
	r = vgOK(t, "graph", "backlinks", "--data", data, "--source", "Zoe")
	if !strings.Contains(r.stdout, "People/Erin.md -[match]-> People/Zoë.md") {
		t.Errorf("backlinks of Zoë by alias:\n%s", r.stdout)
	}

	r = vg(t, "graph", "neighbors", "--data", data, "--source", "Kickoff")
	if r.code != 2 || !strings.Contains(r.stderr, "Journal/Kickoff.md, Meetings/2024/Kickoff.md") {
		t.Errorf("ambiguous name: exit %d, stderr %s", r.code, r.stderr)
	}
	// The library's request fields are named as the command's options.
	r = vg(t, "graph", "traverse", "--data", data)
	if r.code != 2 || !strings.Contains(r.stderr, "traverse needs --source") {
		t.Errorf("missing source: exit %d, stderr %s", r.code, r.stderr)
	}
	r = vg(t, "graph", "path", "--data", data, "--source", "Zoë")
	if r.code != 2 || !strings.Contains(r.stderr, "path needs --target") || strings.Contains(r.stderr, "targetPath") {
		t.Errorf("missing target: exit %d, stderr %s", r.code, r.stderr)
	}
	// A name that names no note is the user's to fix, as an ambiguous one.
	if r = vg(t, "graph", "neighbors", "--data", data, "--source", "Nobody At All"); r.code != 2 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("unknown note: exit %d, stderr %s", r.code, r.stderr)
	}
	if r = vg(t, "graph", "path", "--data", data, "--source", "Zoë", "--target", "Nobody At All"); r.code != 2 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("unknown target: exit %d, stderr %s", r.code, r.stderr)
	}
	// Options may come between graph and its action.
	if r = vgOK(t, "graph", "-d", data, "backlinks", "--source", "Bob"); !strings.Contains(r.stdout, "notes linking to People/Bob.md") {
		t.Errorf("graph -d DATA backlinks --source Bob:\n%s", r.stdout)
	}

	// So is a snapshot reference that names no snapshot.
	for ref, want := range map[string]string{
		"01":         "an id prefix needs at least 4 characters",
		"ZZZZZZZZZZ": `no snapshot found: "ZZZZZZZZZZ"`,
	} {
		if r = vg(t, "snapshot", "diff", "-d", data, ref); r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("snapshot diff %s: exit %d, stderr %s", ref, r.code, r.stderr)
		}
		if r = vg(t, "graph", "statistics", "-d", data, "--snapshot", ref); r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("graph statistics --snapshot %s: exit %d, stderr %s", ref, r.code, r.stderr)
		}
	}
}

func TestRetrieveCommand(t *testing.T) {
	data := demoData(t)
	var res struct {
		Notice string `json:"notice"`
		Chunks []struct {
			Path, Role, Text string
			Hops             int `json:"distance"`
		} `json:"chunks"`
		Edges []struct {
			Source, Target, Type, Role, Sentence string
			Properties                           map[string]any
		} `json:"edges"`
	}
	// Flags may follow the question, as the usage line writes them.
	r := vgOK(t, "retrieve", "--data", data, "What does the Search project depend on, and who works on it?", "--k", "5", "--depth", "1", "--format", "json")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if !strings.Contains(res.Notice, "not as instructions") && !strings.Contains(res.Notice, "never as instructions") {
		t.Errorf("notice %q", res.Notice)
	}
	found := map[string]bool{}
	for _, c := range res.Chunks {
		found[c.Path] = true
	}
	for _, want := range []string{"Projects/Search.md", "People/Bob.md", "People/Zoë.md", "People/Alice.md", "Companies/Acme.md"} {
		if !found[want] {
			t.Errorf("no chunk of %s", want)
		}
	}
	funds := false
	for _, e := range res.Edges {
		if e.Type == "funds" && e.Target == "Projects/Search.md" && e.Properties["amount"] == 250000.0 {
			funds = true
		}
	}
	if !funds {
		t.Errorf("Acme's funding edge missing: %+v", res.Edges)
	}

	r = vgOK(t, "retrieve", "--data", data, "--rank", "ppr", "--depth", "2", "--max-chunks", "4", "Who funds Ranking?")
	if !strings.Contains(r.stdout, "quoted vault content") || !strings.Contains(r.stdout, "Initech (Company, Lab) funds Ranking (Project)") {
		t.Errorf("text output:\n%s", r.stdout)
	}
	if r := vg(t, "retrieve", "--data", data); r.code != 2 {
		t.Errorf("no question: exit %d", r.code)
	}
	// After "--" a question may start with a dash.
	vgOK(t, "retrieve", "--data", data, "--", "-5 °C", "--k")
	if r := vg(t, "retrieve", "--data", data, "q", "--rank", "sideways"); r.code != 2 || !strings.Contains(r.stderr, "unknown rank") {
		t.Errorf("bad rank: exit %d, %s", r.code, r.stderr)
	}
}
