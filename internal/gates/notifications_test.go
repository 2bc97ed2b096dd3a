package gates

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/expr-lang/expr"
	"go.yaml.in/yaml/v3"
)

// The shipped Argo CD Notifications config must post what the gates read:
// the status name, a GitLab state, the deployed GitOps commit in the path
// (of the right project, subgroups included), and the deployed charts in
// the description; and its triggers must fire for the states that matter.
// Argo CD renders the webhook templates with text/template and Sprig's
// functions (less env and expandenv) plus its repo.* functions, and
// evaluates trigger conditions with expr-lang/expr; these tests do the
// same on Application objects as Argo CD passes them (decoded JSON).

type notificationsCM struct {
	path, body string
	triggers   []struct {
		Description string `yaml:"description"`
		When        string `yaml:"when"`
		OncePer     string `yaml:"oncePer"`
	}
}

func readNotificationsCM(t *testing.T) notificationsCM {
	t.Helper()
	data, err := os.ReadFile("../../deploy/argocd-notifications-cm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal(data, &cm); err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Webhook map[string]struct{ Method, Path, Body string } `yaml:"webhook"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["template.gitlab-commit-status"]), &tmpl); err != nil {
		t.Fatal(err)
	}
	hook, ok := tmpl.Webhook["gitlab-status"]
	if !ok || hook.Method != "POST" || !strings.Contains(cm.Data["service.webhook.gitlab-status"], "$gitlab-status-token") {
		t.Fatalf("webhook gitlab-status: %+v", tmpl)
	}
	if !strings.Contains(cm.Data["subscriptions"], "on-gitlab-status") || !strings.Contains(cm.Data["subscriptions"], "gitlab-status") {
		t.Errorf("subscriptions not wired to the trigger and the webhook:\n%s", cm.Data["subscriptions"])
	}
	out := notificationsCM{path: hook.Path, body: hook.Body}
	if err := yaml.Unmarshal([]byte(cm.Data["trigger.on-gitlab-status"]), &out.triggers); err != nil || len(out.triggers) != 3 {
		t.Fatalf("trigger.on-gitlab-status: %v %+v", err, out.triggers)
	}
	for i, c := range out.triggers {
		if c.When == "" || c.OncePer == "" {
			t.Fatalf("trigger condition %d: when %q, oncePer %q", i, c.When, c.OncePer)
		}
		// Argo CD compiles every condition when it loads the config: one
		// that does not compile stops all notifications.
		for _, src := range []string{c.When, c.OncePer} {
			if _, err := expr.Compile(src); err != nil {
				t.Fatalf("trigger condition %d does not compile: %q: %v", i, src, err)
			}
		}
	}
	return out
}

// repoFuncs are Argo CD's repo.* template functions that matter here,
// with its semantics: FullNameByRepoURL keeps the first two path segments
// of the URL (enough for GitHub, not for GitLab subgroups).
var repoFuncs = map[string]any{
	"QueryEscape": url.QueryEscape,
	"FullNameByRepoURL": func(u string) string {
		path := u
		if p, err := url.Parse(u); err == nil && p.Host != "" {
			path = p.Path
		} else if _, after, ok := strings.Cut(u, ":"); ok {
			path = after
		}
		parts := strings.FieldsFunc(strings.TrimSuffix(path, ".git"), func(r rune) bool { return r == '/' })
		return strings.Join(parts[:min(2, len(parts))], "/")
	},
}

func render(t *testing.T, text string, vars map[string]any) string {
	t.Helper()
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	tmpl, err := template.New("t").Funcs(f).Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, vars); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// vars are a notification's template variables: the app as Argo CD
// passes it (an unstructured object), the context (strings), repo.*.
func vars(t *testing.T, app string, context map[string]string) map[string]any {
	t.Helper()
	var a map[string]any
	if err := json.Unmarshal([]byte(app), &a); err != nil {
		t.Fatalf("%v\n%s", err, app)
	}
	return map[string]any{"app": a, "context": context, "repo": repoFuncs}
}

func TestNotificationsTemplates(t *testing.T) {
	cm := readNotificationsCM(t)
	const sha = "0123456789abcdef0123456789abcdef01234567"
	multi := func(repo string) string {
		return `{"metadata":{"name":"dlt-node-alpha-backend-preprod","namespace":"argocd"},
			"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"},
			"operationState":{"phase":"Succeeded","syncResult":{
				"sources":[{"repoURL":"https://charts.example.com","chart":"dlt-backend"},{"repoURL":"` + repo + `","ref":"values"}],
				"revisions":["3.1.0","` + sha + `"]}}}}`
	}
	for _, c := range []struct {
		name, repo, project, app, path, state, charts string
	}{
		{"multi-source, healthy", "https://gitlab.example.com/org/gitops-repo.git", "", "",
			"/projects/org%2Fgitops-repo/statuses/" + sha, "success", "dlt-backend@3.1.0"},
		{"a subgroup: the whole path is the project", "https://gitlab.example.com/group/sub/gitops-repo.git", "", "",
			"/projects/group%2Fsub%2Fgitops-repo/statuses/" + sha, "success", "dlt-backend@3.1.0"},
		{"two subgroups, no .git", "https://gitlab.example.com/a/b/c/gitops-repo", "", "",
			"/projects/a%2Fb%2Fc%2Fgitops-repo/statuses/" + sha, "success", "dlt-backend@3.1.0"},
		{"scp-like SSH URL", "git@gitlab.example.com:group/sub/gitops-repo.git", "", "",
			"/projects/group%2Fsub%2Fgitops-repo/statuses/" + sha, "success", "dlt-backend@3.1.0"},
		{"ssh:// URL with a port and a user", "ssh://git@gitlab.example.com:2222/group/sub/gitops-repo.git", "", "",
			"/projects/group%2Fsub%2Fgitops-repo/statuses/" + sha, "success", "dlt-backend@3.1.0"},
		{"relative URL root: gitopsProject names the project", "https://example.com/gitlab/group/sub/gitops-repo.git", "42", "",
			"/projects/42/statuses/" + sha, "success", "dlt-backend@3.1.0"},
		{"app-of-apps, degraded", "https://gitlab.example.com/group/sub/gitops-repo.git", "", `{"metadata":{"name":"dlt-root-preprod","namespace":"argocd"},
			"status":{"sync":{"status":"Synced"},"health":{"status":"Degraded"},
			"operationState":{"phase":"Succeeded","syncResult":{"source":{"repoURL":"https://gitlab.example.com/group/sub/gitops-repo.git","path":"argocd/preprod"},
				"revision":"fedcba9876543210fedcba9876543210fedcba98"}}}}`,
			"/projects/group%2Fsub%2Fgitops-repo/statuses/fedcba9876543210fedcba9876543210fedcba98", "failed", ""},
		{"chart-only app, sync running: no GitOps commit to post on", "https://gitlab.example.com/org/gitops-repo.git", "", `{"metadata":{"name":"x","namespace":"argocd"},
			"status":{"sync":{"status":"OutOfSync"},"health":{"status":"Healthy"},
			"operationState":{"phase":"Running","syncResult":{"source":{"repoURL":"https://charts.example.com","chart":"dlt-vault"},"revision":"1.2.0"}}}}`,
			"/projects/org%2Fgitops-repo/statuses/", "running", "dlt-vault@1.2.0"},
	} {
		ctx := map[string]string{"argocdUrl": "https://argocd.example.com", "gitopsRepoURL": c.repo}
		if c.project != "" {
			ctx["gitopsProject"] = c.project
		}
		app := c.app
		if app == "" {
			app = multi(c.repo)
		}
		v := vars(t, app, ctx)
		if got := render(t, cm.path, v); got != c.path {
			t.Errorf("%s: path %q, want %q", c.name, got, c.path)
		}
		var body struct{ Name, State, Description, Target_URL string }
		raw := render(t, cm.body, v)
		if err := json.Unmarshal([]byte(raw), &body); err != nil {
			t.Fatalf("%s: body is not JSON: %v\n%s", c.name, err, raw)
		}
		name := v["app"].(map[string]any)["metadata"].(map[string]any)["name"].(string)
		if body.Name != StatusPrefix+name || body.State != c.state {
			t.Errorf("%s: body %+v", c.name, body)
		}
		charts := chartsInDescription(body.Description)
		if c.charts != "" {
			chart, ver, _ := strings.Cut(c.charts, "@")
			if charts["chart "+chart] != ver {
				t.Errorf("%s: description %q reads as %v, want %s", c.name, body.Description, charts, c.charts)
			}
		} else if len(charts) != 0 {
			t.Errorf("%s: description %q names charts", c.name, body.Description)
		}
	}
	// What the fix is about: Argo CD's own helper would name another project.
	if got := repoFuncs["FullNameByRepoURL"].(func(string) string)("https://gitlab.example.com/group/sub/gitops-repo.git"); got != "group/sub" {
		t.Errorf("repo.FullNameByRepoURL stand-in: %q", got)
	}
	if strings.Contains(cm.path, "FullNameByRepoURL") {
		t.Error("the path uses repo.FullNameByRepoURL, which drops subgroups")
	}
}

// appIn is an Application after its last sync, as Argo CD stores it.
func appIn(phase, health, finishedAt, healthSince string) string {
	op := ""
	if phase != "" {
		fin := ""
		if finishedAt != "" {
			fin = `,"finishedAt":"` + finishedAt + `"`
		}
		op = `,"operationState":{"phase":"` + phase + `","startedAt":"2025-01-08T10:00:00Z"` + fin + `,
			"syncResult":{"source":{"repoURL":"https://gitlab.example.com/group/sub/gitops-repo.git","path":"argocd/preprod"},"revision":"fedcba98"}}`
	}
	return `{"metadata":{"name":"dlt-root-preprod","namespace":"argocd"},"status":{"sync":{"status":"Synced"},
		"health":{"status":"` + health + `","lastTransitionTime":"` + healthSince + `"}` + op + `}}`
}

// Each state that matters fires exactly the condition whose template
// state matches it, every expression evaluates without error (Argo CD
// logs an error and sends nothing), and oncePer changes with a new sync
// or a health transition, so each is posted once.
func TestNotificationsTriggers(t *testing.T) {
	cm := readNotificationsCM(t)
	ctx := map[string]string{"argocdUrl": "https://argocd.example.com", "gitopsRepoURL": "https://gitlab.example.com/group/sub/gitops-repo.git"}
	// fire evaluates every condition as Argo CD does: the ones that fire,
	// and the oncePer value of each.
	fire := func(name, app string) (fired []int, oncePer []string) {
		t.Helper()
		env := vars(t, app, ctx)
		for i, c := range cm.triggers {
			prog, err := expr.Compile(c.When)
			if err != nil {
				t.Fatalf("condition %d (%s): %v", i, c.Description, err)
			}
			got, err := expr.Run(prog, env)
			if err != nil {
				t.Errorf("%s: condition %d (%s) fails to evaluate (Argo CD would send nothing): %v", name, i, c.Description, err)
				continue
			}
			if b, ok := got.(bool); !ok {
				t.Errorf("%s: condition %d is %T, not a bool", name, i, got)
			} else if b {
				fired = append(fired, i)
				once, err := expr.Eval(c.OncePer, env)
				if err != nil || fmt.Sprint(once) == "" {
					t.Errorf("%s: oncePer of condition %d: %q %v", name, i, once, err)
				}
				oncePer = append(oncePer, fmt.Sprint(once))
			}
		}
		return fired, oncePer
	}
	const (
		success = 0 // indexes of the conditions
		running = 1
		failed  = 2
	)
	state := map[int]string{success: "success", running: "running", failed: "failed"}
	stateRE := regexp.MustCompile(`"state": "([a-z]*)"`)
	for _, c := range []struct {
		name string
		app  string
		want []int
	}{
		{"synced and healthy", appIn("Succeeded", "Healthy", "2025-01-08T10:01:00Z", "2025-01-08T10:02:00Z"), []int{success}},
		{"synced, degraded", appIn("Succeeded", "Degraded", "2025-01-08T10:01:00Z", "2025-01-08T10:05:00Z"), []int{failed}},
		{"synced, progressing", appIn("Succeeded", "Progressing", "2025-01-08T10:01:00Z", "2025-01-08T10:01:30Z"), []int{running}},
		{"sync running", appIn("Running", "Healthy", "", "2025-01-07T09:00:00Z"), []int{running}},
		{"sync failed", appIn("Failed", "Healthy", "2025-01-08T10:01:00Z", "2025-01-07T09:00:00Z"), []int{failed}},
		{"sync errored", appIn("Error", "Healthy", "2025-01-08T10:01:00Z", "2025-01-07T09:00:00Z"), []int{failed}},
		{"never synced, missing", appIn("", "Missing", "", "2025-01-08T10:00:00Z"), []int{failed}},
		{"never synced, healthy: nothing deployed by a sync to report", appIn("", "Healthy", "", "2025-01-08T10:00:00Z"), nil},
	} {
		fired, _ := fire(c.name, c.app)
		if !slices.Equal(fired, c.want) {
			t.Errorf("%s: conditions %v fire, want %v", c.name, fired, c.want)
			continue
		}
		for _, i := range fired {
			m := stateRE.FindStringSubmatch(render(t, cm.body, vars(t, c.app, ctx)))
			if m == nil || m[1] != state[i] {
				t.Errorf("%s: condition %d (%s) fires but the body's state is %v", c.name, i, state[i], m)
			}
		}
	}
	// A new sync, or a health transition, is a new notification.
	_, a := fire("sync 1", appIn("Succeeded", "Healthy", "2025-01-08T10:01:00Z", "2025-01-08T10:02:00Z"))
	_, b := fire("sync 2", appIn("Succeeded", "Healthy", "2025-01-09T10:01:00Z", "2025-01-08T10:02:00Z"))
	_, c := fire("healthy again", appIn("Succeeded", "Healthy", "2025-01-08T10:01:00Z", "2025-01-08T11:00:00Z"))
	if len(a) != 1 || len(b) != 1 || len(c) != 1 || a[0] == b[0] || a[0] == c[0] {
		t.Errorf("oncePer does not change with a new sync or a health transition: %q %q %q", a, b, c)
	}
	_, d1 := fire("degraded", appIn("Succeeded", "Degraded", "2025-01-08T10:01:00Z", "2025-01-08T10:05:00Z"))
	_, d2 := fire("degraded again", appIn("Succeeded", "Degraded", "2025-01-08T10:01:00Z", "2025-01-08T12:00:00Z"))
	if len(d1) != 1 || len(d2) != 1 || d1[0] == d2[0] {
		t.Errorf("oncePer of a second degradation: %q %q", d1, d2)
	}
}
