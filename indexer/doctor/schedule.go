package doctor

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// unit is a timer or agent written by vaultgraph schedule that indexes
// the data directory being checked.
type unit struct {
	kind    string // "systemd-user", "systemd-system" or "launchd"
	name    string // unit name without suffix, or launchd label
	path    string
	timerOK bool // systemd: the .timer file exists beside the .service
}

// checkSchedule: a timer or launchd agent runs index for this data
// directory, it is active, and its last run succeeded.
func (st *state) checkSchedule(ctx context.Context) Check {
	c := Check{Name: "schedule"}
	units := st.findUnits()
	if len(units) == 0 {
		c.Status, c.Summary = Info, "no timer or launchd agent written by vaultgraph schedule indexes this data directory; snapshots are made only when you run index"
		c.Fix = "vaultgraph schedule systemd (or launchd) --vault VAULT --data " + st.cfg.Data + " prints one, with how to install it"
		return c
	}
	u := units[0]
	for _, other := range units[1:] {
		c.Details = append(c.Details, "also: "+other.path)
	}
	switch u.kind {
	case "launchd":
		return st.askLaunchd(ctx, c, u)
	default:
		return st.askSystemd(ctx, c, u)
	}
}

func (st *state) findUnits() []unit {
	var out []unit
	scan := func(dir, kind, suffix string) {
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if de.IsDir() || !strings.HasSuffix(de.Name(), suffix) {
				continue
			}
			p := filepath.Join(dir, de.Name())
			b, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(b), "written by vaultgraph schedule") {
				continue
			}
			var args []string
			if kind == "launchd" {
				args = plistArguments(b)
			} else {
				args = execStart(string(b))
			}
			if !samePath(dataArg(args), st.cfg.Data) {
				continue
			}
			name := strings.TrimSuffix(de.Name(), suffix)
			u := unit{kind: kind, name: name, path: p}
			if kind != "launchd" {
				_, err := os.Stat(filepath.Join(dir, name+".timer"))
				u.timerOK = err == nil
			}
			out = append(out, u)
		}
	}
	if st.cfg.ConfigHome != "" {
		scan(filepath.Join(st.cfg.ConfigHome, "systemd", "user"), "systemd-user", ".service")
	}
	scan(st.cfg.SystemUnitDir, "systemd-system", ".service")
	if st.cfg.Home != "" {
		scan(filepath.Join(st.cfg.Home, "Library", "LaunchAgents"), "launchd", ".plist")
	}
	return out
}

func (st *state) askSystemd(ctx context.Context, c Check, u unit) Check {
	scope := []string{"--user"}
	ctl := "systemctl --user"
	if u.kind == "systemd-system" {
		scope, ctl = nil, "systemctl"
	}
	if !u.timerOK {
		return fail(c, fmt.Sprintf("%s is installed without its timer, so nothing starts it", u.path),
			"vaultgraph schedule systemd --out "+filepath.Dir(u.path)+" writes both; then "+ctl+" enable --now "+u.name+".timer")
	}
	timer, err := st.systemctlShow(ctx, scope, u.name+".timer", "ActiveState", "LastTriggerUSec", "NextElapseUSecRealtime")
	if err != nil {
		c.Status, c.Summary = Warn, fmt.Sprintf("%s.timer is installed (%s), but systemd could not be asked: %v", u.name, filepath.Dir(u.path), err)
		c.Fix = "run " + ctl + " status " + u.name + ".timer where systemd runs"
		return c
	}
	if timer["ActiveState"] != "active" {
		return fail(c, fmt.Sprintf("%s.timer is installed but %s: no index runs happen", u.name, orUnknown(timer["ActiveState"])),
			ctl+" enable --now "+u.name+".timer")
	}
	svc, err := st.systemctlShow(ctx, scope, u.name+".service", "Result", "ExecMainStatus", "ExecMainExitTimestamp")
	if err != nil {
		c.Status, c.Summary = Warn, fmt.Sprintf("%s.timer is active, but its service could not be asked: %v", u.name, err)
		return c
	}
	last := orUnknown(svc["ExecMainExitTimestamp"])
	next := orUnknown(timer["NextElapseUSecRealtime"])
	code, _ := strconv.Atoi(svc["ExecMainStatus"])
	if svc["ExecMainExitTimestamp"] == "" {
		c.Status, c.Summary = OK, fmt.Sprintf("%s.timer is active; no run has finished yet; next run %s", u.name, next)
		return c
	}
	if svc["Result"] != "success" && code != 75 {
		return fail(c, fmt.Sprintf("%s.timer is active, but the last run (%s) exited %d (%s)", u.name, last, code, orUnknown(svc["Result"])),
			"journalctl "+strings.Join(scope, " ")+" -u "+u.name+".service says why")
	}
	c.Status, c.Summary = OK, fmt.Sprintf("%s.timer is active; the last run ended %s with exit %d; next run %s", u.name, last, code, next)
	return c
}

func (st *state) systemctlShow(ctx context.Context, scope []string, unit string, props ...string) (map[string]string, error) {
	args := append(append([]string{}, scope...), "show", unit, "--property="+strings.Join(props, ","))
	out, err := st.cfg.Run(ctx, "systemctl", args...)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			m[k] = v
		}
	}
	return m, nil
}

func (st *state) askLaunchd(ctx context.Context, c Check, u unit) Check {
	label := labelOf(u)
	target := fmt.Sprintf("gui/%d/%s", os.Getuid(), label)
	out, err := st.cfg.Run(ctx, "launchctl", "print", target)
	if err != nil {
		return fail(c, fmt.Sprintf("%s is installed but not loaded (%v)", u.path, err),
			"launchctl bootstrap gui/$(id -u) "+u.path)
	}
	code := -1
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && strings.TrimSpace(k) == "last exit code" {
			code, _ = strconv.Atoi(strings.Fields(strings.TrimSpace(v) + " -1")[0])
		}
	}
	switch {
	case code == -1:
		c.Status, c.Summary = OK, fmt.Sprintf("%s is loaded; no run has finished yet", label)
	case code != 0 && code != 75:
		return fail(c, fmt.Sprintf("%s is loaded, but its last run exited %d", label, code), "its log (StandardErrorPath in "+u.path+") says why")
	default:
		c.Status, c.Summary = OK, fmt.Sprintf("%s is loaded; its last run exited %d", label, code)
	}
	return c
}

func labelOf(u unit) string { return u.name }

func orUnknown(s string) string {
	if s == "" || s == "n/a" {
		return "unknown"
	}
	return s
}

// execStart splits a unit's ExecStart= line the way systemd does for the
// quoting vaultgraph schedule writes (double quotes, backslash escapes).
func execStart(unitFile string) []string {
	for _, line := range strings.Split(unitFile, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ExecStart="); ok {
			return splitQuoted(v)
		}
	}
	return nil
}

func splitQuoted(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, escaped, started := false, false, false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && inQuote:
			escaped = true
		case r == '"':
			inQuote, started = !inQuote, true
		case (r == ' ' || r == '\t') && !inQuote:
			if started || cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteRune(r)
		}
	}
	if started || cur.Len() > 0 {
		out = append(out, cur.String())
	}
	for i, a := range out {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(a, "$$", "$"), "%%", "%")
	}
	return out
}

// plistArguments reads ProgramArguments from a launchd property list.
func plistArguments(b []byte) []string {
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	var args []string
	lastKey, inArgs := "", false
	for {
		tok, err := dec.Token()
		if err != nil {
			return args
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "key":
				var k string
				if dec.DecodeElement(&k, &t) == nil {
					lastKey = k
				}
			case "array":
				inArgs = lastKey == "ProgramArguments"
			case "string":
				var s string
				if dec.DecodeElement(&s, &t) == nil && inArgs {
					args = append(args, s)
				}
			}
		case xml.EndElement:
			if t.Name.Local == "array" {
				inArgs = false
			}
		}
	}
}

// dataArg is the value of --data in an index command line.
func dataArg(args []string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--data="); ok {
			return v
		}
		if (a == "--data" || a == "-d") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// runCommand runs name with args, with a short timeout, and returns its
// output; a missing command is an error saying so.
func runCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	if _, err := exec.LookPath(name); err != nil {
		return nil, fmt.Errorf("%s is not installed here", name)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return nil, fmt.Errorf("%s: %s", name, strings.TrimSpace(string(ee.Stderr)))
	}
	return out, err
}
