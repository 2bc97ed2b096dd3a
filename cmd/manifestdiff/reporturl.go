package main

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// checkReportURL accepts an absolute http(s) URL without a fragment: the
// note appends "#<anchor>" to it.
func checkReportURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.New("not a URL")
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return errors.New("must be an absolute http or https URL")
	case u.Fragment != "" || strings.Contains(s, "#"):
		return errors.New("must have no #fragment: the note adds one per app")
	}
	return nil
}

// reportURL is where the note's links point: --report-url, else, when
// this run posts the note and writes the HTML report to a file of the
// job, that file as GitLab serves a job's artifact:
// $CI_JOB_URL/artifacts/file/<path from $CI_PROJECT_DIR>. It is "" when
// there is nothing to link to; note says why when a link was expected
// but cannot be made.
func reportURL(o *options, getenv func(string) string) (link, note string) {
	if o.reportURL != "" {
		return o.reportURL, ""
	}
	if !o.post || o.output != "html" || o.outputFile == "" {
		return "", ""
	}
	job := getenv("CI_JOB_URL")
	if job == "" {
		return "", "the note does not link to the HTML report: CI_JOB_URL is not set (GitLab CI sets it; elsewhere pass --report-url URL)"
	}
	rel, err := artifactPath(o.outputFile, getenv("CI_PROJECT_DIR"))
	if err != nil {
		return "", "the note does not link to the HTML report: " + err.Error()
	}
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.TrimSuffix(job, "/") + "/artifacts/file/" + strings.Join(segs, "/"), ""
}

// artifactPath is file relative to the project directory, as artifacts
// paths are; the job's working directory is the project directory unless
// the script changed it, so a relative file is taken from there.
func artifactPath(file, projectDir string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	if projectDir == "" {
		if filepath.IsAbs(file) {
			return "", fmt.Errorf("--output-file %s is absolute and CI_PROJECT_DIR is not set", file)
		}
		return filepath.ToSlash(filepath.Clean(file)), nil
	}
	rel, err := filepath.Rel(projectDir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("--output-file %s is outside CI_PROJECT_DIR %s, where artifacts must be", file, projectDir)
	}
	return filepath.ToSlash(rel), nil
}
