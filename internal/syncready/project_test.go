package syncready

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func exampleProjects(t *testing.T) map[string]*Project {
	t.Helper()
	data, err := os.ReadFile("testdata/argocd-examples.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ParseProjects("testdata/argocd-examples.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Project{}
	for _, p := range ps {
		out[p.Name] = p
	}
	if len(out) != 5 {
		t.Fatalf("parsed %d projects, want 5", len(out))
	}
	return out
}

// TestArgoCDExamples applies the AppProjects of Argo CD v3.6's docs to
// apps and objects; want is the rules that fire, as Argo CD's
// AppProject methods decide.
func TestArgoCDExamples(t *testing.T) {
	projects := exampleProjects(t)
	const inCluster = "https://kubernetes.default.svc"
	obj := func(apiVersion, kind, ns, name string) []Object {
		return []Object{{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name}}
	}
	tests := []struct {
		name string
		app  App
		want []string
	}{
		{"guestbook namespace", App{Project: "my-project", Server: inCluster, Namespace: "guestbook"}, nil},
		{"guestbook-* glob", App{Project: "my-project", Server: inCluster, Namespace: "guestbook-ui"}, nil},
		{"destination by name", App{Project: "my-project", Server: "in-cluster", ByName: true, Namespace: "guestbook"}, nil},
		{"namespace not listed", App{Project: "my-project", Server: inCluster, Namespace: "default"}, []string{RuleProjectDestination}},
		{"object in another namespace", App{Project: "my-project", Server: inCluster, Namespace: "guestbook",
			Objects: obj("apps/v1", "Deployment", "default", "web")}, []string{RuleProjectNamespace}},
		{"whitelisted namespaced kind", App{Project: "my-project", Server: inCluster, Namespace: "guestbook",
			Objects: obj("apps/v1", "StatefulSet", "guestbook", "db")}, nil},
		{"kind outside the namespace whitelist", App{Project: "my-project", Server: inCluster, Namespace: "guestbook",
			Objects: obj("v1", "Service", "guestbook", "web")}, []string{RuleProjectNSKind}},
		{"blacklisted namespaced kind", App{Project: "my-project", Server: inCluster, Namespace: "guestbook",
			Objects: obj("v1", "ResourceQuota", "guestbook", "q")}, []string{RuleProjectNSKind}},
		{"whitelisted Namespace", App{Project: "my-project", Server: inCluster, Namespace: "guestbook",
			Objects: obj("v1", "Namespace", "", "guestbook")}, nil},
		{"Namespace blacklisted by name", App{Project: "my-project", Server: inCluster, Namespace: "guestbook",
			Objects: obj("v1", "Namespace", "", "kube-public")}, []string{RuleProjectClusterKind}},
		{"cluster kind outside the whitelist", App{Project: "my-project", Server: inCluster, Namespace: "guestbook",
			Objects: obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader")}, []string{RuleProjectClusterKind}},
		// deny-sources has no destinations: every app's is refused
		{"source allowed by *", App{Project: "deny-sources", Repos: []string{"https://github.com/argoproj/argo-cd.git"}},
			[]string{RuleProjectDestination}},
		{"source denied by a ** glob", App{Project: "deny-sources", Repos: []string{"https://gitlab.com/group/sub/repo.git"}},
			[]string{RuleProjectSource, RuleProjectDestination}},
		{"source beside the denied group", App{Project: "deny-sources", Repos: []string{"https://gitlab.com/other/repo"}},
			[]string{RuleProjectDestination}},
		// The docs' ssh:// URL keeps the scp-style colon, which net/url
		// reads as a bad port: the pattern normalizes to "" and Argo CD's
		// rule denies nothing.
		{"the docs' ssh deny pattern", App{Project: "deny-sources", Repos: []string{"git@github.com:argoproj/test"}},
			[]string{RuleProjectDestination}},
		{"namespace denied on any server", App{Project: "deny-destinations", Server: "https://prod", Namespace: "kube-system"},
			[]string{RuleProjectDestination}},
		{"server denied by glob", App{Project: "deny-destinations", Server: "https://team1-a", Namespace: "apps"},
			[]string{RuleProjectDestination}},
		{"other server and namespace", App{Project: "deny-destinations", Server: "https://prod", Namespace: "apps"}, nil},
		{"Namespace name whitelisted", App{Project: "team1-namespaces", Objects: obj("v1", "Namespace", "", "team1-web")},
			[]string{RuleProjectDestination}},
		{"Namespace name outside the whitelist", App{Project: "team1-namespaces", Objects: obj("v1", "Namespace", "", "team2")},
			[]string{RuleProjectDestination, RuleProjectClusterKind}},
		{"default project permits all", App{Server: inCluster, Namespace: "x", Repos: []string{"https://x/y"},
			Objects: obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "r")}, nil},
		{"unknown project", App{Project: "nope"}, []string{RuleProjectMissing}},
	}
	noDefault := map[string]*Project{"my-project": projects["my-project"]}
	for _, tt := range []struct {
		name     string
		projects map[string]*Project
		app      App
		want     []string
	}{
		{"built-in default assumed", noDefault, App{Server: "https://x", Namespace: "n", Objects: obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "r")},
			[]string{RuleProjectMissing + ":info"}},
		{"no AppProject at all", nil, App{Project: "x"}, []string{RuleProjectMissing + ":info"}},
		{"none readable", nil, App{Project: "x"}, []string{RuleProjectMissing + ":error"}},
	} {
		unreadable := ""
		if tt.name == "none readable" {
			unreadable = "projects/qa.yaml: yaml: line 3: mapping values are not allowed in this context"
		}
		fs, err := Check(Env{Name: "qa", Projects: tt.projects, Looked: "testdata", Unreadable: unreadable, Apps: []App{tt.app}})
		var got []string
		for _, f := range fs {
			got = append(got, f.Rule+":"+f.Severity)
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, %v, want %v", tt.name, got, err, tt.want)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.app.Name = "app"
			fs, err := Check(Env{Name: "qa", Projects: projects, Looked: "testdata", Apps: []App{tt.app}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				got = append(got, f.Rule)
				if !strings.Contains(f.Message, "testdata") {
					t.Errorf("message %q names no source file", f.Message)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("rules %v, want %v (%+v)", got, want, fs)
			}
		})
	}
}

func TestNormalizeRepo(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://GitHub.com/Org/Repo.git", "https://github.com/org/repo"},
		{"git@gitlab.com:group/repo.git", "git@gitlab.com/group/repo"},
		{"ssh://git@gitlab.com/group/repo", "git@gitlab.com/group/repo"},
		{"ssh://git@github.com:argoproj/test", ""},
		{"http://127.0.0.1:*", ""}, // a glob in the port does not parse: the pattern permits nothing
	}
	for _, tt := range tests {
		if got := normalizeRepo(tt.in); got != tt.want {
			t.Errorf("normalizeRepo(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMessageNamesLine(t *testing.T) {
	projects := exampleProjects(t)
	fs, err := Check(Env{Name: "qa", Projects: projects, Apps: []App{{Name: "a", Project: "my-project",
		Server: "https://kubernetes.default.svc", Namespace: "default"}}})
	if err != nil || len(fs) != 1 {
		t.Fatalf("findings %+v, %v", fs, err)
	}
	want := "AppProject my-project (testdata/argocd-examples.yaml:12 destinations)"
	if !strings.Contains(fs[0].Message, want) {
		t.Errorf("message %q lacks %q", fs[0].Message, want)
	}
}

// A repoURL's credentials never reach a message.
func TestSourceMessageMasksUserinfo(t *testing.T) {
	p := permissive()
	p.SourceRepos = []string{"https://gitlab.com/other/*"}
	fs, err := Check(Env{Name: "qa", Projects: map[string]*Project{"default": p}, Apps: []App{{Name: "a",
		Server: "https://x", Namespace: "n", Repos: []string{"https://oauth2:s3cret@gitlab.com/group/x.git"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if strings.Contains(f.Message, "s3cret") {
			t.Errorf("credential in %q", f.Message)
		}
	}
	if len(fs) != 1 || fs[0].Rule != RuleProjectSource {
		t.Errorf("the denied source is not reported: %+v", fs)
	}
}
