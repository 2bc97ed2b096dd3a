package main

import (
	"cmp"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/gates"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
	"github.com/gitops-promote/gitops-promote/internal/promote"
	"github.com/gitops-promote/gitops-promote/internal/rendercheck"
)

// gateFlags name the override flag of each gate, for the flags and the
// hint of a refusal.
var gateFlags = map[string]string{
	config.GateSourceHealthy: "--override-source-healthy",
	config.GateMinSoak:       "--override-min-soak",
	config.GateSyncWindow:    "--override-sync-window",
	config.GateSyncReady:     "--override-sync-ready",
}

// gateFor wires the gates of the target env into a promotion: nil when
// .promote.yaml configures none, so nothing changes (no GitLab request)
// for a repository without gates. GitLab is read when CI_API_V4_URL,
// CI_PROJECT_ID and GITLAB_TOKEN are set; without them a health gate
// refuses and says which are missing.
func gateFor(cfg *config.Config, repo *git.Repo, o *options, getenv func(string) string, log *slog.Logger) (promote.Gate, error) {
	target := o.to
	if o.verb == "rollback" {
		target = o.env
	}
	if o.verb == "pin" || !cfg.GateFor(target).Any() {
		return nil, nil
	}
	c := &gates.Checker{Cfg: cfg, Repo: repo, Now: time.Now, Log: log}
	if cfg.GateFor(target).SyncReady != "" {
		if r, err := renderer(repo, getenv, log); err != nil {
			c.NoReady = err.Error()
		} else {
			c.Ready = r
		}
	}
	if missing := missingVars(getenv, gitlabVars...); len(missing) > 0 {
		c.NoGitLab = strings.Join(missing, ", ") + " not set; GitLab CI sets the first two in every job, GITLAB_TOKEN is a " +
			"project access token with read_api (api for --merge-request) stored as a masked CI/CD variable"
	} else {
		client, err := gitlab.New(gitlab.Options{BaseURL: getenv("CI_API_V4_URL"), Token: getenv("GITLAB_TOKEN")})
		if err != nil {
			return nil, err
		}
		c.GitLab, c.Project = client, getenv("CI_PROJECT_ID")
	}
	overrides := map[string]string{}
	for gate, reason := range o.overrides {
		if strings.TrimSpace(reason) != "" {
			overrides[gate] = reason
		}
	}
	return promote.GatesFor(c, overrides, gateUser(repo, getenv)), nil
}

// renderer finds manifestdiff for the syncReady gate and check
// --rendered: beside this executable, else on PATH. Its progress and
// warnings are promote's (stderr, as sentences); it inherits the
// environment (chart credentials, caches) as a tool run by hand would.
func renderer(repo *git.Repo, getenv func(string) string, log *slog.Logger) (*rendercheck.Runner, error) {
	self, _ := os.Executable()
	exe, err := rendercheck.Find(self, getenv("PATH"))
	if err != nil {
		return nil, fmt.Errorf("%w: install it with promote (the release archive and the CI image ship both)", err)
	}
	return &rendercheck.Runner{Exe: exe, Repo: repo, Env: os.Environ(),
		Stderr: func(line string) { log.Info(strings.TrimPrefix(line, rendercheck.Tool+": ")) }}, nil
}

// gateUser is who overrides a gate: the GitLab user who started the job
// (GitLab CI sets GITLAB_USER_LOGIN), else the git author.
func gateUser(repo *git.Repo, getenv func(string) string) string {
	if u := getenv("GITLAB_USER_LOGIN"); u != "" {
		return u
	}
	if author, _, err := repo.Identity(); err == nil {
		return cmp.Or(author.Email, author.Name)
	}
	return "unknown"
}

// logGates prints what each gate found on stderr: progress, not the plan.
func logGates(log *slog.Logger, p *promote.Plan) {
	if p == nil || p.Gates == nil {
		return
	}
	for _, l := range p.Gates.Lines() {
		if strings.Contains(l, " overridden by ") || strings.Contains(l, " warning: ") || strings.Contains(l, "override not used") {
			log.Warn(l)
		} else {
			log.Info(l)
		}
	}
}

// gateHint names the override flags of the gates that refused.
func gateHint(err error) string {
	var flags []string
	if re, ok := asRefused(err); ok {
		for _, g := range re.Gates {
			flags = append(flags, gateFlags[g]+" REASON")
		}
	}
	if len(flags) == 0 {
		return "see docs/gates.md"
	}
	if re, _ := asRefused(err); len(re.Gates) == 1 && re.Gates[0] == config.GateSyncReady {
		// no waiting fixes a rendering: the chart, values or AppProject must change
		return fmt.Sprintf("fix what renders (chart, values, AppProject), or override it with %s (recorded in the commit)", flags[0])
	}
	return fmt.Sprintf("wait until the gate passes, or override it with %s (recorded in the commit)", strings.Join(flags, " "))
}
