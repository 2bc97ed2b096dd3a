package versions

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

var (
	// ErrUnpinned marks a version that floats: a range, a wildcard, a tag
	// like latest or a branch name.
	ErrUnpinned = errors.New("version is not pinned")
	// ErrDowngrade marks a chartVersion that would move backwards.
	ErrDowngrade = errors.New("chart version downgrade")
	// ErrPromotionPath marks a --from that is not the environment just
	// before --to.
	ErrPromotionPath = errors.New("not the next step of the promotion path")
	// ErrSameEnv marks a --from equal to --to: no flag gets past it.
	ErrSameEnv = errors.New("--from and --to name the same environment")
)

// floatingTags never identify one build, whatever registry they live in.
var floatingTags = []string{
	"latest", "main", "master", "develop", "development", "dev", "head", "trunk",
	"stable", "edge", "nightly", "snapshot", "current", "release", "next", "canary",
}

var (
	rangeChars = regexp.MustCompile(`[\^~*<>=|]|\s-\s|\s`)
	wildcard   = regexp.MustCompile(`(^|\.)[xX*](\.|$)`)
	digest     = regexp.MustCompile(`^(sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})$`)
)

// CheckPinned reports why value is not a pinned version of field key.
// chartVersion must be an exact semantic version (Helm's own rule for
// chart versions); other fields (image tags) must name one build: no
// ranges, wildcards, floating tags, or digit-less names, which are branch
// names in practice.
func CheckPinned(key, value string) error {
	if value == "" {
		return fmt.Errorf("%s is empty: %w", key, ErrUnpinned)
	}
	if key == ChartVersionKey {
		if _, err := ParseSemver(value); err != nil {
			return fmt.Errorf("%s %q is not an exact semantic version: %w", key, value, ErrUnpinned)
		}
		return nil
	}
	if digest.MatchString(value) || strings.Contains(value, "@sha256:") {
		return nil
	}
	lower := strings.ToLower(value)
	switch {
	case slices.Contains(floatingTags, lower):
		return fmt.Errorf("%s %q is a floating tag: %w", key, value, ErrUnpinned)
	case rangeChars.MatchString(value), wildcard.MatchString(value):
		return fmt.Errorf("%s %q is a version range: %w", key, value, ErrUnpinned)
	case !strings.ContainsAny(value, "0123456789"):
		return fmt.Errorf("%s %q looks like a branch name: %w", key, value, ErrUnpinned)
	}
	return nil
}

// ParseSemver parses an exact semantic version, allowing a leading "v".
func ParseSemver(s string) (*semver.Version, error) {
	return semver.StrictNewVersion(strings.TrimPrefix(s, "v"))
}

// CheckUpgrade refuses a chartVersion that moves from old to an older new.
func CheckUpgrade(component, old, new string) error {
	o, errO := ParseSemver(old)
	n, errN := ParseSemver(new)
	if errO != nil || errN != nil {
		return nil // pinning rules report unparsable versions
	}
	if n.LessThan(o) {
		return fmt.Errorf("%s.%s would go from %s down to %s: %w", component, ChartVersionKey, old, new, ErrDowngrade)
	}
	return nil
}

// CheckPath requires from to be the environment just before to.
func CheckPath(envs []string, from, to string) error {
	i, j := slices.Index(envs, from), slices.Index(envs, to)
	if i < 0 || j < 0 {
		return fmt.Errorf("unknown environment in %s -> %s (configured: %s)", from, to, strings.Join(envs, ", "))
	}
	if from == to {
		return fmt.Errorf("cannot promote %s into itself: %w", to, ErrSameEnv)
	}
	if j != i+1 {
		want := "nothing (it is the first environment)"
		if j > 0 {
			want = envs[j-1]
		}
		return fmt.Errorf("%s -> %s: %s is promoted from %s: %w", from, to, to, want, ErrPromotionPath)
	}
	return nil
}
