package render

import (
	"bytes"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// ParseTracked parses a stream RenderUntracked gave into resources, with
// t's tracking metadata on every object: the resources diff.Parse gives
// for the stream Render would have returned, parsed once instead of
// three times (the tracking's parse, its re-encode, the diff's parse),
// which was a seventh of a fleet run's CPU.
//
// The marking is done on the tree the diff parses when its documents are
// cut where the tracking cuts them: at lines that are exactly "---". A
// stream with other markers ("--- x", "...", CRLF markers), and a stream
// the diff refuses, go the old way, through the re-encoded text, so that
// an error names the same document and line as before.
func ParseTracked(stream []byte, defaultNamespace string, t *Tracking) ([]diff.Resource, error) {
	if t == nil || t.none() {
		return diff.Parse(stream, defaultNamespace)
	}
	if plainMarkers(stream) {
		if rs, err := diff.ParseMarked(stream, defaultNamespace, t.markDocument); err == nil {
			return rs, nil
		}
	}
	tracked, err := trackText(stream, *t)
	if err != nil {
		return nil, err
	}
	return diff.Parse(tracked, defaultNamespace)
}

// plainMarkers reports whether every line of s that starts with "---" or
// "..." is exactly "---": then the tracking's split and the diff's cut
// the same documents, and no document holds a second one.
func plainMarkers(s []byte) bool {
	for len(s) > 0 {
		line := s
		if i := bytes.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = nil
		}
		if (bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("..."))) && string(line) != "---" {
			return false
		}
	}
	return true
}

// Track is the stream Render returns for the stream RenderUntracked gave
// for req: with Argo CD's tracking metadata on every object.
func Track(stream []byte, req *argo.Request) ([]byte, error) { return track(stream, req) }
