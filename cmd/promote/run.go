package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/promote"
	"github.com/gitops-promote/gitops-promote/internal/rendercheck"
)

var (
	// errFindings makes check exit 1 after printing its findings.
	errFindings = errors.New("check found problems")
	// errChanges makes plan --detailed-exitcode exit 2.
	errChanges = errors.New("the plan has changes")
)

// run executes one parsed command. getenv is the only way it reads the
// environment, so tests control tokens and identities.
func run(ctx context.Context, o *options, ios *ioStreams, getenv func(string) string) error {
	o.color = cli.UseColor(o.Color, ios.OutTTY, getenv)
	ios.Secrets.AddGitRemotes(orDot(o.repo))
	repo, err := git.Open(orDot(o.repo))
	if err != nil {
		return err
	}
	defer repo.Close()
	if o.verb == "init" {
		return runInit(repo, ios)
	}
	cfg, err := config.Load(repo.Root())
	if err != nil {
		return err
	}
	switch o.verb {
	case "check":
		return runCheck(ctx, cfg, repo, o, ios, getenv)
	case "waves":
		return runWaves(cfg, repo, o, ios)
	case "status":
		return runStatus(ctx, cfg, repo, o, ios, getenv, time.Now())
	case "history":
		return runHistory(cfg, repo, o, ios)
	case "plan", "apply", "pin", "rollback", "reject", "unreject":
		return runCommit(ctx, cfg, repo, o, ios, getenv)
	}
	return fmt.Errorf("unknown command %q", o.verb)
}

func runCommit(ctx context.Context, cfg *config.Config, repo *git.Repo, o *options, ios *ioStreams, getenv func(string) string) error {
	a := &promote.Apply{Repo: repo, Push: o.push, Remote: o.remote, Branch: o.branch, CreateBranch: o.createBranch, PushTimeout: o.pushTimeout, Log: logger(ios.ErrOut, o)}
	var prefetch func(repoURL string)
	if !o.previewOnly() && !o.skipChartCheck {
		creds, err := charts.CredentialsFromEnv(getenv)
		if err != nil {
			return err
		}
		if creds.Unscoped() {
			a.Log.Warn(charts.UnscopedWarning)
		}
		creds.Remember = ios.Secrets.AddCredential
		client := &charts.Client{Creds: creds, UserAgent: "gitops-promote"}
		a.Charts = client
		prefetch = prefetcher(ctx, client)
	}
	if o.push || o.mergeRequest {
		a.Token = firstNonEmpty(getenv("GIT_TOKEN"), getenv("GITLAB_TOKEN"))
	}
	var build promote.BuildFunc
	var sets []promote.KeyValue
	if o.verb == "reject" || o.verb == "unreject" {
		build = rejectBuild(cfg, o)
	} else if o.verb == "rollback" {
		var err error
		if build, err = rollbackBuild(cfg, repo, o, prefetch); err != nil {
			return err
		}
		if a.Gate, err = gateFor(cfg, repo, o, getenv, a.Log); err != nil {
			return err
		}
	} else if o.verb == "pin" {
		var err error
		if sets, err = promote.ParseKeyValues(o.args); err != nil {
			return err
		}
		req := promote.PinRequest{Env: o.env, Sets: sets, AllowDowngrade: o.allowDowngrade, ChartRepository: prefetch}
		build = func(target, _ fs.FS) (*promote.Plan, error) { return promote.BuildPin(target, cfg, req) }
	} else {
		req := promote.PromoteRequest{From: o.from, To: o.to, Only: o.only, ForcePath: o.forcePath,
			AllowDowngrade: o.allowDowngrade, IgnoreOrdering: o.ignoreOrdering, ChartRepository: prefetch}
		build = func(target, source fs.FS) (*promote.Plan, error) {
			return promote.BuildPromotionFrom(target, source, cfg, req)
		}
		a.Source = &promote.Source{Config: cfg, Env: o.from, Only: o.only, Rev: o.sourceRev}
		a.WarnIfDirty = []string{cfg.VersionsPath(o.from)}
		gate, err := gateFor(cfg, repo, o, getenv, a.Log)
		if err != nil {
			return err
		}
		a.Gate = gate
	}
	if o.verb == "plan" || o.verb == "apply" || o.verb == "pin" {
		build = rejectedPolicy(repo, o, getenv).Wrap(build)
	}
	if o.mergeRequest {
		return runMergeRequest(ctx, a, o, ios, getenv, build, sets)
	}
	var res *promote.Result
	var err error
	if o.previewOnly() {
		if res, err = a.PlanOnly(ctx, build); err == nil {
			if err = a.RefuseDirty(res.Plan.Files()); err != nil {
				res = nil // refused, as apply would be: no plan to show
			}
		}
	} else {
		res, err = a.Run(ctx, build)
	}
	if res != nil { // also when a push failed after the commit: say what was committed
		if o.output != "json" { // the JSON result holds them: each fact once
			logGates(a.Log, res.Plan)
		}
		if werr := writeResult(ios, o, res); werr != nil && err == nil {
			err = werr
		}
	}
	if err == nil && o.detailedExitCode && !res.UpToDate {
		return errChanges
	}
	return err
}

func runCheck(ctx context.Context, cfg *config.Config, repo *git.Repo, o *options, ios *ioStreams, getenv func(string) string) error {
	envs, err := cfg.SelectEnvs(o.envs)
	if err != nil {
		return fmt.Errorf("--env: %w", err)
	}
	findings := promote.Check(os.DirFS(repo.Root()), cfg, envs)
	var rendered *rendercheck.Result
	if o.rendered {
		r, err := renderer(repo, getenv, logger(ios.ErrOut, o))
		if err != nil {
			return fmt.Errorf("--rendered: %w", err)
		}
		if rendered, err = r.Revision(ctx, "HEAD", envs, o.failOn); err != nil {
			return fmt.Errorf("--rendered: %w", err)
		}
	}
	if err := writeFindings(ios, o, envs, findings, rendered); err != nil {
		return err
	}
	n, failed := len(findings), false
	if rendered != nil {
		// whether its findings fail is manifestdiff's --fail-on policy
		n += len(rendered.Errors) + len(rendered.Shown())
		failed = rendered.Failed != ""
	}
	if len(findings) > 0 || failed {
		return fmt.Errorf("%s: %w", cli.Plural(n, "finding", "findings"), errFindings)
	}
	return nil
}

func runInit(repo *git.Repo, ios *ioStreams) error {
	path := filepath.Join(repo.Root(), config.FileName)
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s already exists; edit it, or remove it to draft a new one", config.FileName)
	}
	origin, _ := repo.RemoteURL("origin")
	draft, notes, err := promote.Init(os.DirFS(repo.Root()), origin)
	if err != nil {
		return err
	}
	if _, err := config.Parse(draft); err != nil {
		return fmt.Errorf("the drafted config does not validate (%w); write %s by hand", err, config.FileName)
	}
	if err := os.WriteFile(path, draft, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", config.FileName, err)
	}
	fmt.Fprintf(ios.Out, "wrote %s: review it before committing\n%s", config.FileName, draft)
	for _, n := range notes {
		fmt.Fprintf(ios.ErrOut, "note: %s\n", n)
	}
	return nil
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
