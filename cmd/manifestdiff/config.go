package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// configs are the .promote.yaml settings of one run.
type configs struct {
	// head is .promote.yaml at head (at base when head removed it), with
	// base's trusted settings; base is the same with base's deployment
	// settings (the argocd block, kubeVersion, apiVersions): base renders
	// as what runs today, head as what the merge request asks for.
	head, base *config.Config
	// pending names the trusted settings head changes: rendered with
	// base's, they take effect after merge.
	pending []string
	// noCredHost: base has no usable trusted settings, so no git token
	// goes anywhere (see trusted).
	noCredHost bool
}

// loadConfigs reads .promote.yaml at both revisions. The merge request
// (head) is input, never configuration: the settings that steer
// credentials, renderers, the cluster --live reaches and what the diff
// hides (config.Trusted) come from base, the target branch's side, for
// both revisions. When base has no .promote.yaml, or one whose trusted
// settings do not read, the trusted settings take their safe defaults
// (nothing allowed beyond Argo CD's defaults, no token sent) and a
// warning says so. Deployment settings are per revision; when base's do
// not read, base renders with head's and a warning says why.
func loadConfigs(head, base fs.FS, log *slog.Logger) (configs, error) {
	data, err := fs.ReadFile(head, config.FileName)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = fs.ReadFile(base, config.FileName)
	}
	if err != nil {
		return configs{}, fmt.Errorf("reading %s at head and base: %w", config.FileName, err)
	}
	cfg, err := config.Parse(data)
	if err != nil {
		return configs{}, err
	}
	baseData, err := fs.ReadFile(base, config.FileName)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return configs{}, fmt.Errorf("reading %s at base: %w", config.FileName, err)
	}
	out := trusted(cfg, baseData, err == nil, log)
	if err != nil { // no .promote.yaml at base
		out.base = out.head
		return out, nil
	}
	dep, err := config.ParseDeployment(baseData)
	if err != nil {
		log.Warn(fmt.Sprintf("%s at base: %s; base renders with head's argocd, kubeVersion and apiVersions", config.FileName, cli.Line(err)))
		out.base = out.head
		return out, nil
	}
	out.base = out.head.WithDeployment(dep).WithTrusted(out.head.Trusted())
	if !dep.Same(out.head.Deployment()) {
		log.Info(fmt.Sprintf("the argocd, kubeVersion or apiVersions settings differ: each revision renders with its own "+
			"(base: %s; head: %s), every app at both", describe(out.base), describe(out.head)))
	}
	return out, nil
}

// trusted puts base's trusted settings into head's config and names the
// ones head changes. Without them (no file at base, or one that does not
// read) the safe defaults apply: Argo CD's value-file schemes, no build
// options, no live env, nothing ignored, no local repository, and no
// host for the tokens; head's repoURL still names this repository, which
// is read from the local tree and so sends nothing.
func trusted(cfg *config.Config, baseData []byte, found bool, log *slog.Logger) configs {
	headT := cfg.Trusted()
	var t config.Trusted
	var err error
	if found {
		t, err = config.ParseTrusted(baseData)
	}
	if !found || err != nil {
		why := "there is none at base"
		if err != nil {
			why = cli.Line(err)
		}
		log.Warn(fmt.Sprintf("%s at base: %s; the settings only the target branch may set (%s) take their defaults, "+
			"and no git token is sent", config.FileName, why, strings.Join(config.TrustedKeys, ", ")))
		t = config.Trusted{RepoURL: headT.RepoURL}
		c := configs{head: cfg.WithTrusted(t), noCredHost: true}
		c.pending = t.Changed(headT)
		return c
	}
	c := configs{head: cfg.WithTrusted(t), pending: t.Changed(headT)}
	if len(c.pending) > 0 {
		log.Warn(report.PendingSentence(c.pending))
	}
	return c
}

// describe names what a revision renders as: "Argo CD 3.4 (Helm 3)".
func describe(c *config.Config) string {
	major, minor := c.Argo.MajorMinor()
	return fmt.Sprintf("Argo CD %d.%d (Helm %d)", major, minor, c.Argo.HelmMajor())
}
