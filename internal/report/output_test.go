package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// secretForms lists every Secret value of the diff fixtures, and the
// last-applied annotation, in each form a leak could take.
func secretForms(t *testing.T) []string {
	var out []string
	add := func(plain string) {
		sum := sha256.Sum256([]byte(plain))
		out = append(out, plain, base64.StdEncoding.EncodeToString([]byte(plain)), hex.EncodeToString(sum[:]))
	}
	for _, f := range []string{"base.yaml", "head.yaml", "head-again.yaml"} {
		for _, r := range parse(t, fixtureFile(t, f), "web") {
			if meta, ok := r.Object["metadata"].(map[string]any); ok {
				if ann, ok := meta["annotations"].(map[string]any); ok && ann["kubectl.kubernetes.io/last-applied-configuration"] != nil {
					add(fmt.Sprint(ann["kubectl.kubernetes.io/last-applied-configuration"]))
					add("LASTAPPLIED")
				}
			}
			if r.Kind != "Secret" {
				continue
			}
			for _, field := range []string{"data", "stringData"} {
				m, _ := r.Object[field].(map[string]any)
				for _, v := range m {
					s := fmt.Sprint(v)
					add(s)
					if dec, err := base64.StdEncoding.DecodeString(s); err == nil {
						add(string(dec))
					}
				}
			}
		}
	}
	return out
}

func TestNoSecretValueInOutputs(t *testing.T) {
	r := fixtureReport(t)
	var md, js, plain, color bytes.Buffer
	for _, err := range []error{Markdown(&md, r), JSON(&js, r), Diff(&plain, r, false), Diff(&color, r, true)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	forms := secretForms(t)
	if len(forms) < 30 {
		t.Fatalf("only %d secret forms: fixtures changed?", len(forms))
	}
	for name, out := range map[string]string{"markdown": md.String(), "json": js.String(), "diff": plain.String(), "color": color.String()} {
		if !strings.Contains(out, "<redacted: changed>") {
			t.Errorf("%s: no redaction placeholder; fixture not exercised", name)
		}
		for _, s := range forms {
			if strings.Contains(out, s) {
				t.Errorf("%s: secret value %q leaked", name, s)
			}
		}
	}
}

func TestJSONShape(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, fixtureReport(t)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Base, Head string
		Apps       []struct {
			Env, Name, Status, Error string
			Resources                []map[string]any
		}
		Summary Summary
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, a := range doc.Apps {
		order = append(order, a.Env+"/"+a.Name)
		if a.Resources == nil {
			t.Errorf("%s/%s: resources is null, want []", a.Env, a.Name)
		}
		if a.Status == StatusUnchanged && len(a.Resources) != 0 {
			t.Errorf("%s/%s: unchanged app lists resources", a.Env, a.Name)
		}
		for _, res := range a.Resources {
			for _, k := range []string{"apiVersion", "kind", "namespace", "name", "status", "diff"} {
				if _, ok := res[k]; !ok {
					t.Errorf("resource lacks %q: %v", k, res)
				}
			}
		}
	}
	want := []string{"staging/api", "staging/billing", "staging/docs", "staging/web", "staging/worker", "prod/api", "prod/broken", "prod/new-app"}
	if d := cmp.Diff(want, order); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if doc.Summary.Errors != 1 || doc.Apps[6].Error == "" {
		t.Errorf("error app not reported: %+v", doc.Summary)
	}
}

func TestDiffColor(t *testing.T) {
	r := fixtureReport(t)
	var plain, color bytes.Buffer
	if err := Diff(&plain, r, false); err != nil {
		t.Fatal(err)
	}
	if err := Diff(&color, r, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("escape codes without color")
	}
	for _, want := range []string{ansiGreen + "+", ansiRed + "-", ansiCyan + "@@", ansiBold + "=== "} {
		if !strings.Contains(color.String(), want) {
			t.Errorf("colored output lacks %q", want)
		}
	}
	stripped := color.String()
	for _, c := range []string{ansiReset, ansiBold + ansiRed, ansiBold, ansiRed, ansiGreen, ansiCyan} {
		stripped = strings.ReplaceAll(stripped, c, "")
	}
	if stripped != plain.String() {
		t.Error("colored output differs from plain beyond escapes")
	}
}
