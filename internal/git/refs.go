package git

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// updateHead moves HEAD's branch, or HEAD itself when detached, from old
// to new. It is a compare-and-swap under git's own lock protocol: the ref
// is locked by creating <ref>.lock exclusively, re-read under the lock,
// and replaced by renaming the lock file over it, so a concurrent git
// process or a kill -9 never sees a torn ref. If the ref no longer points
// at old (zero hash: must not exist) the error wraps ErrRefMoved. A
// branch that exists only in packed-refs gets a loose ref, as git does.
// A reflog line is appended to reflogs that already exist.
func (r *Repo) updateHead(old, new plumbing.Hash) error {
	name, refPath, err := r.headTarget()
	if err != nil {
		return err
	}
	if err := r.casRef(name, refPath, &old, new); err != nil {
		return err
	}
	logs := []string{filepath.Join(r.gitDir, "logs", "HEAD")}
	if name != "HEAD" {
		logs = append(logs, filepath.Join(r.commonDir, "logs", filepath.FromSlash(name)))
	}
	// The ref has moved; a reflog is a convenience, so failing to write one
	// must not turn a successful update into an error.
	_ = r.appendReflogs(logs, old, new)
	return nil
}

// headTarget returns the ref HEAD points at (or "HEAD" when detached) and
// the file holding it.
func (r *Repo) headTarget() (name, path string, err error) {
	headPath := filepath.Join(r.gitDir, "HEAD")
	b, err := os.ReadFile(headPath)
	if err != nil {
		return "", "", fmt.Errorf("reading HEAD: %w", err)
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
	if !ok {
		return "HEAD", headPath, nil
	}
	if !strings.HasPrefix(target, "refs/") || validPath(target) != nil {
		return "", "", fmt.Errorf("reading HEAD: bad symbolic ref %q", target)
	}
	return target, filepath.Join(r.commonDir, filepath.FromSlash(target)), nil
}

// casRef replaces the ref under git's lock protocol; with old set, only if
// the ref still holds *old (zero: does not exist).
func (r *Repo) casRef(name, refPath string, old *plumbing.Hash, new plumbing.Hash) (err error) {
	if err := os.MkdirAll(filepath.Dir(refPath), 0o755); err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	lockPath := refPath + ".lock"
	step("create", lockPath)
	f, err := os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("updating %s: %s exists: another git process is running, or one crashed and the file must be removed", name, lockPath)
	}
	if err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			step("unlink", lockPath)
			os.Remove(lockPath)
		}
	}()
	if old != nil {
		cur, err := r.readRefValue(name, refPath)
		if err != nil {
			return fmt.Errorf("updating %s: %w", name, err)
		}
		if cur != *old {
			return fmt.Errorf("updating %s: at %s, expected %s: %w", name, cur, *old, ErrRefMoved)
		}
	}
	step("write", lockPath)
	if _, err := f.WriteString(new.String() + "\n"); err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	if r.fsync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("updating %s: %w", name, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	step("rename", refPath)
	if err := os.Rename(lockPath, refPath); err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	return nil
}

// readRefValue reads a ref from its loose file, else from packed-refs;
// zero hash if it exists in neither.
func (r *Repo) readRefValue(name, refPath string) (plumbing.Hash, error) {
	b, err := os.ReadFile(refPath)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if !plumbing.IsHash(s) {
			return plumbing.ZeroHash, fmt.Errorf("%s is not a plain hash ref: %q", name, s)
		}
		return plumbing.NewHash(s), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return plumbing.ZeroHash, err
	}
	if name == "HEAD" {
		return plumbing.ZeroHash, nil
	}
	return r.packedRef(name)
}

func (r *Repo) packedRef(name string) (plumbing.Hash, error) {
	f, err := os.Open(filepath.Join(r.commonDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		hash, ref, ok := strings.Cut(sc.Text(), " ")
		if ok && ref == name && plumbing.IsHash(hash) {
			return plumbing.NewHash(hash), nil
		}
	}
	if err := sc.Err(); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading packed-refs: %w", err)
	}
	return plumbing.ZeroHash, nil
}

// appendReflogs appends one line, in git's format, to each existing log.
func (r *Repo) appendReflogs(logs []string, old, new plumbing.Hash) error {
	_, who, err := r.Identity()
	if err != nil {
		return err
	}
	msg := "commit"
	if s, ok := r.subjects.Load(new); ok {
		msg = "commit: " + s.(string)
	} else if c, err := r.repo.CommitObject(new); err == nil {
		msg = "commit: " + subject(c.Message)
	}
	now := time.Now()
	line := fmt.Sprintf("%s %s %s <%s> %d %s\t%s\n",
		old, new, who.Name, who.Email, now.Unix(), now.Format("-0700"), msg)
	for _, p := range logs {
		step("append", p)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			continue
		}
		_, werr := f.WriteString(line)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
	}
	return nil
}

// subject is a commit message's first line, as git's reflog shows it.
func subject(msg string) string {
	s, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return s
}
