package schedule

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ExitLocked is the index command's exit status when another indexer holds
// the data directory (EX_TEMPFAIL from sysexits.h).
const ExitLocked = 75

// Job is one scheduled command.
type Job struct {
	// Name is the systemd unit name without suffix (vaultgraph-index) or
	// the launchd label (com.github.vaultgraph.index); a trailing
	// ".service" or ".timer" (systemd) or ".plist" (launchd) is dropped.
	Name string
	// Description says what the job does, for systemctl status.
	Description string
	// Command is the absolute path of the binary, then its arguments.
	Command []string
	// Env are KEY=VALUE pairs set for the command.
	Env []string
	// EnvFile is a file of KEY=VALUE lines read by systemd at each start
	// (for secrets that should not be in the unit file); systemd only.
	EnvFile string
	// Every is the time between the end of one run and the start of the
	// next (systemd) or between starts (launchd).
	Every time.Duration
	// User, for a systemd system unit, is the account the run uses; empty
	// for a user unit.
	User string
	// LogPath is where launchd appends the command's output.
	LogPath string
}

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (j Job) validate() error {
	var errs []error
	if j.Name == "" || strings.ContainsAny(j.Name, "/\\ \t\n") {
		errs = append(errs, fmt.Errorf("job name %q: use letters, digits, '-', '_' and '.'", j.Name))
	}
	if len(j.Command) == 0 || !filepath.IsAbs(j.Command[0]) {
		errs = append(errs, errors.New("the command must start with the binary's absolute path"))
	}
	if j.Every < time.Minute {
		errs = append(errs, fmt.Errorf("interval %v: at least 1m", j.Every))
	}
	for _, kv := range j.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || !envKey.MatchString(k) {
			errs = append(errs, fmt.Errorf("environment %q: want KEY=VALUE", kv))
		}
	}
	if broken := lineBreaks(append(append(slices.Clone(j.Command), j.Env...), j.EnvFile, j.User, j.LogPath, j.Description)); len(broken) > 0 {
		errs = append(errs, fmt.Errorf("%s: a unit or plist cannot hold a line break", strings.Join(broken, ", ")))
	}
	return errors.Join(errs...)
}

// lineBreaks quotes the values that hold a line break or a NUL, once each:
// a value that only repeats one already quoted (the description naming the
// vault, after the vault's path) is left out.
func lineBreaks(values []string) []string {
	var bad, quoted []string
	for _, v := range values {
		if !strings.ContainsAny(v, "\n\r\x00") {
			continue
		}
		if slices.ContainsFunc(bad, func(b string) bool { return strings.Contains(v, b) }) {
			continue
		}
		bad = append(bad, v)
		quoted = append(quoted, strconv.Quote(v))
	}
	return quoted
}

// Unit file suffixes a --name may end in by mistake; the name is the unit
// name without them (Systemd) or the label (Launchd).
const (
	serviceSuffix = ".service"
	timerSuffix   = ".timer"
	plistSuffix   = ".plist"
)

// UnitName is name without a trailing ".service" or ".timer": the name
// Systemd gives both units.
func UnitName(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, serviceSuffix), timerSuffix)
}

// Label is name without a trailing ".plist": the label Launchd writes,
// which names the plist file too (LABEL.plist).
func Label(name string) string { return strings.TrimSuffix(name, plistSuffix) }

// Units are the two systemd unit files of a job.
type Units struct {
	ServiceName, TimerName string
	Service, Timer         []byte
}

// Systemd renders a oneshot service running the job and a timer starting it
// a minute after the timer is started (at login or boot) and then Every
// after each run ends.
//
// A Name ending in ".service" or ".timer" names the units without that
// suffix (see UnitName), not "NAME.service.service".
func Systemd(j Job) (*Units, error) {
	j.Name = UnitName(j.Name)
	if err := j.validate(); err != nil {
		return nil, err
	}
	u := &Units{ServiceName: j.Name + serviceSuffix, TimerName: j.Name + timerSuffix}
	var s bytes.Buffer
	fmt.Fprintf(&s, "# %s: written by vaultgraph schedule systemd\n", u.ServiceName)
	fmt.Fprintf(&s, "[Unit]\nDescription=%s\nDocumentation=https://github.com/vaultgraph/vaultgraph#scheduling\n\n", specifiers(j.Description))
	fmt.Fprintf(&s, "[Service]\nType=oneshot\n")
	if j.User != "" {
		fmt.Fprintf(&s, "User=%s\n", specifiers(j.User))
	}
	fmt.Fprintf(&s, "ExecStart=%s\n", execLine(j.Command))
	for _, kv := range j.Env {
		fmt.Fprintf(&s, "Environment=%s\n", quoteArg(specifiers(kv)))
	}
	if j.EnvFile != "" {
		fmt.Fprintf(&s, "EnvironmentFile=%s\n", specifiers(j.EnvFile))
	}
	fmt.Fprintf(&s, "# Background priority: the run yields CPU and disk to everything else.\n")
	fmt.Fprintf(&s, "Nice=19\nCPUSchedulingPolicy=batch\nIOSchedulingClass=idle\n")
	fmt.Fprintf(&s, "# %d: another indexer (a watch, a manual run) holds the data directory;\n# this run was skipped, the next one catches up.\n", ExitLocked)
	fmt.Fprintf(&s, "SuccessExitStatus=%d\n", ExitLocked)
	u.Service = s.Bytes()

	var t bytes.Buffer
	fmt.Fprintf(&t, "# %s: written by vaultgraph schedule systemd\n", u.TimerName)
	fmt.Fprintf(&t, "[Unit]\nDescription=Start %s every %s\n\n", u.ServiceName, timespan(j.Every))
	fmt.Fprintf(&t, "[Timer]\n# The first run a minute after the timer starts, then %s after each run ends:\n# runs never overlap, however long one takes.\n", timespan(j.Every))
	fmt.Fprintf(&t, "OnActiveSec=1min\nOnUnitInactiveSec=%s\nAccuracySec=30s\nUnit=%s\n\n", timespan(j.Every), u.ServiceName)
	fmt.Fprintf(&t, "[Install]\nWantedBy=timers.target\n")
	u.Timer = t.Bytes()
	return u, nil
}

// timespan writes d in systemd's time span syntax.
func timespan(d time.Duration) string {
	s := int64(d / time.Second)
	switch {
	case s%86400 == 0:
		return strconv.FormatInt(s/86400, 10) + "d"
	case s%3600 == 0:
		return strconv.FormatInt(s/3600, 10) + "h"
	case s%60 == 0:
		return strconv.FormatInt(s/60, 10) + "min"
	}
	return strconv.FormatInt(s, 10) + "s"
}

// specifiers escapes systemd's % specifiers.
func specifiers(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// execLine quotes a command line for ExecStart=: specifiers and $ variable
// expansion escaped, arguments with spaces or quotes double-quoted.
func execLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = quoteArg(strings.ReplaceAll(specifiers(a), "$", "$$"))
	}
	return strings.Join(out, " ")
}

func quoteArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\"'\\;") {
		return a
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(a) + `"`
}

// Launchd renders a launchd agent (a property list) that runs the job at
// load and then every Every, at background priority, appending its output
// to LogPath. A Name ending in ".plist" is the label without it (see
// Label).
func Launchd(j Job) ([]byte, error) {
	j.Name = Label(j.Name)
	if err := j.validate(); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(j.LogPath) {
		return nil, fmt.Errorf("log path %q: launchd needs an absolute path", j.LogPath)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString("<!-- " + xmlComment(j.Description) + ": written by vaultgraph schedule launchd -->\n")
	b.WriteString(`<plist version="1.0">` + "\n<dict>\n")
	key := func(k string) { fmt.Fprintf(&b, "\t<key>%s</key>\n", k) }
	str := func(indent, s string) { fmt.Fprintf(&b, "%s<string>%s</string>\n", indent, xmlText(s)) }
	key("Label")
	str("\t", j.Name)
	key("ProgramArguments")
	b.WriteString("\t<array>\n")
	for _, a := range j.Command {
		str("\t\t", a)
	}
	b.WriteString("\t</array>\n")
	if len(j.Env) > 0 {
		key("EnvironmentVariables")
		b.WriteString("\t<dict>\n")
		for _, kv := range j.Env {
			k, v, _ := strings.Cut(kv, "=")
			fmt.Fprintf(&b, "\t\t<key>%s</key>\n", xmlText(k))
			str("\t\t", v)
		}
		b.WriteString("\t</dict>\n")
	}
	key("StartInterval")
	fmt.Fprintf(&b, "\t<integer>%d</integer>\n", int64(j.Every/time.Second))
	key("RunAtLoad")
	b.WriteString("\t<true/>\n")
	key("ProcessType")
	str("\t", "Background")
	key("Nice")
	b.WriteString("\t<integer>10</integer>\n")
	key("LowPriorityIO")
	b.WriteString("\t<true/>\n")
	key("LowPriorityBackgroundIO")
	b.WriteString("\t<true/>\n")
	key("StandardOutPath")
	str("\t", j.LogPath)
	key("StandardErrorPath")
	str("\t", j.LogPath)
	b.WriteString("</dict>\n</plist>\n")
	return b.Bytes(), nil
}

func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func xmlComment(s string) string { return strings.ReplaceAll(s, "--", "- -") }
