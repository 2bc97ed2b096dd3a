package scrub

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

const secret = "s3cr3tVALUE"

// The messages below are the real texts Helm 3.22, sigs.k8s.io/yaml,
// jsonschema v6 and kustomize produce for the leaks of issue 9 item 7.
func TestKnownFormsWithoutSet(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"unknown anchor in a values file",
			`parse: error converting YAML to JSON: yaml: unknown anchor '` + secret + `' referenced`,
			`parse: error converting YAML to JSON: yaml: unknown anchor '***' referenced`},
		{"unknown anchor in rendered output",
			`YAML parse error on demo/templates/x.yaml: error converting YAML to JSON: yaml: unknown anchor '` + secret + `' referenced`,
			`YAML parse error on demo/templates/x.yaml: error converting YAML to JSON: yaml: unknown anchor '***' referenced`},
		{"cannot decode !!str as !!int",
			"parse: error converting YAML to JSON: yaml: cannot decode !!str `" + secret + "` as a !!int",
			"parse: error converting YAML to JSON: yaml: cannot decode !!str `***` as a !!int"},
		{"yaml.v3 unmarshal",
			"yaml: unmarshal errors:; line 3: cannot unmarshal !!str `" + secret + "` into int",
			"yaml: unmarshal errors:; line 3: cannot unmarshal !!str `***` into int"},
		{"schema pattern, enum kept",
			`values don't meet the specifications of the schema(s) in the following chart(s):; demo:; - at '/password': '` + secret + `' does not match pattern '^x+$'; - at '/env': value must be one of 'a', 'b'`,
			`values don't meet the specifications of the schema(s) in the following chart(s):; demo:; - at '/password': '***' does not match pattern '^x+$'; - at '/env': value must be one of 'a', 'b'`},
		{"schema format",
			`- at '/mail': '` + secret + `' is not valid email: missing @`,
			`- at '/mail': '***' is not valid email: missing @`},
		{"schema pattern with an escaped quote",
			`- at '/p': 'a\'b ` + secret + `' does not match pattern '^x$'`,
			`- at '/p': '***' does not match pattern '^x$'`},
		{"kustomize literal",
			`kustomize build app: accumulating resources: invalid literal source ` + secret + `, expected key=value`,
			`kustomize build app: accumulating resources: invalid literal source ***, expected key=value`},
		{"invalid map key",
			`YAML parse error on demo/templates/x.yaml: error converting YAML to JSON: yaml: invalid map key: map[interface {}]interface {}{"a":"` + secret + `"}`,
			`YAML parse error on demo/templates/x.yaml: error converting YAML to JSON: yaml: invalid map key: ***`},
		{"tpl of a value",
			`template: demo/templates/x.yaml:1:3: executing "demo/templates/x.yaml" at <tpl .Values.password .>: error calling tpl: cannot parse template "{{ ` + secret + ` }}": template: gotpl:1: function "` + secret + `" not defined`,
			`template: demo/templates/x.yaml:1:3: executing "demo/templates/x.yaml" at <tpl .Values.password .>: error calling tpl: cannot parse template "***": template: gotpl:1: function "***" not defined`},
		{"quoted span in unknown text",
			`something odd about "` + secret + `" and '` + secret + `'`,
			`something odd about "***" and '***'`},
		{"apostrophes are not quotes",
			`values don't meet it; can't parse`, `values don't meet it; can't parse`},
		{"yaml punctuation stays",
			`yaml: line 4: could not find expected ':'`, `yaml: line 4: could not find expected ':'`},
		{"url userinfo",
			`fetching https://oauth2:` + secret + `@gitlab.example.com/a.git failed`,
			`fetching https://***@gitlab.example.com/a.git failed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *Set
			if got := s.Foreign(tc.in); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestValuesAnywhere(t *testing.T) {
	var s Set
	s.AddYAML([]byte("db:\n  password: " + secret + "\n  port: 5432\n  user: ab\n  phrase: two words & more\nenabled: true\nkey: |\n  line-one-secret\n  line-two-secret\n"))
	for _, tc := range []struct{ name, in, want string }{
		{"fail interpolating a value",
			`execution error at (demo/templates/x.yaml:1:3): bad password ` + secret,
			`execution error at (demo/templates/x.yaml:1:3): bad password ***`},
		{"upper-cased by the template",
			`error calling fail: ` + strings.ToUpper(secret), `error calling fail: ***`},
		{"base64 of the value", `got ` + base64.StdEncoding.EncodeToString([]byte(secret)), `got ***`},
		{"inside a longer base64 text",
			`body: ` + base64.StdEncoding.EncodeToString([]byte("x:"+secret+":y")), ``},
		{"url-escaped", `?p=` + url.QueryEscape("two words & more") + `&q=1`, `?p=***&q=1`},
		{"number value", `port 5432 refused`, `port *** refused`},
		{"short value as a token", `user ab is not allowed`, `user *** is not allowed`},
		{"short value inside a word stays", `table of abc`, `table of abc`},
		{"short value inside a position stays", `yaml: line 4: ab`, `yaml: line 4: ***`},
		{"booleans are not masked", `enabled must be true`, `enabled must be true`},
		{"multi-line value, line by line", `got line-two-secret here`, `got *** here`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Foreign(tc.in)
			if tc.want != "" && got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			for _, leak := range []string{secret, strings.ToUpper(secret), "line-two-secret"} {
				if strings.Contains(got, leak) {
					t.Errorf("%q leaked in %q", leak, got)
				}
			}
		})
	}
}

func TestShortValueInPositions(t *testing.T) {
	var s Set
	s.Add("3", "x")
	in := `template: demo/templates/x.yaml:3:3: executing "demo/templates/x.yaml" at <.Values.x>: got 3`
	want := `template: demo/templates/x.yaml:3:3: executing "demo/templates/x.yaml" at <.Values.x>: got ***`
	if got := s.Foreign(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestKeep(t *testing.T) {
	var s Set
	s.Add("shop", secret)
	s.Keep("shop/templates/deployment.yaml", "a[x")
	in := `parameter "a[x" (--set): error in shop/templates/deployment.yaml for shop: "` + secret + `"`
	want := `parameter "a[x" (--set): error in shop/templates/deployment.yaml for ***: "***"`
	if got := s.Foreign(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// a kept name inside a quoted span keeps only itself
	in = `odd "` + secret + ` near shop/templates/deployment.yaml"`
	want = `odd "***shop/templates/deployment.yaml"`
	if got := s.Foreign(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestTextKeepsOurQuotes(t *testing.T) {
	var s Set
	s.Add(secret)
	in := `env qa, app web: render release "web" chart demo-1.2.3 values "envs/qa.yaml": bad ` + secret
	want := `env qa, app web: render release "web" chart demo-1.2.3 values "envs/qa.yaml": bad ***`
	if got := s.Text(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestCredentialEcho: a server that echoes the request's Authorization
// header in its error body.
func TestCredentialEcho(t *testing.T) {
	const token = "glpat-Zx9_tok3n-ABCDEFGH"
	const pass = "p@ss/w#rd with space"
	var s Set
	s.AddCredential("oauth2", token)
	s.AddCredential("", token)
	s.AddCredential("robot", pass)
	basic := func(u, p string) string { return base64.StdEncoding.EncodeToString([]byte(u + ":" + p)) }
	for _, echo := range []string{
		"Authorization: Basic " + basic("oauth2", token),
		"Authorization: Basic " + basic("robot", pass),
		"Authorization: Bearer " + token,
		"PRIVATE-TOKEN: " + token,
		"token=" + url.QueryEscape(token),
		"pw=" + url.QueryEscape(pass),
		"raw " + base64.StdEncoding.EncodeToString([]byte(token)),
		"headers " + base64.StdEncoding.EncodeToString([]byte("X: 1\r\nAuthorization: oauth2:"+token+"\r\n")),
		`{"auth":"` + basic("gitlab-ci-token", token) + `"}`,
	} {
		got := s.Foreign("401 Unauthorized: " + echo)
		for _, leak := range []string{token, pass, basic("oauth2", token), basic("robot", pass), basic("gitlab-ci-token", token),
			url.QueryEscape(token), url.QueryEscape(pass), base64.StdEncoding.EncodeToString([]byte(token))} {
			if strings.Contains(got, leak) {
				t.Errorf("%q leaked in %q", leak, got)
			}
		}
		if !strings.Contains(got, Mask) {
			t.Errorf("nothing masked in %q", got)
		}
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://oauth2:ab/cd@gitlab.example.com/g/r.git": "https://***@gitlab.example.com/g/r.git",
		"https://oauth2:ab#cd@gitlab.example.com/g/r.git": "https://***@gitlab.example.com/g/r.git",
		"https://oauth2:a b@gitlab.example.com/g/r.git":   "https://***@gitlab.example.com/g/r.git",
		"https://user:p@ss@host/x":                        "https://***@host/x",
		"https://TOKEN@host/x":                            "https://***@host/x",
		"https://host/x":                                  "https://host/x",
		"oci://robot:p/w@registry.example.com/charts":     "oci://***@registry.example.com/charts",
		"robot:p/w@registry.example.com/charts":           "***@registry.example.com/charts",
		"git@gitlab.example.com:g/r.git":                  "git@gitlab.example.com:g/r.git",
		"":                                                "",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
	var s Set
	s.AddURL("https://oauth2:ab%2Fcd-efgh@host/x")
	s.AddURL("https://Tok-As-User-9z@host/x")
	for _, leak := range []string{"ab%2Fcd-efgh", "ab/cd-efgh", "Tok-As-User-9z"} {
		if got := s.Text("echo " + leak); strings.Contains(got, leak) {
			t.Errorf("%q leaked: %q", leak, got)
		}
	}
	// an SSH user is a login name, not a secret: "git pull" stays
	s.AddURL("ssh://git@127.0.0.1:2222/group/fleet.git")
	s.AddURL("git@gitlab.example.com:g/r.git")
	if got := s.Text("either pull (git pull --ff-only) and re-run"); strings.Contains(got, Mask) {
		t.Errorf("an SSH login name was masked: %q", got)
	}
}

func TestErrorUnwraps(t *testing.T) {
	sentinel := errors.New("sentinel")
	var s Set
	s.Add(secret)
	err := s.Error(fmt.Errorf("wrapped %s: %w", secret, sentinel))
	if !errors.Is(err, sentinel) {
		t.Error("errors.Is lost")
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("leak: %v", err)
	}
	if s.Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
}

func TestSecretDataDecoded(t *testing.T) {
	var s Set
	s.Add(base64.StdEncoding.EncodeToString([]byte("hunter2-pass")))
	if got := s.Text("value hunter2-pass"); strings.Contains(got, "hunter2") {
		t.Errorf("decoded Secret data leaked: %q", got)
	}
}

func TestInvalidYAMLStillRegistered(t *testing.T) {
	var s Set
	s.AddYAML([]byte("password: *" + secret + "\nother: [unclosed, " + secret + "2\n"))
	for _, leak := range []string{secret, secret + "2"} {
		if got := s.Text("x " + leak + " y"); strings.Contains(got, leak) {
			t.Errorf("%q leaked: %q", leak, got)
		}
	}
}

func TestShortValueInTemplateAction(t *testing.T) {
	var s Set
	s.Add("tpl")
	in := `template: c/templates/x.yaml:73:3: executing "c/templates/x.yaml" at <tpl .Values.pw .>: error calling tpl: cannot parse`
	if got := s.Foreign(in); got != in {
		t.Errorf("got\n%s\nwant\n%s", got, in)
	}
	// a template made by tpl from values is not chart source
	in = `template: gotpl:1:3: executing "gotpl" at <tpl x>: bad`
	if got := s.Foreign(in); !strings.Contains(got, "<*** x>") {
		t.Errorf("gotpl action kept: %s", got)
	}
}

func TestCommonWordsStayReadable(t *testing.T) {
	var s Set
	s.AddYAML([]byte("logLevel: error\nmode: deep\nimage: nginx\n"))
	for _, in := range []string{
		`YAML parse error on c/templates/x.yaml: error converting YAML to JSON: yaml: line 2: did not find expected key`,
		`document 1: nested deeper than 256 levels; 2 errors`,
		`execution error at (c/templates/x.yaml:1:2): bad`,
	} {
		if got := s.Foreign(in); got != in {
			t.Errorf("got\n%s\nwant\n%s", got, in)
		}
	}
	if got := s.Foreign("level ERROR is not allowed with nginx"); got != "level *** is not allowed with ***" {
		t.Errorf("words as tokens: %s", got)
	}
}

func TestShortValuesInsideNames(t *testing.T) {
	var s Set
	s.AddYAML([]byte("replicas: 1\nenv: qa\n"))
	in := `cannot reach chart repository http://127.0.0.1:43071 (127.0.0.1:43071) for envs/qa/values.yaml in ledger-qa`
	if got := s.Foreign(in); got != in {
		t.Errorf("got\n%s\nwant\n%s", got, in)
	}
	if got := s.Foreign("replicas must be 2, got 1; env qa is unknown"); got != "replicas must be 2, got ***; env *** is unknown" {
		t.Errorf("short values as tokens: %s", got)
	}
}

func TestDocumentPositionsAndKeys(t *testing.T) {
	var s Set
	s.AddYAML([]byte("a: 1\nb: source\nc: line\n"))
	in := `parsing rendered manifests: document 1 (line 1, source app-gateway.yaml): yaml: unmarshal errors: line 17: mapping key "targetRevision" already defined at line 16`
	if got := s.Text(in); got != in {
		t.Errorf("got\n%s\nwant\n%s", got, in)
	}
}

// A value with '/' and a space, written in a URL path, keeps its '/'
// where url.PathEscape would escape it.
func TestValueInAURLPath(t *testing.T) {
	var s Set
	s.AddCredential("", "pa/ss word-9")
	msg := "unsupported url \"ftp://" + (&url.URL{Path: "pa/ss word-9"}).EscapedPath() + "\""
	if got := s.Text(msg); got != `unsupported url "ftp://***"` {
		t.Errorf("Text(%q) = %q", msg, got)
	}
}
