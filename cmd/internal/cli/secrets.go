package cli

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/gitsource"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// tokenVars are the environment's tokens: git and GitLab's, the CI job's,
// and the chart repository password.
var tokenVars = []string{"GIT_TOKEN", "GITLAB_TOKEN", "CI_JOB_TOKEN", charts.EnvPassword}

// Secrets are the credentials the process knows of, kept out of all it
// writes to stderr, in every form scrub.Set masks (as they are, URL-
// escaped, base64 of user:password and of the token alone...). They are
// gathered when first needed: the environment's tokens, Helm's and
// docker's credential files, ~/.git-credentials and ~/.netrc; the run adds
// what it learns (a credential helper's answer, a remote URL's userinfo).
// It is safe for concurrent use.
type Secrets struct {
	getenv func(string) string
	once   sync.Once
	mu     sync.RWMutex
	set    scrub.Set
	// localConfig is the git config of the working directory's repository,
	// whose remotes load adds: AddGitRemotes does not read it again.
	localConfig string
}

// NewSecrets reads the environment through getenv, and the files of its
// HOME (and of Helm's and docker's variables).
func NewSecrets(getenv func(string) string) *Secrets { return &Secrets{getenv: getenv} }

func (s *Secrets) load() {
	s.once.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, v := range tokenVars {
			if tok := s.getenv(v); tok != "" {
				s.set.AddCredential("", tok)
			}
		}
		if pass := s.getenv(charts.EnvPassword); pass != "" {
			s.set.AddCredential(s.getenv(charts.EnvUsername), pass)
		}
		for _, p := range append(charts.SecretsFromEnv(s.getenv), gitsource.FileSecrets(s.getenv("HOME"))...) {
			s.set.AddCredential(p[0], p[1])
		}
		// the repository of the working directory: --repo, read later,
		// may name another one, whose remotes the run adds
		s.localConfig = gitConfigOf(".")
		for _, u := range remoteURLs(s.localConfig) {
			s.set.AddURL(u)
		}
	})
}

// AddCredential registers a credential learnt while running.
func (s *Secrets) AddCredential(user, secret string) {
	if s == nil || secret == "" {
		return
	}
	s.load()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set.AddCredential(user, secret)
}

// AddGitRemotes registers the userinfo of every URL in the git
// configuration of the repository at dir or above it (remote "url" and
// "pushurl" lines), which a password holding '/' or a space would
// otherwise let through a message. Call it first: before anything that
// may fail.
func (s *Secrets) AddGitRemotes(dir string) {
	if s == nil {
		return
	}
	config := gitConfigOf(dir)
	s.load()
	if config == s.localConfig {
		return // load added them
	}
	urls := remoteURLs(config)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range urls {
		s.set.AddURL(u)
	}
}

// gitConfigOf is the path of the git configuration of the repository at
// dir or above it, worktrees and submodules included, found without git;
// "" when there is none.
func gitConfigOf(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
	gitDir := filepath.Join(dir, ".git")
	if data, err := os.ReadFile(gitDir); err == nil { // a worktree or submodule: "gitdir: <path>"
		if p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			gitDir = p
			if common, err := os.ReadFile(filepath.Join(p, "commondir")); err == nil {
				c := strings.TrimSpace(string(common))
				gitDir = filepath.Join(p, c)
				if filepath.IsAbs(c) {
					gitDir = c
				}
			}
		}
	}
	return filepath.Join(gitDir, "config")
}

// remoteURLs reads the remote URLs ("url" and "pushurl" lines) of the git
// configuration file config; none when it is "" or unreadable.
func remoteURLs(config string) []string {
	if config == "" {
		return nil
	}
	f, err := os.Open(config)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if k = strings.ToLower(strings.TrimSpace(k)); ok && (k == "url" || k == "pushurl") {
			out = append(out, strings.Trim(strings.TrimSpace(v), `"`))
		}
	}
	return out
}

// Text returns msg with every known credential masked, and the userinfo
// of every URL in it.
func (s *Secrets) Text(msg string) string {
	if s == nil {
		return scrub.URLs(msg)
	}
	s.load()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.set.Text(msg)
}

// Content masks the credentials the process knows of in rendered content
// (scrub.Set.Content): a manifest can hold one, put there by whoever
// wrote the chart or the merge request, and the report shows content.
func (s *Secrets) Content(content string) string {
	if s == nil || content == "" {
		return content
	}
	s.load()
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.set.Content(content)
}

// Guard cleans ios's stderr, in place, with a Secrets of getenv: every
// error, warning and log line the process writes there, at any depth and
// up to the last error main prints, goes through it. Each write is
// cleaned on its own: writers of this process write a message per call
// (fmt.Fprintf, a slog record). Guarding again replaces the Secrets.
func Guard(ios *IOStreams, getenv func(string) string) *IOStreams {
	w := ios.ErrOut
	if cw, ok := w.(*cleanWriter); ok {
		w = cw.w
	}
	ios.Secrets = NewSecrets(getenv)
	ios.ErrOut = &cleanWriter{w: w, s: ios.Secrets}
	return ios
}

type cleanWriter struct {
	w io.Writer
	s *Secrets
}

func (c *cleanWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, c.s.Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
