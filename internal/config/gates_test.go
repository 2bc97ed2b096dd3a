package config

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestGatesParse(t *testing.T) {
	c, err := Parse([]byte(good + `gates:
  prod: {sourceHealthy: true, minSoak: 2h, syncWindow: require, syncReady: require}
  preprod: {syncWindow: warn, syncReady: warn, lookback: 30}
appProjects: ["argocd/projects/*.yaml"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if g := c.GateFor("prod"); !g.SourceHealthy || g.MinSoak != 2*time.Hour || g.SyncWindow != SyncWindowRequire || g.SyncReady != SyncWindowRequire || g.Lookback != DefaultLookback {
		t.Errorf("prod gate: %+v", g)
	}
	if g := c.GateFor("preprod"); g.SourceHealthy || g.SyncWindow != SyncWindowWarn || g.SyncReady != SyncWindowWarn || g.Lookback != 30 {
		t.Errorf("preprod gate: %+v", g)
	}
	if c.GateFor("qa").Any() {
		t.Error("qa has no gates")
	}
	fsys := fstest.MapFS{
		"argocd/prod/apps.yaml":      {Data: []byte("kind: Application\n")},
		"argocd/projects/prod.yaml":  {Data: []byte("kind: AppProject\n")},
		"argocd/projects/other.yaml": {Data: []byte("kind: AppProject\n")},
	}
	files, err := c.AppProjectFiles(fsys, "prod")
	if err != nil || strings.Join(files, ",") != "argocd/prod/apps.yaml,argocd/projects/other.yaml,argocd/projects/prod.yaml" {
		t.Errorf("AppProjectFiles: %v %v", files, err)
	}
}

// Without a gates block nothing changes: no gate anywhere.
func TestNoGates(t *testing.T) {
	c, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range c.Environments {
		if c.GateFor(env).Any() {
			t.Errorf("%s has a gate without a gates block", env)
		}
	}
}

func TestGatesInvalid(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"gates:\n  prod: {sourceHealty: true}\n", `.promote.yaml:10: gates.prod: unknown key "sourceHealty"`},
		{"gates:\n  prod: {sourceHealthy: true, minSoak: 2 hours}\n", `gates.prod.minSoak: "2 hours" is not a positive duration`},
		{"gates:\n  prod: {minSoak: 2h}\n", "gates.prod.minSoak: needs sourceHealthy: true"},
		{"gates:\n  prod: {syncWindow: always}\n", `gates.prod.syncWindow: "always" must be require or warn`},
		{"gates:\n  prod: {syncReady: true}\n", `gates.prod.syncReady: "true" must be require or warn`},
		{"gates:\n  prod: {syncready: warn}\n", `gates.prod: unknown key "syncready"`},
		{"gates:\n  staging: {syncWindow: warn}\n", `gates: "staging" is not one of the environments`},
		{"gates:\n  qa: {sourceHealthy: true}\n", "gates.qa.sourceHealthy: qa is the first environment"},
		{"gates:\n  prod: {lookback: 5000}\n", "gates.prod.lookback: 5000 must be between 1 and 1000"},
		{"gates: [prod]\n", "gates: must be a mapping"},
		{"appProjects: ['[']\n", `appProjects: bad glob "["`},
	} {
		_, err := Parse([]byte(good + c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
}
