package charts

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFetchDiskCacheHitDoesNoRequest(t *testing.T) {
	f := newHTTPFixture(t, "", "")
	dir := filepath.Join(t.TempDir(), "cache")
	ctx := context.Background()

	first, err := (&Client{CacheDir: dir}).Fetch(ctx, f.repoURL, "podinfo", "6.1.0")
	if err != nil {
		t.Fatal(err)
	}
	before := f.repoHits.total()
	// A new Client stands for a later process: only the disk is shared.
	second, err := (&Client{CacheDir: dir}).Fetch(ctx, f.repoURL, "podinfo", "6.1.0")
	if err != nil {
		t.Fatal(err)
	}
	if n := f.repoHits.total() - before; n != 0 {
		t.Errorf("cache hit made %d requests", n)
	}
	if !cmp.Equal(first, second) {
		t.Error("cached archive differs from the downloaded one")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 1 || !strings.HasPrefix(names[0], "podinfo-6.1.0-") || !strings.HasSuffix(names[0], ".tgz") {
		t.Errorf("cache dir holds %q, want one podinfo-6.1.0-*.tgz", names)
	}
}

func TestFetchCacheKeyedByRepo(t *testing.T) {
	a, b := newHTTPFixture(t, "", ""), newHTTPFixture(t, "", "")
	dir := t.TempDir()
	ctx := context.Background()
	for _, f := range []*httpFixture{a, b} {
		if _, err := (&Client{CacheDir: dir}).Fetch(ctx, f.repoURL, "podinfo", "6.0.0"); err != nil {
			t.Fatal(err)
		}
		if n := f.repoHits.get("/stable/charts/podinfo-6.0.0.tgz"); n != 1 {
			t.Errorf("%s: chart downloaded %d times, want 1 (other repo's cache entry must not count)", f.repoURL, n)
		}
	}
}

func TestConcurrentFetchDownloadsOnce(t *testing.T) {
	f := newHTTPFixture(t, "", "")
	c := &Client{}
	var wg sync.WaitGroup
	results := make([][]byte, 16)
	errs := make([]error, 16)
	for i := range results {
		wg.Go(func() {
			results[i], errs[i] = c.Fetch(context.Background(), f.repoURL, "podinfo", "7.0.0")
		})
	}
	wg.Wait()
	for i := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !cmp.Equal(results[i], f.charts["podinfo@7.0.0"]) {
			t.Fatalf("result %d differs from the archive", i)
		}
	}
	if n := f.repoHits.get("/stable/charts/podinfo-7.0.0.tgz"); n != 1 {
		t.Errorf("chart downloaded %d times, want 1", n)
	}
	// Callers own their slices: changing one must not change another.
	results[0][0] ^= 0xff
	if again, _ := c.Fetch(context.Background(), f.repoURL, "podinfo", "7.0.0"); !cmp.Equal(again, f.charts["podinfo@7.0.0"]) {
		t.Error("a caller's write reached the memoised archive")
	}
}

func TestLocalDirIsOffline(t *testing.T) {
	dir := t.TempDir()
	archives := map[string][]byte{}
	for _, name := range []string{"podinfo-6.2.0.tgz", "podinfo-6.3.0.tgz", "podinfo-extra-1.0.0.tgz", "README.md"} {
		body := makeChart(t, "podinfo", name)
		archives[name] = body
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	offline := noNetwork(t)
	c := &Client{LocalDir: dir, CacheDir: filepath.Join(t.TempDir(), "cache")}
	ctx := context.Background()
	repos := []string{offline.URL + "/charts", "oci://" + strings.TrimPrefix(offline.URL, "http://") + "/charts"}
	for _, repo := range repos {
		got, err := c.Fetch(ctx, repo, "podinfo", "6.2.0")
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(got, archives["podinfo-6.2.0.tgz"]) {
			t.Error("Fetch did not return the local file")
		}
		vs, err := c.Versions(ctx, repo, "podinfo")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"6.3.0", "6.2.0"}, vs); diff != "" {
			t.Errorf("Versions (-want +got):\n%s", diff)
		}
		err = c.HasVersion(ctx, repo, "podinfo", "6.2.9")
		var vnf *VersionNotFoundError
		if !errors.As(err, &vnf) || !strings.Contains(err.Error(), "6.3.0, 6.2.0") {
			t.Errorf("HasVersion(6.2.9) = %v, want a version-not-found error listing local versions", err)
		}
		if _, err := c.Fetch(ctx, repo, "nope", "1.0.0"); !errors.Is(err, ErrChartNotFound) {
			t.Errorf("Fetch(nope) = %v, want ErrChartNotFound", err)
		}
		if _, err := c.Fetch(ctx, repo, "podinfo", "../podinfo-6.2.0"); err == nil {
			t.Error("a version with a path in it was accepted")
		}
	}
	if _, err := os.Stat(c.CacheDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("local mode wrote to the cache dir: %v", err)
	}
}

// A caller waiting on another's download must not inherit that caller's
// cancellation.
func TestFlightWaiterOutlivesCancelledLeader(t *testing.T) {
	var f flight[string]
	leaderCtx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	leaderErr := make(chan error, 1)
	go func() {
		_, err := f.do(leaderCtx, "k", true, func(ctx context.Context) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		})
		leaderErr <- err
	}()
	<-started
	waiter := make(chan string, 1)
	go func() {
		v, err := f.do(context.Background(), "k", true, func(context.Context) (string, error) { return "fresh", nil })
		if err != nil {
			v = err.Error()
		}
		waiter <- v
	}()
	cancel()
	if err := <-leaderErr; !errors.Is(err, context.Canceled) {
		t.Errorf("leader got %v, want context.Canceled", err)
	}
	if got := <-waiter; got != "fresh" {
		t.Errorf("waiter got %q, want a fresh result", got)
	}
}
