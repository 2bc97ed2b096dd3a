package manifestdiff

import "github.com/gitops-promote/gitops-promote/internal/config"

// configAt is the configuration a revision is discovered and rendered
// with. Each revision renders with its own deployment settings
// (config.Deployment: the argocd block, kubeVersion, apiVersions), so
// base stands for what runs today and a merge request that upgrades
// Argo CD or the cluster shows what the upgrade changes. Everything else
// (environments, manifests, ignore rules, live envs) is the head's for
// both, so both revisions are compared by one set of rules.
func (d *Diff) configAt(s Side) *config.Config {
	if s.Config != nil {
		return s.Config
	}
	return d.Config
}

// sameDeployment reports whether both revisions render with the same
// deployment settings; when they differ, no app is unchanged on its
// inputs alone: every app renders at both revisions.
// Asked for every pair, it compares once per run.
func (d *Diff) sameDeployment() bool {
	d.sameOnce.Do(func() {
		d.same = d.configAt(d.Base).Deployment().Same(d.configAt(d.Head).Deployment())
	})
	return d.same
}
