// Package scrub keeps secret values and credentials out of everything the
// tools print: errors, reports, merge request notes and logs. It is the one
// place that decides what a message may show.
//
// A Set collects what must never be shown, then cleans text:
//
//	var s scrub.Set
//	s.AddYAML(valuesFile)            // every scalar of a values file
//	s.Add(param.Value)               // one value (helm parameter, literal)
//	s.AddCredential("oauth2", token) // a password or token
//	s.AddURL(repoURL)                // the userinfo written into a URL
//	s.Keep(templateNames...)         // names that stay readable
//	err = s.Error(err)               // a library's error, cleaned
//	msg = s.Text(msg)                // our own message, cleaned
//
// A nil *Set is valid and holds nothing: Error and Text then still drop
// known value slots, quoted spans (Error only) and URL userinfo.
//
// # What is masked, and how
//
// Masked text is replaced by "***". Three layers run together, and what
// any layer masks stays masked:
//
//  1. Known forms. Messages whose shape we know keep their position and
//     class and lose their value slot, whatever the Set holds: yaml's
//     "unknown anchor '***' referenced" and "cannot decode !!str `***` as
//     a !!int", values.schema.json's "'***' does not match pattern '^x$'"
//     and "'***' is not valid email", kustomize's "invalid literal source
//     ***, expected key=value", yaml's "invalid map key: ***". Positions
//     (Helm's "template: c/templates/x.yaml:3:7: executing ... at
//     <.Values.a.b>:" with the action of a chart template, "error calling
//     tpl:", "execution error at (c/templates/x.yaml:3:7):",
//     "YAML parse error on c/templates/x.yaml:", "yaml: line 4:", a schema's
//     "- at '/a/b':") are kept readable.
//  2. Every value in the Set, anywhere in the text, in each form it could
//     take there: as is (ASCII case-insensitively: templates upper- and
//     lower-case values), URL-escaped, JSON- and Go-quoted, hex, base64
//     (standard and URL alphabets, padded or not), and the base64 of the
//     value at each of the three byte alignments it can have inside a
//     longer encoded string (an Authorization header echoed by a server
//     holds base64("user:pass")).
//     A multi-line value is also masked line by line, and a value that is
//     itself base64 text is masked decoded as well.
//  3. In a library's error text (Error, not Text), every quoted span
//     ('...', "...", `...`) outside a kept position: an unknown message
//     that quotes something most likely quotes content.
//
// URL userinfo ("https://user:token@host") is masked in both Error and
// Text; URL hides it in a single URL without parsing it, so a password
// holding '/', '#' or a space cannot make parsing fail with the URL in
// the error.
//
// # Short values and words
//
// A value of four characters or more is masked wherever it appears, even
// inside a word. A value of one to three characters, and a word (up to six
// ASCII letters: "error", "debug", "deep"), is masked only as a whole
// token (no letter, digit, '.', '_', '-' or '/' on either side; words
// ASCII-case-insensitively) and never inside a kept position, so a value
// "3" does not turn "line 13", "x.yaml:3:7" or "127.0.0.3" into noise, a
// value "ab" leaves "table" alone, a value "qa" leaves "envs/qa/x.yaml"
// and "ledger-qa" alone and a log level "error" leaves "errors" alone.
// Such a value carries few bits; masking it inside every name would make
// errors unreadable.
// true, false and null are never masked: they are not secrets and appear
// in every values file. Strings given to Keep stay readable where they
// appear whole (a chart's template names, value file names, the app's
// name), even when a value is part of them.
//
// # Credentials on the wire
//
// StripOnRedirect and RefuseOffOrigin guard HTTP clients so that a
// credential is sent only to the origin (scheme, host, port) it was
// configured for: a redirect to another host carries no credential header,
// or is refused.
package scrub
