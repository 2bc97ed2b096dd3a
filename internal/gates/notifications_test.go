package gates

import (
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"
	"text/template"

	"go.yaml.in/yaml/v3"
)

// The shipped Argo CD Notifications config must post what the gates read:
// the status name, a GitLab state, the deployed GitOps commit in the path,
// and the deployed charts in the description. Its webhook templates are Go
// templates, as Argo CD executes them; this renders them for sample apps.
// (Its trigger conditions are expr-lang expressions, not evaluated here.)
func TestNotificationsTemplates(t *testing.T) {
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
	for _, key := range []string{"trigger.on-gitlab-status", "subscriptions"} {
		if !strings.Contains(cm.Data[key], "gitlab") {
			t.Errorf("%s missing or not wired to the gitlab webhook", key)
		}
	}
	repo := "https://gitlab.example.com/org/gitops-repo.git"
	vars := func(app string) map[string]any {
		var a map[string]any
		if err := json.Unmarshal([]byte(app), &a); err != nil {
			t.Fatal(err)
		}
		return map[string]any{
			"app":     a,
			"context": map[string]any{"argocdUrl": "https://argocd.example.com", "gitopsRepoURL": repo},
			"repo": map[string]any{
				"QueryEscape": url.QueryEscape,
				"FullNameByRepoURL": func(u string) string {
					p, _ := url.Parse(u)
					return strings.TrimSuffix(strings.TrimPrefix(p.Path, "/"), ".git")
				},
			},
		}
	}
	render := func(text string, v map[string]any) string {
		out := &strings.Builder{}
		if err := template.Must(template.New("t").Option("missingkey=zero").Parse(text)).Execute(out, v); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	for _, c := range []struct {
		name, app, path, state, charts string
	}{
		{"multi-source, healthy", `{"metadata":{"name":"dlt-node-alpha-backend-preprod","namespace":"argocd"},
			"status":{"sync":{"status":"OutOfSync"},"health":{"status":"Healthy"},
			"operationState":{"phase":"Succeeded","syncResult":{
				"sources":[{"repoURL":"https://charts.example.com","chart":"dlt-backend"},{"repoURL":"` + repo + `","ref":"values"}],
				"revisions":["3.1.0","0123456789abcdef0123456789abcdef01234567"]}}}}`,
			"/projects/org%2Fgitops-repo/statuses/0123456789abcdef0123456789abcdef01234567", "success", "dlt-backend@3.1.0"},
		{"app-of-apps, degraded", `{"metadata":{"name":"dlt-root-preprod","namespace":"argocd"},
			"status":{"sync":{"status":"Synced"},"health":{"status":"Degraded"},
			"operationState":{"phase":"Succeeded","syncResult":{"source":{"repoURL":"` + repo + `","path":"argocd/preprod"},
				"revision":"fedcba9876543210fedcba9876543210fedcba98"}}}}`,
			"/projects/org%2Fgitops-repo/statuses/fedcba9876543210fedcba9876543210fedcba98", "failed", ""},
		{"chart-only app, sync running: no GitOps commit to post on", `{"metadata":{"name":"x","namespace":"argocd"},
			"status":{"sync":{"status":"OutOfSync"},"health":{"status":"Healthy"},
			"operationState":{"phase":"Running","syncResult":{"source":{"repoURL":"https://charts.example.com","chart":"dlt-vault"},"revision":"1.2.0"}}}}`,
			"/projects/org%2Fgitops-repo/statuses/", "running", "dlt-vault@1.2.0"},
	} {
		v := vars(c.app)
		if got := render(hook.Path, v); got != c.path {
			t.Errorf("%s: path %q, want %q", c.name, got, c.path)
		}
		var body struct{ Name, State, Description, Target_URL string }
		raw := render(hook.Body, v)
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
}
