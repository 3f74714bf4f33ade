package gitrepotest

import "testing"

// Podcast makes the repository of a small podcast app in dir over four
// commits: a Python API (a cron that schedules the daily episode, the
// generator, a feed, their tests), a TypeScript/TSX player, and a Go
// uploader. The last commit changes the cron and the generator together
// again, as a fix of "the daily podcast is generating twice" would.
func Podcast(t testing.TB, dir string) *Repo {
	r := New(t, dir)
	r.Commit("api: cron and generator", map[string]string{
		".gitignore":          "__pycache__/\n*.log\nnode_modules/\n",
		"api/app/__init__.py": "# the app package\n",
		"api/app/cron.py": `"""Schedules the daily podcast."""
from .podcast import generate_daily_episode
from .lock import acquire_run_lock

CRON_INTERVAL_SECONDS = 540


def schedule_daily():
    if acquire_run_lock("daily"):
        generate_daily_episode()
`,
		"api/app/podcast.py": `"""Builds one episode from the day's articles."""
from .feed import fetch_articles


def generate_daily_episode():
    articles = fetch_articles()
    return render_episode(articles)


def render_episode(articles):
    return "\n".join(a.title for a in articles)
`,
		"api/app/feed.py": `def fetch_articles():
    return []
`,
		"api/tests/test_cron.py": `from app.cron import schedule_daily


def test_schedule_daily_runs_once():
    schedule_daily()
`,
	})
	r.Commit("api: run lock; web player", map[string]string{
		"api/app/lock.py": `import os


def acquire_run_lock(name):
    return not os.path.exists("/tmp/" + name + ".lock")
`,
		"api/app/cron.py": `"""Schedules the daily podcast."""
from .podcast import generate_daily_episode
from .lock import acquire_run_lock

CRON_INTERVAL_SECONDS = 540


def schedule_daily():
    if acquire_run_lock("daily"):
        generate_daily_episode()
        mark_done()


def mark_done():
    pass
`,
		"api/app/main.py": `from .cron import schedule_daily, CRON_INTERVAL_SECONDS


def start_scheduler(timer):
    timer.every(CRON_INTERVAL_SECONDS, schedule_daily)
`,
		"api/app/admin.py": `from .podcast import generate_daily_episode


def regenerate_today():
    return generate_daily_episode()
`,
		"api/tests/test_podcast.py": `from app.podcast import render_episode


def test_render_episode_joins_titles():
    assert render_episode([]) == ""
`,
		"web/src/api.ts": `export async function fetchEpisode(id: string): Promise<Episode> {
  const res = await fetch("/episodes/" + id);
  return res.json();
}

export interface Episode { id: string; title: string }
`,
		"web/src/Player.tsx": `import { fetchEpisode, Episode } from "./api";

export function Player({ id }: { id: string }) {
  const episode = usePlayerState(id);
  return <audio src={episode.url} />;
}

function usePlayerState(id: string) {
  return fetchEpisode(id);
}
`,
		"web/src/Player.test.tsx": `import { Player } from "./Player";

test("renders", () => { Player({ id: "1" }); });
`,
	})
	r.Commit("uploader in go", map[string]string{
		"go.mod": "module example.com/podcast\n\ngo 1.22\n",
		"uploader/upload.go": `package uploader

import "example.com/podcast/uploader/storage"

// UploadEpisode stores a rendered episode.
func UploadEpisode(name string, body []byte) error {
	return storage.Put("episodes/"+name, body)
}
`,
		"uploader/storage/storage.go": `package storage

// Put writes an object.
func Put(key string, body []byte) error { return nil }
`,
		"uploader/upload_test.go": `package uploader

import "testing"

func TestUploadEpisode(t *testing.T) {
	if err := UploadEpisode("a", nil); err != nil {
		t.Fatal(err)
	}
}
`,
	})
	r.Commit("fix: the daily podcast generated twice", map[string]string{
		"api/app/cron.py": `"""Schedules the daily podcast."""
from .podcast import generate_daily_episode
from .lock import acquire_run_lock

# 540 s: see the vault's decision note; shorter intervals overlapped.
CRON_INTERVAL_SECONDS = 540


def schedule_daily():
    if acquire_run_lock("daily"):
        generate_daily_episode()
        mark_done()


def mark_done():
    pass
`,
		"api/app/podcast.py": `"""Builds one episode from the day's articles."""
from .feed import fetch_articles


def generate_daily_episode():
    articles = fetch_articles()
    if not articles:
        return None
    return render_episode(articles)


def render_episode(articles):
    return "\n".join(a.title for a in articles)
`,
	})
	return r
}

// PodcastVault is a vault that documents the Podcast repository, which it
// names "app": a decision note, an incident note, a gotcha and a note that
// has nothing to do with the code.
var PodcastVault = map[string]string{
	"Decisions/Cron interval.md": `---
type: Decision
---
# Why the cron runs every 540 seconds

The scheduler used to run every 300 s and two runs overlapped, so the daily
episode was generated twice. We moved to 540 s and added a run lock.

documents:: [[code:app/api/app/cron.py]]
decided_by:: [[Alice]]
`,
	"Incidents/Double episode.md": `---
type: Incident
date: 2026-11-10
---
# Listeners got two copies of the episode

Root cause in the scheduler; fixed by the run lock.

documents:: [[code:app/api/app/lock.py]]
dangerous:: [[code:app/api/app/cron.py#schedule_daily]] {why: "never call it twice in one interval"}
`,
	"Gotchas/Uploads.md": `---
type: Gotcha
implements: code:app/uploader/upload.go
---
# Uploads overwrite

Uploading an episode with the same name overwrites it.

dangerous:: [[code:app/uploader/storage/storage.go#Put]]
stale:: [[code:app/api/app/old_scheduler.py]]
`,
	"People/Alice.md":  "---\ntype: Person\n---\nAlice runs the backend.\n",
	"Recipes/Bread.md": "# Bread\n\nFlour, water, salt. Nothing about code.\n",
}
