package gitsource

import (
	"net/url"
	"path"
	"regexp"
	"strings"
)

// RemoteBase is a kustomize remote base, parsed as kustomize parses one.
type RemoteBase struct {
	URL  string // what kustomize clones: host and repository path
	Ref  string // ?ref= (or ?version=), "" for HEAD
	Root string // the kustomization's directory in the repository
}

var userRE = regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9-]*)@`)

// ParseKustomizeRemote parses a kustomization entry as kustomize's
// NewRepoSpecFromURL does: an optional "git::" prefix, a scheme (ssh,
// https, http, file) or a scp-like "user@host:" or the bare github.com
// form, then the repository path ending at "_git/<repo>", at "//", after
// ".git", or after two segments (all of them for file://), the rest being
// the kustomization's directory; ok is false for anything else (a local
// path).
func ParseKustomizeRemote(entry string) (RemoteBase, bool) {
	if strings.HasPrefix(entry, "/") {
		return RemoteBase{}, false
	}
	n, query, _ := strings.Cut(entry, "?")
	var rb RemoteBase
	if q, err := url.ParseQuery(query); err == nil {
		rb.Ref = q.Get("version")
		if r := q.Get("ref"); r != "" {
			rb.Ref = r
		}
	}
	host, rest, ok := kustomizeHost(n)
	if !ok {
		return RemoteBase{}, false
	}
	repoPath, root, ok := kustomizePathParts(rest, strings.HasPrefix(host, "file://"))
	if !ok {
		return RemoteBase{}, false
	}
	rb.URL, rb.Root = host+repoPath, root
	return rb, true
}

func kustomizeHost(n string) (string, string, bool) {
	if strings.HasPrefix(strings.ToLower(n), "git::") {
		n = n[len("git::"):]
	}
	scheme := ""
	for _, p := range []string{"ssh://", "https://", "http://", "file://"} {
		if strings.HasPrefix(strings.ToLower(n), p) {
			scheme, n = p, n[len(p):]
			break
		}
	}
	user := ""
	if m := userRE.FindStringSubmatch(n); m != nil {
		user, n = m[1]+"@", n[len(m[1])+1:]
	}
	lower := strings.ToLower(n)
	github := strings.HasPrefix(lower, "github.com/") || strings.HasPrefix(lower, "github.com:")
	scp := scheme == "" && (user != "" || github)
	if scheme == "" && !scp {
		return "", "", false
	}
	if scheme == "file://" {
		return scheme, user + n, true
	}
	host, rest := n, ""
	sep := strings.Index(n, "/")
	if scp {
		if c := strings.Index(n, ":"); sep == -1 || (c > 0 && c < sep) {
			sep = c
		}
	}
	if sep >= 0 {
		host, rest = n[:sep+1], n[sep+1:]
	}
	if github {
		if scheme == "ssh://" || user != "" {
			scheme, host = "", "github.com:"
		} else {
			scheme, user, host = "https://", "", "github.com/"
		}
	}
	if host == "" {
		return "", "", false
	}
	return scheme + user + host, rest, true
}

func kustomizePathParts(n string, all bool) (string, string, bool) {
	var repo, root string
	switch {
	case strings.Contains(n, "_git/"):
		i := strings.Index(n, "_git/") + len("_git/")
		segs := strings.Split(n[i:], "/")
		repo, root = n[:i]+segs[0], strings.Join(segs[1:], "/")
	case strings.Contains(n, "//"):
		repo, root, _ = strings.Cut(n, "//")
	case strings.Contains(n, ".git"):
		i := strings.Index(n, ".git") + len(".git")
		repo, root = n[:i], n[i:]
	case all:
		repo = n
	default:
		segs := strings.Split(n, "/")
		if len(segs) < 2 {
			return "", "", false
		}
		repo, root = strings.Join(segs[:2], "/"), strings.Join(segs[2:], "/")
	}
	if repo == "" {
		return "", "", false
	}
	clean := path.Clean(strings.TrimPrefix(root, "/"))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", "", false
	}
	return repo, strings.TrimPrefix(root, "/"), true
}
