package scrub

// Content masks every value of the Set in rendered content (a manifest, a
// diff, a resource's name), in every form the Set knows: long values
// anywhere, in any ASCII case, URL-escaped, quoted, hex and base64 (whole
// or inside longer base64 text), short values and words as whole tokens.
// Unlike Text and Foreign it reads no message forms: no quoted span, no
// URL's userinfo, no value slot of an error is masked, since content is
// not a message and a diff's quotes are YAML's. A nil or empty Set
// returns content as it is.
func (s *Set) Content(content string) string {
	if s == nil || len(s.seen) == 0 || content == "" {
		return content
	}
	return apply(content, s.valueSpans(content, nil, nil))
}

// Empty reports whether the Set holds no value, so a caller can skip
// walking content that nothing would be masked in.
func (s *Set) Empty() bool { return s == nil || len(s.seen) == 0 }
