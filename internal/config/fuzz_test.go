package config

import (
	"strings"
	"testing"
)

// FuzzParse: any bytes give a config or a one-line error, never a panic,
// and an accepted config always satisfies the schema's invariants.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("repoURL: x\nenvironments: [a]\nversions: v/{env}.yaml\nmanifests: [\"a/{env}/*.yaml\"]\ncomponents: {a.b: {chart: c}}\n"))
	f.Add([]byte("components: [\n"))
	f.Add([]byte(good + "gates:\n  prod: {sourceHealthy: true, minSoak: 2h, syncWindow: require, lookback: 5}\nappProjects: [\"p/*.yaml\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		if c.RepoURL == "" || len(c.Environments) == 0 || len(c.Components) == 0 || !strings.Contains(c.Versions, "{env}") {
			t.Fatalf("accepted an invalid config: %+v", c)
		}
		for _, comp := range c.Components {
			if comp.Chart == "" || len(comp.Path) == 0 {
				t.Fatalf("accepted an invalid component: %+v", comp)
			}
		}
	})
}
