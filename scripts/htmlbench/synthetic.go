package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
	reporthtml "github.com/gitops-promote/gitops-promote/internal/report/html"
)

// synthetic writes the HTML and JSON reports of apps apps, each adding a
// ConfigMap of lines lines that no other app shares.
func synthetic(htmlFile, jsonFile string, apps, lines int) error {
	r := report.Report{Base: "base", Head: "head"}
	for i := range apps {
		name := fmt.Sprintf("app-%04d", i)
		var y strings.Builder
		fmt.Fprintf(&y, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s-config}\ndata:\n", name)
		for j := range lines - 5 {
			// a value of its own: apps differing only in their name would be grouped
			fmt.Fprintf(&y, "  key-%05d: setting %x, long enough to look like a real one\n", j, sha256.Sum256(fmt.Appendf(nil, "%s/%d", name, j)))
		}
		head, err := diff.Parse([]byte(y.String()), "ns-"+name)
		if err != nil {
			return err
		}
		res := diff.Resources(nil, head, nil, diff.Options{})
		r.Apps = append(r.Apps, report.App{Env: "prod", Name: name, Status: report.StatusAdded, Resources: res})
	}
	var h, j bytes.Buffer
	if err := reporthtml.Write(&h, r); err != nil {
		return err
	}
	if err := report.JSON(&j, r); err != nil {
		return err
	}
	if err := os.WriteFile(htmlFile, h.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(jsonFile, j.Bytes(), 0o644)
}
