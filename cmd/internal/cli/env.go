package cli

import (
	"fmt"
	"slices"
	"strings"
)

// laptop tells how to set a variable GitLab CI sets in every job.
var laptop = map[string]string{
	"CI_API_V4_URL": "CI_API_V4_URL=https://<your GitLab host>/api/v4",
	"CI_PROJECT_ID": "CI_PROJECT_ID=<project ID or group/project>",
}

// RequireEnv names every missing variable of names at once, with hints
// that are true of GitLab: it sets CI_API_V4_URL and CI_PROJECT_ID in
// every job and CI_MERGE_REQUEST_IID only in merge request pipelines; it
// never sets GITLAB_TOKEN. role is what the token's owner must be allowed
// to do.
func RequireEnv(what, role string, getenv func(string) string, names ...string) error {
	var missing, everyJob, hints []string
	for _, n := range names {
		if getenv(n) != "" {
			continue
		}
		missing = append(missing, n)
		if laptop[n] != "" {
			everyJob = append(everyJob, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if len(everyJob) > 0 {
		var exports []string
		for _, n := range everyJob {
			exports = append(exports, laptop[n])
		}
		hints = append(hints, fmt.Sprintf("GitLab CI sets %s in every job (elsewhere, export %s)", andList(everyJob), andList(exports)))
	}
	if slices.Contains(missing, "CI_MERGE_REQUEST_IID") {
		hints = append(hints, `GitLab CI sets CI_MERGE_REQUEST_IID only in merge request pipelines (rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event")`)
	}
	if slices.Contains(missing, "GITLAB_TOKEN") {
		hints = append(hints, "GitLab does not set GITLAB_TOKEN: create a project or group access token with the api scope and "+
			role+", and store it as a masked CI/CD variable (Settings > CI/CD > Variables) that the job passes as GITLAB_TOKEN")
	}
	return fmt.Errorf("%s needs %s in the environment: %s", what, andList(missing), strings.Join(hints, "; "))
}

func andList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
