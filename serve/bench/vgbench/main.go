package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: vgbench ready|swap [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "ready":
		err = ready(os.Args[2:])
	case "swap":
		err = swap(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "vgbench:", err)
		os.Exit(1)
	}
}

type health struct {
	Ready    bool
	Snapshot string
}

var client = &http.Client{Timeout: 5 * time.Second}

func getHealth(url string) (health, error) {
	var h health
	resp, err := client.Get(url + "/health")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	return h, json.NewDecoder(resp.Body).Decode(&h)
}

func ready(args []string) error {
	fs := flag.NewFlagSet("ready", flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:7411", "server URL")
	since := fs.Int64("since", 0, "start time, Unix nanoseconds")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after")
	fs.Parse(args)
	start := time.Unix(0, *since)
	for deadline := time.Now().Add(*timeout); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if h, err := getHealth(*url); err == nil && h.Ready {
			fmt.Printf("%.0f\n", float64(time.Since(start).Microseconds())/1000)
			return nil
		}
	}
	return fmt.Errorf("%s not ready after %s", *url, *timeout)
}

// sighting is when the poller first saw a snapshot id.
type sighting struct {
	mu    sync.Mutex
	first map[string]time.Time
}

func swap(args []string) error {
	fs := flag.NewFlagSet("swap", flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:7411", "server URL")
	vault := fs.String("vault", "", "vault the server's data was indexed from")
	data := fs.String("data", "", "data directory the server serves")
	bin := fs.String("bin", "vaultgraph", "vaultgraph binary")
	n := fs.Int("n", 3, "publishes to measure")
	fs.Parse(args)

	seen := &sighting{first: map[string]time.Time{}}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if h, err := getHealth(*url); err == nil && h.Snapshot != "" {
				now := time.Now()
				seen.mu.Lock()
				if _, ok := seen.first[h.Snapshot]; !ok {
					seen.first[h.Snapshot] = now
				}
				seen.mu.Unlock()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	defer close(stop)

	var lat []time.Duration
	for i := range *n {
		note := filepath.Join(*vault, "Bench", fmt.Sprintf("Publish %d %d.md", time.Now().Unix(), i))
		if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(note, []byte("# Publish\nA note written by vgbench, linking [[Start Here]].\n"), 0o644); err != nil {
			return err
		}
		t0 := time.Now()
		out, err := exec.Command(*bin, "--log-level", "warn", "index", "--vault", *vault, "--data", *data).Output()
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		id := ""
		if f := strings.Fields(string(out)); len(f) >= 2 && f[0] == "snapshot" {
			id = f[1]
		}
		if id == "" {
			return fmt.Errorf("index published nothing: %s", out)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(*data, "snapshots", id), &st); err != nil {
			return err
		}
		published := time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
		var served time.Time
		for deadline := time.Now().Add(5 * time.Minute); served.IsZero(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				return fmt.Errorf("snapshot %s never served", id)
			}
			seen.mu.Lock()
			served = seen.first[id]
			seen.mu.Unlock()
		}
		d := served.Sub(published)
		lat = append(lat, d)
		fmt.Printf("publish %d: index ran %s; published %s, first served %s later\n", i+1,
			time.Since(t0).Round(time.Millisecond), id, d.Round(time.Millisecond))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Printf("publish to first response: median %s, max %s (n=%s)\n", lat[len(lat)/2].Round(time.Millisecond),
		lat[len(lat)-1].Round(time.Millisecond), strconv.Itoa(len(lat)))
	return nil
}
