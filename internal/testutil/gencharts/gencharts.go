// Package gencharts builds real Helm charts that generate a value on every
// render of the same inputs (randomness, a clock, the network, map order,
// text rendered from values by tpl), with the generating expression in
// each place a template can sit: a chart's template, a helper, a block, a
// library chart (unpacked or packaged), a subchart (packaged, or two
// deep), values that tpl renders (the chart's own or the app's). The
// tests of manifestdiff's render-once shortcut use them to prove that it
// never hides a generated value.
package gencharts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing/fstest"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/testutil/chartpack"
)

// Generator is a template expression whose only impure function is Func.
// Varies says two renders in one process differ (near) always, so a test
// can check the case is real; Maybe says they differ now and then (a
// duration rounded to the second, a date at midnight); the others never
// do here (lookup and getHostByName offline, the order of a one-key map)
// and must be rendered twice all the same.
type Generator struct {
	Func, Expr    string
	Varies, Maybe bool
}

// Generators covers every template function that can give a different
// value per render, but call (it needs a function value, which no value
// file holds) and env/expandenv (Helm removes them).
func Generators() []Generator {
	ca, key := fixedCA()
	caExpr := fmt.Sprintf("(buildCustomCert %q %q)", ca, key)
	keyPEM := strconv.Quote(string(fixedKeyPEM))
	return []Generator{
		{"now", `now`, true, false},
		{"date", `date "15:04:05.000000000" "not a time: the clock"`, true, false},
		{"dateInZone", `dateInZone "15:04:05.000000000" "x" "UTC"`, true, false},
		{"date_in_zone", `date_in_zone "15:04:05.000000000" "x" "UTC"`, true, false},
		{"htmlDate", `htmlDate "x"`, false, true},
		{"htmlDateInZone", `htmlDateInZone "x" "UTC"`, false, true},
		{"ago", `ago (toDate "2006-01-02" "2020-01-01")`, false, true},
		{"durationRound", `durationRound (toDate "2006-01-02" "2020-01-01")`, false, true},
		{"randAlphaNum", `randAlphaNum 16`, true, false},
		{"randAlpha", `randAlpha 16`, true, false},
		{"randAscii", `randAscii 16`, true, false},
		{"randNumeric", `randNumeric 16`, true, false},
		{"randBytes", `randBytes 16`, true, false},
		{"randInt", `randInt 0 1000000000`, true, false},
		{"uuidv4", `uuidv4`, true, false},
		{"shuffle", `shuffle "abcdefghijklmnopqrstuvwxyz"`, true, false},
		{"genPrivateKey", `genPrivateKey "ecdsa"`, true, false},
		{"genCA", `(genCA "ca" 365).Cert`, true, false},
		{"genCAWithKey", `(genCAWithKey "ca" 365 ` + keyPEM + `).Cert`, true, false},
		{"genSelfSignedCert", `(genSelfSignedCert "x" nil nil 365).Cert`, true, false},
		{"genSelfSignedCertWithKey", `(genSelfSignedCertWithKey "x" nil nil 365 ` + keyPEM + `).Cert`, true, false},
		{"genSignedCert", `(genSignedCert "x" nil nil 365 ` + caExpr + `).Cert`, true, false},
		{"genSignedCertWithKey", `(genSignedCertWithKey "x" nil nil 365 ` + caExpr + ` ` + keyPEM + `).Cert`, true, false},
		{"encryptAES", `encryptAES "secret" "text"`, true, false},
		{"bcrypt", `bcrypt "pw"`, true, false},
		{"htpasswd", `htpasswd "user" "pw"`, true, false},
		{"derivePassword", `derivePassword 1 "long" "pw" "user" "example.com"`, false, false},
		{"getHostByName", `getHostByName "localhost"`, false, false},
		{"lookup", `lookup "v1" "Secret" "ns" "x"`, false, false},
		{"keys", `keys .Values.one | join ","`, false, false},
		{"values", `values .Values.one | join ","`, false, false},
		{"tpl", `tpl "{{ .Chart.Name }}" .`, false, false},
	}
}

// Pure is the control: an expression of pure functions only.
var Pure = Generator{Func: "", Expr: `sha256sum "fixed"`}

// Placement is where a chart holds the generating expression. Tpl says the
// chart renders values with tpl: such a chart always renders twice, even
// when its values generate nothing.
type Placement struct {
	Name string
	Tpl  bool
}

// Placements lists every place Chart can put an expression.
var Placements = []Placement{
	{Name: "template"}, {Name: "helper"}, {Name: "template action"}, {Name: "block"}, {Name: "dynamic include"},
	{Name: "library chart"}, {Name: "library chart, packaged"}, {Name: "subchart, packaged"},
	{Name: "subchart of a subchart"}, {Name: "tpl of the chart's values", Tpl: true},
	{Name: "tpl of the app's values", Tpl: true},
}

// Chart packages chart name (version 0.1.0) with g's expression at p, and
// returns the values the app passes (helm values). Every chart also
// renders the ConfigMap <release>-cfg with data.level from the values'
// level, for a change that is not generated. The generated value is
// data.token of a ConfigMap: <release>-gen, <release>-sub for the
// subchart placements.
func Chart(name string, p Placement, g Generator) (tgz []byte, appValues string, err error) {
	token := g.Expr + " | toString | b64enc"
	files := fstest.MapFS{}
	put := func(fsys fstest.MapFS, p, data string) { fsys[p] = &fstest.MapFile{Data: []byte(data)} }
	put(files, "Chart.yaml", "apiVersion: v2\nname: "+name+"\nversion: 0.1.0\n")
	put(files, "values.yaml", baseValues)
	put(files, "templates/cfg.yaml", cm("cfg", "level: {{ .Values.level | quote }}"))
	define := `{{- define "gen.token" -}}{{ ` + token + ` }}{{- end -}}` + "\n"
	switch p.Name {
	case "template":
		put(files, "templates/gen.yaml", cm("gen", "token: {{ "+token+" | quote }}"))
	case "helper":
		put(files, "templates/_helpers.tpl", define)
		put(files, "templates/gen.yaml", cm("gen", `token: {{ include "gen.token" . | quote }}`))
	case "template action":
		put(files, "templates/_helpers.tpl", define)
		put(files, "templates/gen.yaml", cm("gen", `token: "{{ template "gen.token" . }}"`))
	case "block":
		put(files, "templates/gen.yaml", cm("gen", `token: "{{ block "gen.block" . }}{{ `+token+` }}{{ end }}"`))
	case "dynamic include":
		put(files, "values.yaml", baseValues+"which: token\n")
		put(files, "templates/_helpers.tpl", define)
		put(files, "templates/gen.yaml", cm("gen", `token: {{ include (printf "gen.%s" .Values.which) . | quote }}`))
	case "library chart", "library chart, packaged":
		lib := fstest.MapFS{}
		put(lib, "Chart.yaml", "apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n")
		put(lib, "templates/_lib.tpl", `{{- define "lib.token" -}}{{ `+token+` }}{{- end -}}`+"\n")
		if err := addSubchart(files, "lib", lib, p.Name == "library chart, packaged"); err != nil {
			return nil, "", err
		}
		put(files, "Chart.yaml", "apiVersion: v2\nname: "+name+"\nversion: 0.1.0\ndependencies:\n  - {name: lib, version: 0.1.0}\n")
		put(files, "templates/gen.yaml", cm("gen", `token: {{ include "lib.token" . | quote }}`))
	case "subchart, packaged", "subchart of a subchart":
		gen := fstest.MapFS{}
		put(gen, "values.yaml", baseValues)
		put(gen, "templates/gen.yaml", cm("sub", "token: {{ "+token+" | quote }}"))
		sub := gen
		if p.Name == "subchart of a subchart" {
			put(gen, "Chart.yaml", "apiVersion: v2\nname: deep\nversion: 0.1.0\n")
			sub = fstest.MapFS{}
			put(sub, "values.yaml", "level: a\n")
			if err := addSubchart(sub, "deep", gen, true); err != nil {
				return nil, "", err
			}
		}
		put(sub, "Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n")
		if err := addSubchart(files, "sub", sub, true); err != nil {
			return nil, "", err
		}
	case "tpl of the chart's values":
		put(files, "values.yaml", baseValues+"gen: '{{ "+token+" }}'\n")
		put(files, "templates/gen.yaml", cm("gen", "token: {{ tpl .Values.gen . | quote }}"))
	case "tpl of the app's values":
		put(files, "values.yaml", baseValues+"gen: fixed\n")
		put(files, "templates/gen.yaml", cm("gen", "token: {{ tpl .Values.gen . | quote }}"))
		appValues = "gen: '{{ " + token + " }}'\n"
	default:
		return nil, "", fmt.Errorf("no placement %q", p.Name)
	}
	tgz, err = chartpack.Package(files, name, "0.1.0")
	return tgz, appValues, err
}

const baseValues = "level: a\none: {a: 1}\n"

// cm is a ConfigMap template named <release>-<suffix> with one data line.
func cm(suffix, line string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-" + suffix + "\ndata:\n  " + line + "\n"
}

// addSubchart puts chart sub under charts/ of parent: as a directory, or
// packaged as charts/<name>-0.1.0.tgz.
func addSubchart(parent fstest.MapFS, name string, sub fstest.MapFS, packaged bool) error {
	if !packaged {
		for p, f := range sub {
			parent["charts/"+name+"/"+p] = f
		}
		return nil
	}
	tgz, err := chartpack.Package(sub, name, "0.1.0")
	if err != nil {
		return err
	}
	parent["charts/"+name+"-0.1.0.tgz"] = &fstest.MapFile{Data: tgz}
	return nil
}

// fixedKeyPEM and the CA built on it are made once per process: the
// expressions that need a key or a CA get them as literals, so that the
// function under test is the only one that generates.
var fixedKeyPEM, fixedCACert = func() ([]byte, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fixed ca"},
		NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1700000000, 0).AddDate(10, 0, 0),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	cert, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert})
}()

// fixedCA is the CA's certificate and key, base64 as buildCustomCert takes them.
func fixedCA() (cert, key string) {
	enc := base64.StdEncoding.EncodeToString
	return enc(fixedCACert), enc(fixedKeyPEM)
}

// Names returns the Func of every generator.
func Names(gs []Generator) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Func
	}
	return out
}

// Slug is a chart name for a placement and generator.
func Slug(p Placement, g Generator) string {
	s := strings.NewReplacer(" ", "-", ",", "", "'", "", "_", "-").Replace(strings.ToLower(p.Name + "-" + g.Func))
	return strings.TrimSuffix(s, "-")
}
