package ordering

import (
	"io/fs"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// Shorthands of the tests.

func Check(inv *Inventory, ocfg Config) []Finding {
	return checkFor(inv, ocfg, nil)
}

func CheckRepo(fsys fs.FS, cfg *config.Config, ocfg Config, envs ...string) ([]Finding, error) {
	return CheckRepoWith(fsys, cfg, ocfg, nil, envs...)
}

// ForEnv keeps the findings of env.
func ForEnv(findings []Finding, env string) []Finding {
	var out []Finding
	for _, f := range findings {
		if f.Env == env {
			out = append(out, f)
		}
	}
	return out
}
