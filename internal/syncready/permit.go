package syncready

import (
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gobwas/glob"
)

// The matching below follows Argo CD v3.6's AppProject methods
// (pkg/apis/application/v1alpha1: IsSourcePermitted, isDestinationMatched,
// IsGroupKindNamePermitted), rewritten here: repositories, servers, names
// and namespaces are gobwas globs where a leading "!" denies; groups,
// kinds and cluster object names are filepath.Match patterns.

// globMatch is Argo CD's glob test: with allowDeny, "!p" matches what p
// does not; "*" matches anything; a pattern that does not compile matches
// nothing.
func globMatch(pattern, val string, allowDeny bool, separators ...rune) bool {
	if allowDeny && isDeny(pattern) {
		return !compiledMatch(pattern[1:], val, separators...)
	}
	if pattern == "*" {
		return true
	}
	return compiledMatch(pattern, val, separators...)
}

// globs caches compiled patterns: an env checks thousands of objects
// against the same few destinations.
var globs sync.Map // pattern + "\x00" + separators -> glob.Glob or nil

func compiledMatch(pattern, val string, separators ...rune) bool {
	key := pattern + "\x00" + string(separators)
	v, ok := globs.Load(key)
	if !ok {
		g, err := glob.Compile(pattern, separators...)
		if err != nil {
			g = nil
		}
		v, _ = globs.LoadOrStore(key, g)
	}
	g, _ := v.(glob.Glob)
	return g != nil && g.Match(val)
}

func isDeny(pattern string) bool { return strings.HasPrefix(pattern, "!") }

// normalizeRepo is how Argo CD compares repository URLs: lower case, an
// scp-like SSH address turned into a URL, ".git" and "ssh://" dropped. An
// address url.Parse refuses normalizes to "".
func normalizeRepo(repo string) string {
	repo = strings.ToLower(strings.TrimSpace(repo))
	if isSSH(repo) && !strings.HasPrefix(repo, "ssh://") {
		repo = "ssh://" + strings.Replace(repo, ":", "/", 1)
	}
	repo = strings.TrimSuffix(repo, ".git")
	u, err := url.Parse(repo)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.String(), "ssh://")
}

// isSSH is Argo CD's SSH test, "^(ssh://)?([^/:]*?)@[^@]+$", as string
// operations: a user part free of "/" and ":" before the last "@", and
// something after it.
func isSSH(repo string) bool {
	s := strings.TrimPrefix(repo, "ssh://")
	at := strings.LastIndex(s, "@")
	return at >= 0 && at < len(s)-1 && !strings.ContainsAny(s[:at], "/:")
}

// sourcePermitted reports whether p's sourceRepos permit repoURL: one
// allowing pattern must match and no denying pattern may.
func sourcePermitted(p *Project, repoURL string) bool {
	src := normalizeRepo(repoURL)
	matchedAny := false
	for _, r := range p.SourceRepos {
		pattern := normalizeRepo(r)
		if isDeny(r) {
			pattern = "!" + normalizeRepo(strings.TrimPrefix(r, "!"))
		}
		switch matched := globMatch(pattern, src, true, '/'); {
		case matched:
			matchedAny = true
		case isDeny(pattern):
			return false
		}
	}
	return matchedAny
}

// cluster is the destination cluster as Argo CD resolves it: its server
// and its name. Offline, only what the Application says is known, and the
// in-cluster default's pair.
type cluster struct{ Server, Name string }

const inClusterServer, inClusterName = "https://kubernetes.default.svc", "in-cluster"

func resolveCluster(value string, byName bool) cluster {
	switch {
	case byName && value == inClusterName:
		return cluster{Server: inClusterServer, Name: value}
	case byName:
		return cluster{Name: value}
	case value == inClusterServer:
		return cluster{Server: value, Name: inClusterName}
	}
	return cluster{Server: value}
}

// destinationMatched is Argo CD's isDestinationMatched, including its
// operator precedence: a denying name pattern that does not match
// refuses whatever the namespace; a denying server pattern refuses only
// when the namespace matched.
func destinationMatched(p *Project, c cluster, namespace string) bool {
	matchedAny := false
	for _, d := range p.Destinations {
		nameOK := c.Name != "" && globMatch(d.Name, c.Name, true)
		serverOK := c.Server != "" && globMatch(d.Server, c.Server, true)
		nsOK := globMatch(d.Namespace, namespace, true)
		switch {
		case (serverOK || nameOK) && nsOK:
			matchedAny = true
		case (!nameOK && isDeny(d.Name)) || (!serverOK && isDeny(d.Server)) && nsOK:
			return false
		case !nsOK && isDeny(d.Namespace) && serverOK:
			return false
		}
	}
	return matchedAny
}

// unsure reports whether a refusal of c may be wrong offline: some
// destination names clusters by the field c lacks.
func unsure(p *Project, c cluster) bool {
	for _, d := range p.Destinations {
		if c.Server == "" && d.Server != "" || c.Name == "" && d.Name != "" {
			return true
		}
	}
	return false
}

// kindPermitted is Argo CD's IsGroupKindNamePermitted: namespaced kinds
// pass an absent whitelist, cluster-scoped ones need a whitelist entry.
func kindPermitted(p *Project, group, kind, name string, namespaced bool) bool {
	if namespaced {
		allowed := p.NamespaceAllow == nil || inList(p.NamespaceAllow, group, kind, "", false)
		return allowed && !inList(p.NamespaceDeny, group, kind, "", false)
	}
	return inList(p.ClusterAllow, group, kind, name, true) && !inList(p.ClusterDeny, group, kind, name, true)
}

// inList matches kind and group, and for cluster lists a name pattern
// when one is set.
func inList(list []ResourceRule, group, kind, name string, named bool) bool {
	for _, r := range list {
		if !fileMatch(r.Kind, kind) || !fileMatch(r.Group, group) {
			continue
		}
		if !named || r.Name == "" || fileMatch(r.Name, name) {
			return true
		}
	}
	return false
}

func fileMatch(pattern, val string) bool {
	ok, err := filepath.Match(pattern, val)
	return ok && err == nil
}
