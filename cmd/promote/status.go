package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
	"github.com/gitops-promote/gitops-promote/internal/promote"
)

// gitlabVars are what reading commit statuses needs; GitLab CI sets the
// first two in every job.
var gitlabVars = []string{"CI_API_V4_URL", "CI_PROJECT_ID", "GITLAB_TOKEN"}

// runStatus prints every env at a glance, read from the git objects of
// --rev; deployment health too when the GitLab variables are set.
func runStatus(ctx context.Context, cfg *config.Config, repo *git.Repo, o *options, ios *ioStreams, getenv func(string) string, now time.Time) error {
	head, err := repo.Resolve(orHead(o.rev))
	if err != nil {
		return err
	}
	opt := promote.StatusOptions{Head: head, Now: now}
	log := logger(ios.ErrOut, o)
	switch missing := missingVars(getenv, gitlabVars...); {
	case o.noGitLab:
	case len(missing) == len(gitlabVars):
		// only worth saying where a gate reads health: elsewhere GitLab is
		// simply not used
		if needsHealth(cfg) {
			log.Info("deployment health not shown: GitLab is not configured (CI_API_V4_URL, CI_PROJECT_ID, GITLAB_TOKEN)")
		}
	case len(missing) > 0:
		log.Warn(fmt.Sprintf("deployment health not shown: GitLab is half configured (%s not set)", strings.Join(missing, ", ")))
	default:
		client, err := gitlab.New(gitlab.Options{BaseURL: getenv("CI_API_V4_URL"), Token: getenv("GITLAB_TOKEN")})
		if err != nil {
			return err
		}
		opt.GitLab, opt.Project = client, getenv("CI_PROJECT_ID")
	}
	v, err := promote.BuildStatus(ctx, repo, cfg, opt)
	if err != nil {
		return err
	}
	return writeOverview(ios, o.output, v, promote.WriteStatusJSON, promote.WriteStatusTable, promote.WriteStatusMarkdown)
}

func missingVars(getenv func(string) string, names ...string) []string {
	var out []string
	for _, n := range names {
		if getenv(n) == "" {
			out = append(out, n)
		}
	}
	return out
}

func orHead(rev string) string {
	if rev == "" {
		return "HEAD"
	}
	return rev
}

// needsHealth: some env's gates read Argo CD's health from GitLab.
func needsHealth(cfg *config.Config) bool {
	for _, g := range cfg.Gates {
		if g.ReadsHealth() {
			return true
		}
	}
	return false
}
