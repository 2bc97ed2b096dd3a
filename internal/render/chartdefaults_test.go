package render

import (
	"context"
	"strings"
	"testing"
)

// TestChartDefaultsNeverShow: a chart's own values.yaml and a subchart's
// are input values: fail, required and the other error forms that print
// them show *** in Helm 3 and 4, for a packaged chart and for a chart
// directory. (Neither Helm applies a values.schema.json default to the
// values: a template reads nil, so none is tested here.)
func TestChartDefaultsNeverShow(t *testing.T) {
	const sub = "charts/sub/"
	subChart := map[string]string{
		sub + "Chart.yaml":  "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
		sub + "values.yaml": "token: Sub-" + planted + "\n",
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"fail with the chart's default", map[string]string{
			"values.yaml":      "pw: " + planted + "\n",
			"templates/x.yaml": `{{ fail (printf "bad password %s" .Values.pw) }}`},
			"execution error at (demo/templates/x.yaml:1:3): bad password ***"},
		{"required quoting a default", map[string]string{
			"values.yaml":      "pw: " + planted + "\n",
			"templates/x.yaml": `{{ required (printf "need x, got %q" (b64enc .Values.pw)) .Values.x }}`},
			"execution error at (demo/templates/x.yaml:1:3): need x, got"},
		{"fail with a subchart's default", mergeFiles(subChart, map[string]string{
			sub + "templates/x.yaml": `{{ fail (printf "sub token %s" (upper .Values.token)) }}`}),
			"sub token ***"},
		{"unknown anchor from a default", map[string]string{
			"values.yaml": "pw: '*" + planted + "'\n",
			// the demo's deployment reads values this values.yaml drops
			"templates/deployment.yaml": "",
			"templates/x.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  pw: {{ .Values.pw }}\n"},
			"YAML parse error on demo/templates/x.yaml"},
	} {
		for name, helm := range map[string]func(context.Context, Request) ([]byte, error){"helm3": Helm, "helm4": Helm4} {
			for _, dir := range []bool{false, true} {
				t.Run(tc.name+"/"+name+map[bool]string{true: "/dir"}[dir], func(t *testing.T) {
					req := Request{Chart: demoWith(t, tc.files)}
					if dir {
						req = Request{ChartDir: writeChartDir(t, mergeFiles(demoFiles, tc.files))}
					}
					_, err := helm(context.Background(), req)
					if err == nil {
						t.Fatal("no error")
					}
					msg := err.Error()
					for _, f := range plantedForms(planted) {
						if strings.Contains(msg, f) {
							t.Errorf("value form %q in %q", f, msg)
						}
					}
					if !strings.Contains(msg, tc.want) {
						t.Errorf("message %q lacks %q", msg, tc.want)
					}
				})
			}
		}
	}
}

func mergeFiles(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
