package html

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
)

// Fixtures shared by the structure tests and the browser tests.

func parse(t testing.TB, manifest, ns string) []diff.Resource {
	t.Helper()
	rs, err := diff.Parse([]byte(manifest), ns)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func appOf(t testing.TB, env, name, base, head string) report.App {
	t.Helper()
	res := diff.Resources(parse(t, base, env), parse(t, head, env), nil, diff.Options{})
	return report.App{Env: env, Name: name, Status: report.AppStatus(res), Resources: res}
}

func deployment(name, image string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  labels:
    app.kubernetes.io/instance: %[1]s
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: %[2]s
`, name, image)
}

func fixtureFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "diff", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixtureReport mixes every case the page must show: a Secret with
// redacted keys and generated fields, a change shared by apps of two
// environments, an unchanged app, one not rendered, a failure, an added
// app and a status no presenter knows yet.
func fixtureReport(t testing.TB) report.Report {
	t.Helper()
	base, head, again := fixtureFile(t, "base.yaml"), fixtureFile(t, "head.yaml"), fixtureFile(t, "head-again.yaml")
	ignore := diff.Options{Ignore: []string{"metadata.labels.helm.sh/chart", "spec.template.metadata.annotations.checksum/config"}}
	webRes := diff.Resources(parse(t, base, "web"), parse(t, head, "web"), parse(t, again, "web"), ignore)
	r := report.Report{Base: "main", Head: "feature/bump"}
	r.Apps = append(r.Apps,
		report.App{Env: "staging", Name: "web", Status: report.AppStatus(webRes), Resources: webRes},
		appOf(t, "staging", "worker", deployment("worker", "w:1"), deployment("worker", "w:1")),
		appOf(t, "staging", "api", deployment("api", "shared:1"), deployment("api", "shared:2")),
		appOf(t, "staging", "billing", deployment("billing", "shared:1"), deployment("billing", "shared:2")),
		report.App{Env: "staging", Name: "docs", Status: report.StatusUnchanged, NotRendered: "kustomize sources are not rendered"},
		report.App{Env: "prod", Name: "broken", Status: report.StatusError, Error: "prod/broken: render chart web 1.2.3: template: web/templates/x.yaml:3: nil pointer"},
		appOf(t, "prod", "api", deployment("api", "shared:1"), deployment("api", "shared:2")),
		report.App{Env: "prod", Name: "new-app", Status: report.StatusAdded, Resources: diff.Resources(nil, parse(t, deployment("new-app", "n:1"), "prod"), nil, diff.Options{})},
		appOf(t, "prod", "quiet", deployment("quiet", "q:1"), deployment("quiet", "q:1")),
		report.App{Env: "prod", Name: "drifted", Status: "drift", Resources: diff.Resources(
			parse(t, deployment("drifted", "d:1"), "prod"), parse(t, deployment("drifted", "d:2"), "prod"), nil, diff.Options{})},
	)
	return r
}

// hostile are values an attacker who controls a manifest could try: each
// must show as text, never become markup or script.
var hostile = []string{
	`</script><script>window.__pwned=1</script>`,
	`<!-- unterminated`,
	`<img src=x onerror="window.__pwned=2">`,
	`<b onmouseover=alert(1)>bold</b>`,
	`]]></style><style>body{display:none}</style>`,
	"\u2028line\u2029separators",
	`"quoted' & <tag>`,
	`javascript:window.__pwned=3`,
}

// hostileReport carries the hostile values in a manifest, and also in
// every string of the model that reaches the page: names, kinds, errors,
// notes, Secret key names, generated paths.
func hostileReport(t testing.TB) report.Report {
	t.Helper()
	var base, head bytes.Buffer
	fmt.Fprintf(&base, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: evil}\ndata:\n")
	fmt.Fprintf(&head, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: evil}\ndata:\n")
	for i, h := range hostile {
		fmt.Fprintf(&base, "  k%d: %q\n", i, "old")
		fmt.Fprintf(&head, "  k%d: %q\n", i, h)
	}
	res := diff.Resources(parse(t, base.String(), "ns"), parse(t, head.String(), "ns"), nil, diff.Options{})
	res = append(res, bigConfigMap(t, "big", hostile...)...)
	odd := diff.ResourceDiff{APIVersion: "v1", Kind: hostile[2], Namespace: hostile[0], Name: hostile[1], Status: diff.Changed,
		Diff:       "--- a\n+++ b\n@@ -1 +1 @@\n-" + hostile[3] + "\n+" + hostile[4] + "\n",
		Generated:  []string{hostile[5]},
		SecretKeys: []diff.SecretKeyChange{{Key: "data." + hostile[6], Status: "changed"}}}
	return report.Report{Base: hostile[0], Head: hostile[2], Apps: []report.App{
		{Env: "qa", Name: "evil", Status: report.StatusChanged, Resources: append(res, odd)},
		{Env: "qa", Name: "failing", Status: report.StatusError, Error: hostile[0] + hostile[2]},
		{Env: "qa", Name: "skipped", Status: report.StatusChanged, NotRendered: hostile[3] + hostile[7]},
		{Env: hostile[6], Name: "odd-env", Status: report.StatusUnchanged},
	}}
}

// bigConfigMap is an added ConfigMap whose diff is long enough to be
// drawn only when opened, with values of its own and the given ones.
func bigConfigMap(t testing.TB, name string, values ...string) []diff.ResourceDiff {
	t.Helper()
	var y bytes.Buffer
	fmt.Fprintf(&y, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata:\n", name)
	for i := range lazyLines {
		fmt.Fprintf(&y, "  line-%04d: value %d of %s\n", i, i*7919%10007, name)
	}
	for i, v := range values {
		fmt.Fprintf(&y, "  z-%d: %q\n", i, v)
	}
	return diff.Resources(nil, parse(t, y.String(), "ns"), nil, diff.Options{})
}

func render(t testing.TB, r report.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
