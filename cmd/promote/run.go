package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/promote"
)

// ioStreams are the command's injected standard streams.
type ioStreams struct {
	In          io.Reader
	Out, ErrOut io.Writer
	Color       bool // stdout is a terminal
}

// errFindings makes check exit 1 after printing its findings.
var errFindings = errors.New("check found problems")

// run executes one parsed command. getenv is the only way it reads the
// environment, so tests control tokens and identities.
func run(ctx context.Context, o *options, ios *ioStreams, getenv func(string) string) error {
	if o.verb == "help" || o.verb == "-h" || o.verb == "--help" {
		fmt.Fprint(ios.Out, usageText)
		return nil
	}
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
		return runCheck(cfg, repo, o, ios)
	case "waves":
		return runWaves(cfg, repo, o, ios)
	case "plan", "apply", "pin":
		return runCommit(ctx, cfg, repo, o, ios, getenv)
	}
	return fmt.Errorf("unknown command %q: %w", o.verb, errUsage)
}

func runCommit(ctx context.Context, cfg *config.Config, repo *git.Repo, o *options, ios *ioStreams, getenv func(string) string) error {
	a := &promote.Apply{Repo: repo, Push: o.push, Remote: o.remote, Branch: o.branch, Log: logger(ios.ErrOut)}
	if o.verb != "plan" && !o.skipChartCheck {
		client := &charts.Client{Auth: charts.Auth{Username: getenv("HELM_REPO_USERNAME"), Password: getenv("HELM_REPO_PASSWORD")},
			UserAgent: "gitops-promote"}
		a.Charts = client
		if !o.mergeRequest { // --merge-request plans on the remote tip, not HEAD
			go prefetchIndexes(ctx, os.DirFS(repo.Root()), cfg, firstNonEmpty(o.to, o.env), client)
		}
	}
	if o.push || o.mergeRequest {
		a.Token = firstNonEmpty(getenv("GIT_TOKEN"), getenv("GITLAB_TOKEN"))
	}
	var build promote.BuildFunc
	var sets []promote.KeyValue
	if o.verb == "pin" {
		var err error
		if sets, err = promote.ParseKeyValues(o.args); err != nil {
			return err
		}
		req := promote.PinRequest{Env: o.env, Sets: sets, AllowDowngrade: o.allowDowngrade}
		build = func(fsys fs.FS) (*promote.Plan, error) { return promote.BuildPin(fsys, cfg, req) }
	} else {
		req := promote.PromoteRequest{From: o.from, To: o.to, Only: o.only, ForcePath: o.forcePath,
			AllowDowngrade: o.allowDowngrade, IgnoreOrdering: o.ignoreOrdering}
		build = func(fsys fs.FS) (*promote.Plan, error) { return promote.BuildPromotion(fsys, cfg, req) }
		a.WarnIfDirty = []string{cfg.VersionsPath(o.from)}
	}
	if o.mergeRequest {
		return runMergeRequest(ctx, a, o, ios, getenv, build, sets)
	}
	var res *promote.Result
	var err error
	if o.verb == "plan" {
		a.WarnDirty()
		res, err = a.PlanOnly(ctx, build)
	} else {
		res, err = a.Run(ctx, build)
	}
	if res != nil {
		if werr := writeResult(ios, o, res); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

func runCheck(cfg *config.Config, repo *git.Repo, o *options, ios *ioStreams) error {
	envs, err := cfg.SelectEnvs(o.envs)
	if err != nil {
		return fmt.Errorf("--env: %w", err)
	}
	findings := promote.Check(os.DirFS(repo.Root()), cfg, envs)
	if err := writeFindings(ios, o, envs, findings); err != nil {
		return err
	}
	if len(findings) > 0 {
		return fmt.Errorf("%d finding(s): %w", len(findings), errFindings)
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
