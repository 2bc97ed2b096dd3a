package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/config"
)

// loadConfigs reads .promote.yaml at head (at base when head removed it)
// for everything, and base's deployment settings (the argocd block,
// kubeVersion, apiVersions) for base: base renders as what runs today,
// head as what the merge request asks for. When base has no
// .promote.yaml, or one whose deployment settings do not read, base
// renders with head's, and a warning says why.
func loadConfigs(head, base fs.FS, log *slog.Logger) (cfg, baseCfg *config.Config, err error) {
	data, err := fs.ReadFile(head, config.FileName)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = fs.ReadFile(base, config.FileName)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s at head and base: %w", config.FileName, err)
	}
	if cfg, err = config.Parse(data); err != nil {
		return nil, nil, err
	}
	baseData, err := fs.ReadFile(base, config.FileName)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, cfg, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s at base: %w", config.FileName, err)
	}
	dep, err := config.ParseDeployment(baseData)
	if err != nil {
		log.Warn(fmt.Sprintf("%s at base: %s; base renders with head's argocd, kubeVersion and apiVersions", config.FileName, cli.Line(err)))
		return cfg, cfg, nil
	}
	baseCfg = cfg.WithDeployment(dep)
	if !dep.Same(cfg.Deployment()) {
		log.Info(fmt.Sprintf("the argocd, kubeVersion or apiVersions settings differ: each revision renders with its own "+
			"(base: %s; head: %s), every app at both", describe(baseCfg), describe(cfg)))
	}
	return cfg, baseCfg, nil
}

// describe names what a revision renders as: "Argo CD 3.4 (Helm 3)".
func describe(c *config.Config) string {
	major, minor := c.Argo.MajorMinor()
	return fmt.Sprintf("Argo CD %d.%d (Helm %d)", major, minor, c.Argo.HelmMajor())
}
