package history

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// fixture is a real repository of the example fleet with, on preprod: a
// promotion, a teammate's hand edit, a pin, a rollback, and commits that
// do not touch preprod (a qa edit, a promotion into prod).
func fixture(t *testing.T) (*git.Repo, *config.Config) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/fleet")); err != nil {
		t.Fatal(err)
	}
	g := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	edit := func(path, old, new string) {
		t.Helper()
		p := filepath.Join(dir, path)
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s lacks %q (%v)", path, old, err)
		}
		if err := os.WriteFile(p, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(date, author, msg string) {
		t.Helper()
		g(date, "-c", "user.name="+author, "-c", "user.email="+strings.ToLower(strings.Fields(author)[0])+"@example.com",
			"commit", "-q", "-a", "-m", msg)
	}
	g("2026-11-01T08:00:00Z", "init", "-q", "-b", "main")
	g("2026-11-01T08:00:00Z", "add", "-A")
	commit("2026-11-01T08:00:00Z", "Release Manager", "initial layout")
	edit("versions/preprod.yaml", `chartVersion: "1.3.1"`, `chartVersion: "1.4.0"`)
	edit("versions/preprod.yaml", `imageTag: "v3.1.4"`, `imageTag: "v3.2.0"`)
	commit("2026-11-02T09:00:00Z", "Release Manager", "chore(preprod): promote versions from qa [skip ci]\n\n"+
		"- ledger-node.api.chartVersion: 1.3.1 -> 1.4.0 (versions/preprod.yaml)\n\n"+
		"Promoted-From: qa@0123456789abcdef0123456789abcdef01234567\nPromote-Components: ledger-node.api\n"+
		"Gate-Overridden: syncWindow by alice: release night")
	edit("versions/qa.yaml", `imageTag: "v1.10"`, `imageTag: "v1.11"`)
	commit("2026-11-02T10:00:00Z", "Build Bot", "ci: qa gateway v1.11")
	edit("versions/preprod.yaml", "replicas: 2", "replicas: 3")
	commit("2026-11-03T11:00:00Z", "Teammate Tess", "scale the preprod worker")
	edit("versions/preprod.yaml", `imageTag: "v1.9"`, `imageTag: "v1.9.1"`)
	commit("2026-11-03T12:00:00Z", "Release Manager", "chore(preprod): pin gateway.imageTag [skip ci]\n\n"+
		"- gateway.imageTag: v1.9 -> v1.9.1 (versions/preprod.yaml)\n\nPinned-On: 1111111111111111111111111111111111111111\n"+
		"Promote-Components: gateway")
	edit("versions/prod.yaml", "replicas: 2", "replicas: 4")
	commit("2026-11-03T13:00:00Z", "Release Manager", "chore(prod): pin ledger-node.worker.replicas [skip ci]")
	edit("versions/preprod.yaml", `chartVersion: "1.4.0"`, `chartVersion: "1.3.1"`)
	edit("versions/preprod.yaml", `imageTag: "v3.2.0"`, `imageTag: "v3.1.4"`)
	commit("2026-11-04T14:00:00Z", "Release Manager", "chore(preprod): roll back to 2222222222aa [skip ci]\n\n"+
		"- ledger-node.api.chartVersion: 1.4.0 -> 1.3.1 (versions/preprod.yaml)\n\n"+
		"Rolled-Back-To: 2222222222aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nRollback-Reason: LEDGER-901: 5xx after 1.4.0\n"+
		"Promote-Components: ledger-node.api\nRollback-Forced-Fields: ledger-node.worker.replicas")
	repo, err := git.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo, cfg
}

func TestReadGolden(t *testing.T) {
	repo, cfg := fixture(t)
	head, err := repo.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Read(repo, cfg, "preprod", head, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		kinds = append(kinds, e.Kind)
	}
	// the qa commit and the prod pin are not preprod's
	if got, want := strings.Join(kinds, " "), "rollback pin edit promote edit"; got != want {
		t.Fatalf("kinds = %q, want %q", got, want)
	}
	v := &View{Env: "preprod", Entries: entries}
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer, *View) error
	}{
		{"preprod.txt", func(b *bytes.Buffer, v *View) error { return WriteTable(b, v) }},
		{"preprod.md", func(b *bytes.Buffer, v *View) error { return WriteMarkdown(b, v) }},
		{"preprod.json", func(b *bytes.Buffer, v *View) error { return WriteJSON(b, v) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b, v); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, normalize(b.String(), entries))
		})
	}
}

// normalize replaces commit hashes, which depend on the machine's git
// (object format, signing), by their position.
func normalize(s string, entries []Entry) string {
	for i, e := range entries {
		s = strings.ReplaceAll(s, e.Commit, "<commit-"+string(rune('a'+i))+">")
		s = strings.ReplaceAll(s, e.Commit[:12], "<short-"+string(rune('a'+i))+"--->")
	}
	return s
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestReadFields(t *testing.T) {
	repo, cfg := fixture(t)
	head, _ := repo.Resolve("HEAD")
	entries, err := Read(repo, cfg, "preprod", head, 0)
	if err != nil {
		t.Fatal(err)
	}
	rb, pin, edit, prom := entries[0], entries[1], entries[2], entries[3]
	if rb.RolledBackTo != "2222222222aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" || rb.Reason != "LEDGER-901: 5xx after 1.4.0" ||
		len(rb.Forced) != 1 || rb.Forced[0] != "ledger-node.worker.replicas" {
		t.Errorf("rollback trailers: %+v", rb)
	}
	if len(rb.Changes) != 2 || rb.Changes[0] != (Change{"ledger-node.api", "chartVersion", "1.4.0", "1.3.1"}) {
		t.Errorf("rollback changes: %+v", rb.Changes)
	}
	if pin.FromCommit != "1111111111111111111111111111111111111111" || len(pin.Changes) != 1 ||
		pin.Changes[0] != (Change{"gateway", "imageTag", "v1.9", "v1.9.1"}) {
		t.Errorf("pin: %+v", pin)
	}
	if edit.Author != "Teammate Tess" || edit.Email != "teammate@example.com" || edit.Ours() ||
		len(edit.Changes) != 1 || edit.Changes[0] != (Change{"ledger-node.worker", "replicas", "2", "3"}) {
		t.Errorf("hand edit: %+v", edit)
	}
	if prom.From != "qa" || prom.FromCommit != "0123456789abcdef0123456789abcdef01234567" ||
		len(prom.Overrides) != 1 || prom.Overrides[0] != "syncWindow by alice: release night" {
		t.Errorf("promotion: %+v", prom)
	}
	if _, err := Read(repo, cfg, "staging", head, 0); err == nil || !strings.Contains(err.Error(), "staging") {
		t.Errorf("unknown env: %v", err)
	}
}

func TestReadLimitAndDiff(t *testing.T) {
	repo, cfg := fixture(t)
	head, _ := repo.Resolve("HEAD")
	entries, err := Read(repo, cfg, "preprod", head, 2) // the rollback and the prod pin
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Kind != KindRollback {
		t.Errorf("limit 2: %+v", entries)
	}
	got := Diff(cfg, "v.yaml", []byte("gateway: {chartVersion: 1.0.0, imageTag: a}\n"), []byte("gateway: {chartVersion: 1.0.0}\n"))
	if len(got) != 1 || got[0] != (Change{"gateway", "imageTag", "a", ""}) {
		t.Errorf("removed field: %+v", got)
	}
}
