package git

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Identity returns the author and committer git would use: for each,
// GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL (GIT_COMMITTER_* for the committer),
// else author.name/author.email (committer.*), else user.name/user.email
// from the merged system, global (XDG and ~/.gitconfig, or
// GIT_CONFIG_GLOBAL) and repository config, else $EMAIL for the email.
// Unlike git it never guesses from the host name: a missing name or email
// is an error wrapping ErrNoIdentity.
func (r *Repo) Identity() (author, committer Signature, err error) {
	cfg, err := r.mergedConfig()
	if err != nil {
		return Signature{}, Signature{}, err
	}
	author, err = identityFor(cfg, "author")
	if err != nil {
		return Signature{}, Signature{}, err
	}
	committer, err = identityFor(cfg, "committer")
	if err != nil {
		return Signature{}, Signature{}, err
	}
	return author, committer, nil
}

func identityFor(cfg *formatcfg.Config, role string) (Signature, error) {
	envPrefix := "GIT_AUTHOR_"
	if role == "committer" {
		envPrefix = "GIT_COMMITTER_"
	}
	lookup := func(key string, fallbacks ...string) string {
		if v := os.Getenv(envPrefix + key); v != "" {
			return v
		}
		for _, section := range []string{role, "user"} {
			if v := cfg.Section(section).Option(key); v != "" {
				return v
			}
		}
		for _, env := range fallbacks {
			if v := os.Getenv(env); v != "" {
				return v
			}
		}
		return ""
	}
	s := Signature{Name: lookup("NAME"), Email: lookup("EMAIL", "EMAIL")}
	if s.Name == "" || s.Email == "" {
		return Signature{}, fmt.Errorf("%s: set user.name and user.email with git config, or %sNAME and %sEMAIL: %w",
			role, envPrefix, envPrefix, ErrNoIdentity)
	}
	return s, nil
}

// mergedConfig reads the config files in git's order, later ones winning,
// once per Repo: a promotion asks for the identity twice (commit, reflog).
func (r *Repo) mergedConfig() (*formatcfg.Config, error) {
	r.cfgOnce.Do(func() { r.cfg, r.cfgErr = r.readMergedConfig() })
	return r.cfg, r.cfgErr
}

func (r *Repo) readMergedConfig() (*formatcfg.Config, error) {
	cfg := formatcfg.New()
	for _, p := range r.configPaths() {
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading git config: %w", err)
		}
		err = formatcfg.NewDecoder(f).Decode(cfg)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("parsing git config %s: %w", p, err)
		}
	}
	return cfg, nil
}

func (r *Repo) configPaths() []string {
	var paths []string
	if noSystem, _ := strconv.ParseBool(os.Getenv("GIT_CONFIG_NOSYSTEM")); !noSystem {
		sys := os.Getenv("GIT_CONFIG_SYSTEM")
		if sys == "" {
			sys = "/etc/gitconfig"
		}
		paths = append(paths, sys)
	}
	if global := os.Getenv("GIT_CONFIG_GLOBAL"); global != "" {
		paths = append(paths, global)
	} else {
		home, _ := os.UserHomeDir()
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			paths = append(paths, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			paths = append(paths, filepath.Join(home, ".gitconfig"))
		}
	}
	return append(paths, filepath.Join(r.commonDir, "config"))
}
