package render

import (
	"context"
	"encoding/base64"
	"maps"
	"strings"
	"testing"
)

// planted is a value no message may show, in any form.
const planted = "Pl4nted-VALUE-9k2"

func plantedForms(v string) []string {
	return []string{v, strings.ToUpper(v), strings.ToLower(v),
		base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v))}
}

func demoWith(t *testing.T, extra map[string]string) []byte {
	t.Helper()
	files := maps.Clone(demoFiles)
	maps.Copy(files, extra)
	return packageDir(t, writeChartDir(t, files))
}

// TestHelmErrorsNeverShowValues reproduces every leak of issue 9 item 7
// that goes through Helm, 3 and 4: the message keeps where the problem is
// and loses the value.
func TestHelmErrorsNeverShowValues(t *testing.T) {
	secretTpl := "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\nstringData:\n  pw: {{ .Values.pw }}\n"
	for _, tc := range []struct {
		name string
		req  Request
		want []string // what locates the problem
	}{
		{"unknown anchor in a value file", Request{
			Chart:      chartBytes(t, "demo"),
			ValueFiles: []NamedBytes{{"envs/qa/secrets.yaml", []byte("password: *" + planted + "\n")}}},
			[]string{`values "envs/qa/secrets.yaml"`, "unknown anchor '***' referenced"}},
		{"unknown anchor in rendered output", Request{
			Chart:  demoWith(t, map[string]string{"templates/x.yaml": secretTpl}),
			Values: []byte("pw: '*" + planted + "'\n")},
			[]string{"YAML parse error on demo/templates/x.yaml", "unknown anchor"}},
		{"cannot decode !!str as !!int", Request{
			Chart:  chartBytes(t, "demo"),
			Values: []byte("replicas: !!int " + planted + "\n")},
			[]string{`values "helm.values"`, "cannot decode !!str `***` as a !!int"}},
		{"values.schema.json pattern", Request{
			Chart:      demoWith(t, map[string]string{"values.schema.json": `{"properties": {"password": {"type": "string", "pattern": "^x+$"}}}`}),
			Parameters: []Parameter{{Name: "password", Value: planted, ForceString: true}}},
			[]string{"- at '/password': '***' does not match pattern '^x+$'"}},
		{"fail interpolating a value", Request{
			Chart:  demoWith(t, map[string]string{"templates/x.yaml": `{{ fail (printf "bad password %s" .Values.pw) }}`}),
			Values: []byte("pw: " + planted + "\n")},
			[]string{"execution error at (demo/templates/x.yaml:1:3): bad password ***"}},
		{"fail with a transformed value", Request{
			Chart:      demoWith(t, map[string]string{"templates/x.yaml": `{{ fail (printf "bad %s / %s" (upper .Values.pw) (b64enc .Values.pw)) }}`}),
			ValueFiles: []NamedBytes{{"v.yaml", []byte("pw: " + planted + "\n")}}},
			[]string{"execution error at (demo/templates/x.yaml:1:3): bad *** / ***"}},
		{"required interpolating a value", Request{
			Chart:          demoWith(t, map[string]string{"templates/x.yaml": `{{ required (printf "need x, got %q" .Values.pw) .Values.x }}`}),
			FileParameters: []NamedBytes{{"pw", []byte(planted)}}},
			[]string{"execution error at (demo/templates/x.yaml:1:3): need x, got"}},
		{"tpl of a value", Request{
			Chart:  demoWith(t, map[string]string{"templates/x.yaml": `{{ tpl .Values.pw . }}`}),
			Values: []byte("pw: '{{ " + planted + " }}'\n")},
			[]string{`template: demo/templates/x.yaml:1:3: executing "demo/templates/x.yaml" at <tpl .Values.pw .>: error calling tpl`}},
		{"invalid map key from a value", Request{
			Chart:  demoWith(t, map[string]string{"templates/x.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n{{ .Values.pw }}: 1\n"}),
			Values: []byte("pw: '{a: " + planted + "}'\n")},
			[]string{"YAML parse error on demo/templates/x.yaml", "invalid map key: ***"}},
	} {
		for name, helm := range map[string]func(context.Context, Request) ([]byte, error){"helm3": Helm, "helm4": Helm4} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				_, err := helm(context.Background(), tc.req)
				if err == nil {
					t.Fatal("no error")
				}
				msg := err.Error()
				for _, f := range plantedForms(planted) {
					if strings.Contains(msg, f) {
						t.Errorf("value form %q in %q", f, msg)
					}
				}
				for _, w := range tc.want {
					if !strings.Contains(msg, w) {
						t.Errorf("message %q lacks %q", msg, w)
					}
				}
			})
		}
	}
}
