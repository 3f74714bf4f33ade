package schedule

import (
	"bytes"
	"encoding/xml"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

var job = Job{
	Name:        "vaultgraph-index",
	Description: "vaultgraph: re-index the vault at /home/me/My Vault (100% local)",
	Command:     []string{"/usr/local/bin/vaultgraph", "--log-level", "warn", "index", "--vault", "/home/me/My Vault", "--data", "/home/me/.local/share/vaultgraph", "--quiet", "--wait", "0s", "--ignore", `$HOME\x "q"`},
	Env:         []string{"OLLAMA_HOST=http://127.0.0.1:11434", "NOTE=a b"},
	EnvFile:     "/home/me/.config/vaultgraph/env",
	Every:       15 * time.Minute,
	LogPath:     "/Users/me/Library/Logs/vaultgraph-index.log",
}

// parseUnit reads a unit file into section -> key -> values.
func parseUnit(t *testing.T, b []byte) map[string]map[string][]string {
	t.Helper()
	out := map[string]map[string][]string{}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			out[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("bad unit line %q", line)
			}
			out[section][k] = append(out[section][k], v)
		}
	}
	return out
}

// splitExec undoes execLine's quoting the way systemd does.
func splitExec(s string) []string {
	var args []string
	var cur strings.Builder
	inQuote, started := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && inQuote && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case c == '"':
			inQuote, started = !inQuote, true
		case c == ' ' && !inQuote:
			if started {
				args = append(args, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if started {
		args = append(args, cur.String())
	}
	for i := range args {
		args[i] = strings.ReplaceAll(strings.ReplaceAll(args[i], "%%", "%"), "$$", "$")
	}
	return args
}

func TestSystemd(t *testing.T) {
	u, err := Systemd(job)
	if err != nil {
		t.Fatal(err)
	}
	if u.ServiceName != "vaultgraph-index.service" || u.TimerName != "vaultgraph-index.timer" {
		t.Errorf("names %s %s", u.ServiceName, u.TimerName)
	}
	svc := parseUnit(t, u.Service)
	s := svc["Service"]
	for k, want := range map[string]string{"Type": "oneshot", "Nice": "19", "IOSchedulingClass": "idle", "SuccessExitStatus": "75", "EnvironmentFile": job.EnvFile} {
		if got := s[k]; len(got) != 1 || got[0] != want {
			t.Errorf("[Service] %s = %v, want %s", k, got, want)
		}
	}
	if got := splitExec(s["ExecStart"][0]); !slices.Equal(got, job.Command) {
		t.Errorf("ExecStart splits to %q,\nwant %q", got, job.Command)
	}
	if got := s["Environment"]; len(got) != 2 || got[1] != `"NOTE=a b"` {
		t.Errorf("Environment = %v", got)
	}
	if !strings.Contains(svc["Unit"]["Description"][0], "100%% local") {
		t.Errorf("Description does not escape %%: %v", svc["Unit"]["Description"])
	}
	tm := parseUnit(t, u.Timer)
	for k, want := range map[string]string{"OnUnitInactiveSec": "15min", "OnActiveSec": "1min", "Unit": "vaultgraph-index.service"} {
		if got := tm["Timer"][k]; len(got) != 1 || got[0] != want {
			t.Errorf("[Timer] %s = %v, want %s", k, got, want)
		}
	}
	if tm["Install"]["WantedBy"][0] != "timers.target" {
		t.Errorf("timer not wanted by timers.target")
	}
}

func TestTimespan(t *testing.T) {
	for d, want := range map[time.Duration]string{15 * time.Minute: "15min", time.Hour: "1h", 90 * time.Second: "90s", 48 * time.Hour: "2d", 36 * time.Hour: "36h"} {
		if got := timespan(d); got != want {
			t.Errorf("timespan(%v) = %s, want %s", d, got, want)
		}
	}
}

// plistValue is a decoded property-list value.
type plistValue struct {
	kind  string
	text  string
	items []plistValue
	dict  map[string]plistValue
}

// decodePlist is a strict reader of the plist subset Launchd writes.
func decodePlist(t *testing.T, b []byte) plistValue {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	var root plistValue
	var read func(start xml.StartElement) plistValue
	read = func(start xml.StartElement) plistValue {
		v := plistValue{kind: start.Name.Local}
		var key string
		for {
			tok, err := d.Token()
			if err != nil {
				t.Fatalf("plist: %v", err)
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				if v.kind == "dict" && tok.Name.Local == "key" {
					var k struct {
						V string `xml:",chardata"`
					}
					d.DecodeElement(&k, &tok)
					key = k.V
					continue
				}
				child := read(tok)
				switch v.kind {
				case "dict":
					if v.dict == nil {
						v.dict = map[string]plistValue{}
					}
					if _, dup := v.dict[key]; dup || key == "" {
						t.Fatalf("plist: duplicate or missing key %q", key)
					}
					v.dict[key] = child
					key = ""
				default:
					v.items = append(v.items, child)
				}
			case xml.CharData:
				v.text += string(tok)
			case xml.EndElement:
				v.text = strings.TrimSpace(v.text)
				return v
			}
		}
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("plist is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "plist" {
			root = read(se)
		}
	}
	if len(root.items) != 1 || root.items[0].kind != "dict" {
		t.Fatalf("plist root holds %+v, want one dict", root.items)
	}
	return root.items[0]
}

func TestLaunchd(t *testing.T) {
	b, err := Launchd(job)
	if err != nil {
		t.Fatal(err)
	}
	top := decodePlist(t, b).dict
	if top["Label"].text != job.Name {
		t.Errorf("Label = %q", top["Label"].text)
	}
	var args []string
	for _, a := range top["ProgramArguments"].items {
		args = append(args, a.text)
	}
	if !slices.Equal(args, job.Command) {
		t.Errorf("ProgramArguments = %q, want %q", args, job.Command)
	}
	for k, want := range map[string]string{"StartInterval": "integer:900", "RunAtLoad": "true:", "LowPriorityIO": "true:", "Nice": "integer:10", "ProcessType": "string:Background", "StandardErrorPath": "string:" + job.LogPath} {
		if got := top[k].kind + ":" + top[k].text; got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	if env := top["EnvironmentVariables"].dict; env["OLLAMA_HOST"].text != "http://127.0.0.1:11434" || env["NOTE"].text != "a b" {
		t.Errorf("EnvironmentVariables = %+v", env)
	}
	// Where Python is installed, its plist parser must accept the file too.
	if py, err := exec.LookPath("python3"); err == nil {
		cmd := exec.Command(py, "-c", "import plistlib,sys; d=plistlib.loads(sys.stdin.buffer.read()); assert d['StartInterval']==900 and d['RunAtLoad'] is True, d")
		cmd.Stdin = bytes.NewReader(b)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("plistlib rejects the plist: %v\n%s", err, out)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []Job{
		{Name: "x", Command: []string{"vaultgraph"}, Every: time.Hour, LogPath: "/l"},
		{Name: "x", Command: []string{"/bin/vg"}, Every: time.Second, LogPath: "/l"},
		{Name: "a b", Command: []string{"/bin/vg"}, Every: time.Hour, LogPath: "/l"},
		{Name: "x", Command: []string{"/bin/vg", "a\nb"}, Every: time.Hour, LogPath: "/l"},
		{Name: "x", Command: []string{"/bin/vg"}, Env: []string{"1X=2"}, Every: time.Hour, LogPath: "/l"},
	}
	for _, j := range bad {
		if _, err := Systemd(j); err == nil {
			t.Errorf("Systemd accepted %+v", j)
		}
		if _, err := Launchd(j); err == nil {
			t.Errorf("Launchd accepted %+v", j)
		}
	}
}

// TestNameSuffix: a --name written as the unit's file name names the
// units, not NAME.service.service.
func TestNameSuffix(t *testing.T) {
	for _, name := range []string{"vg", "vg.service", "vg.timer"} {
		j := job
		j.Name = name
		u, err := Systemd(j)
		if err != nil {
			t.Fatal(err)
		}
		if u.ServiceName != "vg.service" || u.TimerName != "vg.timer" || !bytes.Contains(u.Timer, []byte("Unit=vg.service\n")) {
			t.Errorf("--name %s: units %s, %s:\n%s", name, u.ServiceName, u.TimerName, u.Timer)
		}
	}
	j := job
	j.Name = "com.example.vg.plist"
	b, err := Launchd(j)
	if err != nil {
		t.Fatal(err)
	}
	if got := decodePlist(t, b).dict["Label"].text; got != "com.example.vg" {
		t.Errorf("Label = %q", got)
	}
	j.Name = ".service"
	if _, err := Systemd(j); err == nil {
		t.Error("Systemd accepted the name .service")
	}
}

// TestLineBreakReportedOnce: a vault path with a line break is in the
// command and in the description; the error names it once, in one line.
func TestLineBreakReportedOnce(t *testing.T) {
	j := job
	vault := "/home/me/My\nVault"
	j.Command = []string{"/usr/local/bin/vaultgraph", "index", "--vault", vault}
	j.Description = "vaultgraph: re-index the vault " + vault
	_, err := Systemd(j)
	if err == nil {
		t.Fatal("Systemd accepted a line break")
	}
	if msg := err.Error(); strings.Count(msg, "\n") != 0 || strings.Count(msg, `My\nVault`) != 1 || strings.Contains(msg, "re-index") {
		t.Errorf("error = %q, want the path once, on one line", msg)
	}
	j.Env = []string{"A=1\n2"}
	if _, err := Launchd(j); err == nil || !strings.Contains(err.Error(), `"A=1\n2"`) || strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("two values with line breaks: %v", err)
	}
}
