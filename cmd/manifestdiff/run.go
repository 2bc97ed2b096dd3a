package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitsource"
	"github.com/gitops-promote/gitops-promote/internal/kube"
	"github.com/gitops-promote/gitops-promote/internal/manifestdiff"
	"github.com/gitops-promote/gitops-promote/internal/report"
	reporthtml "github.com/gitops-promote/gitops-promote/internal/report/html"
	"github.com/gitops-promote/gitops-promote/internal/syncready"
)

// errChanged makes --detailed-exitcode exit 2.
var errChanged = errors.New("changes found")

func run(ctx context.Context, o *options, ios *ioStreams, getenv func(string) string) error {
	o.color = cli.UseColor(o.Color, ios.OutTTY, getenv)
	ios.Secrets.AddGitRemotes(orDot(o.repo))
	log := newLogger(ios.ErrOut, o.Quiet, ios.ErrTTY)
	installLibraryLog(log)
	if len(o.merge) > 0 {
		return runMerge(ctx, o, ios, getenv)
	}
	shard, err := shardOf(o, getenv)
	if err != nil {
		return err
	}
	var post *poster
	if o.post {
		var err error
		if post, err = newPoster(getenv, o.pageLimit); err != nil {
			return err // before any rendering: a CI misconfiguration fails fast
		}
	}
	link, note := reportURL(o, getenv)
	if note != "" {
		log.Warn(note)
	}
	repo, err := git.Open(orDot(o.repo))
	if err != nil {
		return err
	}
	defer repo.Close()
	base, head, err := resolveSides(repo, o, getenv)
	if err != nil {
		return err
	}
	cfgs, err := loadConfigs(head.FS, base.FS, log)
	if err != nil {
		return err
	}
	cfg := cfgs.head
	base.Config = cfgs.base
	envs, err := cfg.SelectEnvs(o.envs)
	if err != nil {
		return fmt.Errorf("--env: %w", err)
	}
	client, err := chartClient(o, getenv)
	if err != nil {
		return err
	}
	if client.Creds != nil {
		client.Creds.Remember = ios.Secrets.AddCredential
	}
	if client.Creds.Unscoped() {
		log.Warn(charts.UnscopedWarning)
	}
	repos, err := gitFetcher(o, cfgs, getenv)
	if err != nil {
		return err
	}
	d := &manifestdiff.Diff{Config: cfg, Base: base, Head: head, Envs: envs, Charts: client, Repos: repos, Log: log,
		Clean: ios.Secrets.Text, Mask: ios.Secrets.Content, Shard: shard, Rendering: renderingGC(getenv), CheckAll: o.all}
	if o.live {
		d.Live = &manifestdiff.Live{Kube: kube.Options{Kubeconfig: o.kubeconfig, Context: o.kubeContext,
			Remember: ios.Secrets.AddCredential}}
	}
	progress := ios.ErrTTY && !o.Quiet
	if progress {
		d.Progress = func(done, total int) { fmt.Fprintf(ios.ErrOut, "\rrendering %d/%d apps", done, total) }
	}
	rep, runErr := d.Run(ctx)
	rep.PendingSettings = cfgs.pending
	if progress {
		fmt.Fprint(ios.ErrOut, "\r\033[K")
	}
	if ctx.Err() != nil {
		return interrupted(ctx, o, ios, rep, runErr, link)
	}
	if runErr != nil && !errors.Is(runErr, manifestdiff.ErrRender) && !errors.Is(runErr, manifestdiff.ErrLive) {
		return runErr
	}
	if err := writeReport(o, ios, rep, link); err != nil {
		return err
	}
	if post != nil {
		// posted even when some apps failed: the note then says so at the top
		if err := post.upsert(ctx, rep, link, ios, o.Quiet); err != nil {
			return err
		}
	}
	if runErr != nil {
		return runErr
	}
	if err := willNotSync(rep, o.failOn); err != nil {
		return err
	}
	s := rep.Summary()
	if o.detailedExitCode && s.Changed() {
		return errChanged
	}
	return nil
}

// willNotSync fails a run whose change adds a sync-readiness finding at
// or above failOn; the report is written by then.
func willNotSync(rep report.Report, failOn string) error {
	if !syncready.Fails(rep.Findings, failOn) {
		return nil
	}
	fresh, _ := rep.WillNotSync()
	return fmt.Errorf("will not sync: the change adds %s (see the report's Will not sync section; --fail-on sets the threshold)",
		report.FindingCounts(fresh))
}

// interrupted ends a run a signal cut short. The apps that finished are
// written (stdout or --output-file: the artifact CI keeps of a cancelled
// job), the others listed as not rendered, "interrupted"; the report is
// never posted: the merge request's note is sticky, and a partial one
// would replace the last complete comparison with one that only looks
// complete at a glance. The run fails (exit 1) in any case.
func interrupted(ctx context.Context, o *options, ios *ioStreams, rep report.Report, runErr error, link string) error {
	cause := context.Cause(ctx)
	if runErr != nil && !errors.Is(runErr, manifestdiff.ErrInterrupted) &&
		!errors.Is(runErr, manifestdiff.ErrRender) && !errors.Is(runErr, manifestdiff.ErrLive) {
		return fmt.Errorf("%w; no report written or posted", runErr) // before any app was known
	}
	if err := writeReport(o, ios, rep, link); err != nil {
		return fmt.Errorf("%w; writing the partial report: %v", cause, err)
	}
	if errors.Is(runErr, manifestdiff.ErrInterrupted) {
		return fmt.Errorf("%s; partial report written, not posted", interruptLine(runErr))
	}
	return fmt.Errorf("%w; report written, not posted", cause)
}

// interruptLine is the line of runErr that says what the signal left
// unrendered (errors.Join puts one error per line).
func interruptLine(runErr error) string {
	for _, l := range strings.Split(runErr.Error(), "\n") {
		if strings.Contains(l, "not rendered") {
			return l
		}
	}
	return runErr.Error()
}

// resolveSides picks the revisions: --base, else the MR's diff base that
// GitLab CI exports, else the merge-base with origin/main.
func resolveSides(repo *git.Repo, o *options, getenv func(string) string) (manifestdiff.Side, manifestdiff.Side, error) {
	headName := firstNonEmpty(o.head, "HEAD")
	headHash, err := repo.Resolve(headName)
	if err != nil {
		return manifestdiff.Side{}, manifestdiff.Side{}, fmt.Errorf("--head %s: %w", headName, err)
	}
	baseName := firstNonEmpty(o.base, getenv("CI_MERGE_REQUEST_DIFF_BASE_SHA"))
	var baseHash plumbing.Hash
	if baseName != "" {
		if baseHash, err = repo.Resolve(baseName); err != nil {
			return manifestdiff.Side{}, manifestdiff.Side{}, fmt.Errorf("--base %s: %w", baseName, err)
		}
	} else {
		main, err := repo.Resolve("origin/main")
		if err != nil {
			return manifestdiff.Side{}, manifestdiff.Side{}, fmt.Errorf("no --base given and origin/main not found (%v): pass --base REV", err)
		}
		if baseHash, err = repo.MergeBase(main, headHash); err != nil {
			return manifestdiff.Side{}, manifestdiff.Side{}, fmt.Errorf("merge-base of %s and origin/main: %w", headName, err)
		}
		baseName = "merge-base(origin/main, " + headName + ")"
	}
	side := func(name string, h plumbing.Hash) (manifestdiff.Side, error) {
		fsys, err := repo.TreeFS(h)
		return manifestdiff.Side{Name: name, Rev: h.String(), FS: fsys}, err
	}
	b, err := side(baseName, baseHash)
	if err != nil {
		return b, manifestdiff.Side{}, err
	}
	h, err := side(headName, headHash)
	return b, h, err
}

func chartClient(o *options, getenv func(string) string) (*charts.Client, error) {
	c := &charts.Client{LocalDir: o.chartsDir, CacheDir: o.cacheDir, UserAgent: "gitops-promote-manifestdiff"}
	if c.LocalDir == "" { // offline: no repository is asked, no credential needed
		var err error
		if c.Creds, err = charts.CredentialsFromEnv(getenv); err != nil {
			return nil, err
		}
	}
	if c.CacheDir == "" && c.LocalDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no --cache-dir and no user cache dir: %w", err)
		}
		c.CacheDir = filepath.Join(dir, "gitops-promote", "charts")
	}
	if c.CacheDir != "" {
		if err := os.MkdirAll(c.CacheDir, 0o755); err != nil {
			return nil, fmt.Errorf("creating chart cache: %w", err)
		}
	}
	return c, nil
}

// gitFetcher opens the other git repositories apps read. Tokens of the
// environment go to the GitOps repository's host only, as the target
// branch names it (none when it names none); other hosts get
// ~/.git-credentials or ~/.netrc; local repositories only those the
// target branch's localRepos lists.
func gitFetcher(o *options, cfgs configs, getenv func(string) string) (*gitsource.Fetcher, error) {
	dir := ""
	if o.cacheDir != "" {
		dir = filepath.Join(o.cacheDir, "git")
	} else {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no --cache-dir and no user cache dir: %w", err)
		}
		dir = filepath.Join(cache, "gitops-promote", "git")
	}
	home, _ := os.UserHomeDir()
	credHost := cfgs.head.RepoURL
	if cfgs.noCredHost {
		credHost = ""
	}
	f, err := gitsource.New(dir, gitsource.Credentials{RepoURL: credHost,
		Token: firstNonEmpty(getenv("GIT_TOKEN"), getenv("GITLAB_TOKEN")), JobToken: getenv("CI_JOB_TOKEN"), Home: home})
	if err != nil {
		return nil, err
	}
	f.LocalRepos = cfgs.head.LocalRepos
	return f, nil
}

// writeReport writes the report in the chosen format; link is the HTML
// report's URL for the note's links, or "".
func writeReport(o *options, ios *ioStreams, rep report.Report, link string) error {
	var buf bytes.Buffer
	var err error
	switch o.output {
	case "markdown":
		err = report.MarkdownWith(&buf, rep, report.MarkdownOptions{ReportURL: link})
	case "json":
		err = report.JSON(&buf, rep)
	case "html":
		err = reporthtml.Write(&buf, rep)
	default: // a file is an artifact: never coloured
		err = report.Diff(&buf, rep, o.color && o.outputFile == "")
	}
	if err != nil {
		return err
	}
	if o.outputFile == "" {
		_, err = ios.Out.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(o.outputFile, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", o.outputFile, err)
	}
	if !o.Quiet {
		s := rep.Summary()
		fmt.Fprintf(ios.ErrOut, "wrote %s: %s, %d changed, %d added, %d removed, %s\n", o.outputFile, cli.Plural(s.Apps, "app", "apps"),
			s.ByStatus.Changed, s.ByStatus.Added, s.ByStatus.Removed, cli.Plural(s.ByStatus.Error, "error", "errors"))
	}
	return nil
}

func orDot(s string) string { return firstNonEmpty(s, ".") }

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
